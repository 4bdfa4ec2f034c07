// ck-run: continue a prompt with a llama-family model, streaming the text.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "apps/chat/chat_repl.h"
#include "apps/common/app_main.h"
#include "apps/common/flag_aliases.h"
#include "apps/run/generate.h"
#include "apps/run/interrupt.h"
#include "apps/run/run_options.h"
#include "apps/run/timings.h"
#include "runtime/model.h"
#include "runtime/sampler.h"
#include "runtime/session.h"

namespace ck::app {
namespace {

std::filesystem::path model_path(const RunOptions& o) {
  if (!o.model.empty()) return o.model;
  const std::filesystem::path p = default_model_path();
  std::fprintf(stderr, "ck-run: no -m given, using the default model %s\n", p.c_str());
  if (!std::filesystem::exists(p)) {
    throw std::runtime_error("the default model " + p.string() + " is missing: run scripts/fetch-models.sh or give -m");
  }
  return p;
}

// -c and -n against the model's training context.
int context_size(const RunOptions& o, const ModelConfig& c) {
  const std::string model_ctx = std::to_string(c.context_len);
  if (o.n_predict > c.context_len) {
    throw std::runtime_error("-n " + std::to_string(o.n_predict) + " exceeds the model's context of " + model_ctx);
  }
  if (!o.n_ctx_given) return std::min(o.n_ctx, c.context_len);
  if (o.n_ctx > c.context_len) {
    throw std::runtime_error("-c " + std::to_string(o.n_ctx) + " exceeds the model's context of " + model_ctx);
  }
  return o.n_ctx == 0 ? c.context_len : o.n_ctx;
}

void check_prompt_fits(size_t n_prompt, int n_ctx, const ModelConfig& c) {
  if (n_prompt < static_cast<size_t>(n_ctx)) return;
  const size_t need = n_prompt + 1;  // room for at least one generated token
  std::string msg = "the prompt is " + std::to_string(n_prompt) + " tokens, too long for a context of " +
                    std::to_string(n_ctx) + " tokens";
  msg += need <= static_cast<size_t>(c.context_len)
             ? ": use -c " + std::to_string(need) + " or more"
             : ", and the model's own context is only " + std::to_string(c.context_len) + ": shorten the prompt";
  throw std::runtime_error(msg);
}

int run(const RunOptions& o, ChatOptions chat) {
  validate_run_options(o);
  set_threads(o.n_threads);
  const std::string prompt = read_prompt(o);

  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<Model> model = Model::load(model_path(o));
  const double load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const ModelConfig& c = model->config();
  const tok::Tokenizer& tokenizer = model->tokenizer();
  std::fprintf(stderr, "ck-run: %s: %s, %.1fM parameters (%s), loaded in %.0f ms, %d threads\n",
               model->path().c_str(), c.arch.c_str(), model->n_params() / 1e6, model->dtype_mix().c_str(),
               load_seconds * 1e3, o.n_threads);

  const int n_ctx = context_size(o, c);
  const bool use_chat = o.chat || (!o.no_chat && prompt.empty() && !tokenizer.chat_template().empty());
  if (!use_chat && prompt.empty()) {
    throw std::runtime_error("no prompt: give -p TEXT or -f FILE (this model has no chat template for --chat)");
  }
  SamplerParams sampling = o.sampling;
  sampling.seed = o.seed == -1 ? Sampler::kRandomSeed : static_cast<uint64_t>(o.seed);
  Session session(*model, {.n_ctx = n_ctx, .n_batch = o.n_batch});

  if (use_chat) {
    chat.sampling = sampling;
    chat.n_predict = o.n_predict;
    return run_chat(*model, session, chat);
  }

  const std::vector<int32_t> tokens = tokenizer.encode(prompt, /*add_special=*/true, /*parse_special=*/true);
  check_prompt_fits(tokens.size(), n_ctx, c);
  Sampler sampler(sampling, c.vocab_size);
  std::fprintf(stderr, "ck-run: seed %llu\n", static_cast<unsigned long long>(sampler.seed()));
  install_interrupt_handler();
  if (!o.no_display_prompt) {
    std::fputs(prompt.c_str(), stdout);
    std::fflush(stdout);
  }
  const GenerationStats stats = generate(session, sampler, tokenizer, tokens, {o.n_predict, o.n_batch}, stdout);
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
  ck::app::AliasedArgs args(argc, argv,
                            {{"-cnv", "--conversation"}, {"-no-cnv", "--no-conversation"},
                             ck::app::kChatFlagAliases[0], ck::app::kChatFlagAliases[1]});
  return ck::app::run_app(app, args.argc(), args.argv(), [&] {
    opts.prompt_given = app.count("--prompt") > 0;
    opts.n_ctx_given = app.count("--ctx-size") > 0;
    return ck::app::run(opts, chat);
  });
}
