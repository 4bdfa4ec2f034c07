// ck-run: continue a prompt with a llama-family model, streaming the text.
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "apps/chat/chat_repl.h"
#include "apps/common/app_main.h"
#include "apps/common/context_size.h"
#include "apps/common/kv_cache_flags.h"
#include "apps/common/llama_flags.h"
#include "apps/common/load_progress.h"
#include "apps/common/model_path.h"
#include "apps/common/plural.h"
#include "apps/common/token_report.h"
#include "apps/run/generate.h"
#include "apps/run/interrupt.h"
#include "apps/run/run_options.h"
#include "apps/run/timings.h"
#include "runtime/context_shift.h"
#include "runtime/model.h"
#include "runtime/sampler.h"
#include "runtime/session.h"

namespace ck::app {
namespace {

void check_predict_fits(int n_predict, int n_ctx, bool context_shift) {
  if (n_predict > n_ctx && !context_shift) {
    throw std::runtime_error("-n " + std::to_string(n_predict) + " exceeds the context of " +
                             std::to_string(n_ctx) + " tokens: use a larger -c, or --context-shift");
  }
}

void check_prompt_fits(size_t n_prompt, int n_ctx) {
  if (n_prompt < static_cast<size_t>(n_ctx)) return;
  throw std::runtime_error("the prompt is " + std::to_string(n_prompt) + " tokens, too long for a context of " +
                           std::to_string(n_ctx) + " tokens: use -c " + std::to_string(n_prompt + 1) +
                           " or more, or shorten the prompt");
}

// Why there is no chat and no prompt: the user's -no-cnv, or a model without
// a chat template.
std::string no_prompt_message(const RunOptions& o) {
  if (o.no_chat) return "no prompt: give -p TEXT or -f FILE (-no-cnv turns the chat off)";
  return "no prompt: give -p TEXT or -f FILE (this model has no chat template, so no chat starts without -p; "
         "-cnv with --chat-template NAME forces one)";
}

int run(const CLI::App& app, RunOptions& o, ChatOptions chat) {
  validate_run_options(app, o);
  set_threads(o.gen.n_threads);
  const std::string prompt = read_prompt(o.gen);

  const auto t0 = std::chrono::steady_clock::now();
  ck::app::LoadProgress load_progress;
  std::unique_ptr<Model> model = Model::load(model_or_default(o.gen.model, "ck-run"),
                                             {.bump_dir = o.gen.bump_dir, .progress = load_progress.callback()});
  const double load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const ModelConfig& c = model->config();
  const tok::Tokenizer& tokenizer = model->tokenizer();
  std::fprintf(stderr, "ck-run: %s: %s, %.1fM parameters (%s), loaded in %.0f ms, %s\n", model->path().c_str(),
               c.arch.c_str(), model->n_params() / 1e6, model->dtype_mix().c_str(), load_seconds * 1e3,
               count_of(o.gen.n_threads, "thread").c_str());

  const int n_ctx = resolve_context_size(o.gen.n_ctx, o.gen.n_ctx_given, c.context_len, "ck-run");
  const bool use_chat = o.chat || (!o.no_chat && prompt.empty() && !tokenizer.chat_template().empty());
  if (!use_chat && prompt.empty()) throw std::runtime_error(no_prompt_message(o));
  std::fprintf(stderr, "ck-run: %s\n", kv_cache_summary(c, n_ctx, 1, o.gen.kv_types).c_str());
  Session session(*model,
                  {.n_ctx = n_ctx, .n_batch = o.gen.n_batch, .allow_longer_context = true, .kv_types = o.gen.kv_types});

  if (use_chat) {
    if (app.count("--keep") > 0) {
      std::fprintf(stderr, "ck-run: note: --keep is ignored in the chat: a context shift there keeps the system "
                           "prompt (docs/apps.md)\n");
    }
    take_generation_options(o.gen, chat);
    chat.first_message = prompt;
    return run_chat(*model, session, chat);
  }
  if (!chat.system_prompt.empty() || !chat.system_prompt_file.empty()) {
    std::fprintf(stderr, "ck-run: note: the system prompt (-sys/-sysf) is ignored: it belongs to the chat, and "
                         "this is a plain completion of -p/-f (add -cnv to chat)\n");
  }
  if (!chat.in_prefix.empty() || !chat.in_suffix.empty()) {
    std::fprintf(stderr, "ck-run: note: --in-prefix/--in-suffix are ignored: they wrap the chat's messages, and "
                         "this is a plain completion of -p/-f (add -cnv to chat)\n");
  }
  check_predict_fits(o.gen.n_predict, n_ctx, o.gen.context_shift);

  const std::vector<int32_t> tokens = tokenizer.encode(prompt, /*add_special=*/true, /*parse_special=*/true);
  spdlog::debug("prompt: {} tokens:{}", tokens.size(), [&] {
    std::string ids;
    for (int32_t t : tokens) ids += " " + std::to_string(t);
    return ids;
  }());
  if (o.gen.verbose_prompt) std::fputs(verbose_prompt_text(tokenizer, prompt, tokens).c_str(), stderr);
  check_prompt_fits(tokens.size(), n_ctx);
  Sampler sampler = make_sampler(seeded_params(o.gen), o.gen.sampling.ignore_eos, tokenizer);
  const std::unique_ptr<GrammarConstraint> grammar = make_constraint(o.gen.grammar, tokenizer);
  sampler.set_constraint(grammar.get());
  std::fprintf(stderr, "ck-run: seed %llu\n", static_cast<unsigned long long>(sampler.seed()));
  install_interrupt_handler();
  if (!o.no_display_prompt) {
    std::fputs(prompt.c_str(), stdout);
    std::fflush(stdout);
  }
  const GenerationLimits limits{.n_predict = o.gen.n_predict,
                                .n_threads = o.gen.n_threads,
                                .n_threads_batch = o.gen.n_threads_batch,
                                .render_special = o.gen.special,
                                .stop_strings = o.gen.reverse_prompts,
                                .n_probs = o.gen.sampling.n_probs,
                                .context_shift = o.gen.context_shift,
                                .n_keep = keep_count(o.keep, static_cast<int>(tokens.size()), tokenizer.add_bos())};
  const GenerationStats stats = generate(session, sampler, tokenizer, tokens, limits, stdout);
  print_timings(stats, load_seconds, session.n_past(), n_ctx);
  return stats.stop == StopReason::Interrupted ? 130 : 0;
}

}  // namespace
}  // namespace ck::app

int main(int argc, char** argv) {
  CLI::App app{"ck-run: continue a prompt with a llama-family model (.gguf or .bump), streaming the text to stdout",
               "ck-run"};
  ck::app::RunOptions opts;
  ck::app::add_run_flags(app, opts);
  ck::app::ChatOptions chat;
  ck::app::add_chat_flags(app, chat);
  return ck::app::run_app(app, argc, argv, ck::app::llama_common_flags(),
                          [&] { return ck::app::run(app, opts, chat); });
}
