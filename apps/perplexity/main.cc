// ck-perplexity: perplexity of a model over a text file (WikiText-2) by
// llama-perplexity's method, and the KL divergence of one model against
// another's saved predictions. Method and file formats: chunks.h, kld_base.h.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "apps/common/app_main.h"
#include "apps/common/bump_dir_flag.h"
#include "apps/common/context_size.h"
#include "apps/common/kv_cache_flags.h"
#include "apps/common/llama_flags.h"
#include "apps/common/load_progress.h"
#include "apps/common/model_path.h"
#include "apps/common/progress.h"
#include "apps/common/text_file.h"
#include "apps/common/thread_count.h"
#include "apps/perplexity/chunks.h"
#include "apps/perplexity/kld_base.h"
#include "apps/perplexity/kld_stats.h"
#include "apps/perplexity/nll.h"
#include "runtime/model.h"
#include "runtime/session.h"

namespace {

struct Options {
  std::string model;
  std::string bump_dir;  // --bump-dir
  std::string text_file;
  int n_ctx = 512;
  int n_chunks = -1;
  int n_batch = 512;
  int threads = 0;
  std::string kld_base;
  bool kld = false;
  int kld_top_k = 0;  // 0: llama.cpp's file format
  ck::app::KvCacheFlags kv_cache;  // -ctk/-ctv
  ck::KvCacheTypes kv_types;       // parsed
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The session of one chunk's context, announced with its KV cache.
ck::Session make_session(const ck::Model& model, const Options& o, int n_ctx) {
  std::fprintf(stderr, "ck-perplexity: %s\n", ck::app::kv_cache_summary(model.config(), n_ctx, 1, o.kv_types).c_str());
  return ck::Session(model, ck::SessionOptions{.n_ctx = n_ctx,
                                               .n_batch = std::min(o.n_batch, n_ctx),
                                               .allow_longer_context = true,
                                               .kv_types = o.kv_types});
}

// Prints llama-perplexity's running "[i]ppl," entries on stdout. On a terminal
// each entry gets its own line, so the progress bar on stderr below it never
// overwrites one; in a pipe or file it is llama.cpp's single line.
class RunningPrinter {
 public:
  explicit RunningPrinter(int n_chunk) : bar_("perplexity", n_chunk), tty_(isatty(STDOUT_FILENO) != 0) {}
  void chunk_done(int i, double ppl) {
    bar_.clear();
    std::printf(tty_ ? "[%d]%.4lf\n" : "[%d]%.4lf,", i + 1, ppl);
    std::fflush(stdout);
    char extra[48];
    std::snprintf(extra, sizeof extra, "chunks, ppl %.4f", ppl);
    bar_.update(i + 1, extra);
  }
  void finish() {
    bar_.clear();
    if (!tty_) std::printf("\n");
    std::fflush(stdout);
  }

 private:
  ck::app::ProgressBar bar_;
  bool tty_;
};

int run_perplexity(ck::Model& model, const Options& o, const std::string& text) {
  const auto& tok = model.tokenizer();
  if (tok.add_eos()) throw std::runtime_error("the model adds EOS after every text; perplexity is undefined for it");
  const int32_t bos = tok.add_bos() ? tok.bos() : -1;

  auto t0 = std::chrono::steady_clock::now();
  // As llama-perplexity: special tokens added as the metadata says, not parsed.
  const std::vector<int32_t> tokens = tok.encode(text, /*add_special=*/true, /*parse_special=*/false);
  std::fprintf(stderr, "ck-perplexity: tokenized %zu bytes into %zu tokens in %.2f s\n", text.size(), tokens.size(),
               seconds_since(t0));

  const ck::app::ChunkPlan plan = ck::app::plan_chunks(tokens.size(), o.n_ctx, o.n_chunks);
  ck::Session session = make_session(model, o, plan.n_ctx);
  std::fprintf(stderr, "ck-perplexity: %d chunks of %d tokens, scoring %d per chunk, batch %d, BOS %s\n", plan.n_chunk,
               plan.n_ctx, plan.n_scored(), std::min(o.n_batch, plan.n_ctx), bos >= 0 ? "replaces each chunk's first token" : "not used");

  std::unique_ptr<ck::app::ReferenceWriter> base;
  if (!o.kld_base.empty()) {
    const size_t used = static_cast<size_t>(plan.n_chunk) * plan.n_ctx;
    base = ck::app::create_reference(
        o.kld_base,
        ck::app::KldHeader{uint32_t(plan.n_ctx), uint32_t(tok.n_vocab()), uint32_t(plan.n_chunk), uint32_t(o.kld_top_k)},
        std::span<const int32_t>(tokens).first(used));
  }

  ck::app::NllStats stats;
  RunningPrinter printer(plan.n_chunk);
  t0 = std::chrono::steady_clock::now();
  ck::app::evaluate_chunks(session, tokens, plan, bos, tok.n_vocab(), [&](const ck::app::ScoredChunk& c) {
    for (int r = 0; r < plan.n_scored(); ++r) {
      stats.add(ck::app::token_nll(c.row(r), c.targets[r]));
      if (base) base->add(c.row(r), c.targets[r]);
    }
    if (c.index == 0) {
      const double per = seconds_since(t0);
      std::fprintf(stderr, "ck-perplexity: %.2f seconds per pass - ETA %s\n", per,
                   ck::app::format_duration(per * plan.n_chunk).c_str());
    }
    printer.chunk_done(c.index, stats.ppl());
  });
  printer.finish();
  const double secs = seconds_since(t0);
  if (base) base->close();

  std::printf("Final estimate: PPL = %.4lf +/- %.5lf\n", stats.ppl(), stats.ppl_error());
  std::fflush(stdout);
  const double n_eval = static_cast<double>(plan.n_chunk) * plan.n_ctx;
  std::fprintf(stderr, "ck-perplexity: %d chunks, %.0f tokens evaluated in %.2f s (%.1f tokens/s)%s%s\n", plan.n_chunk,
               n_eval, secs, n_eval / secs, base ? ", reference saved to " : "", base ? o.kld_base.c_str() : "");
  return 0;
}

int run_kl_divergence(ck::Model& model, const Options& o) {
  const std::unique_ptr<ck::app::ReferenceReader> base = ck::app::open_reference(o.kld_base);
  const ck::app::KldHeader& h = base->header();
  const auto& tok = model.tokenizer();
  if (h.n_vocab != static_cast<uint32_t>(tok.n_vocab())) {
    throw std::runtime_error(o.kld_base + ": saved with a vocabulary of " + std::to_string(h.n_vocab) +
                             " tokens, this model has " + std::to_string(tok.n_vocab()));
  }
  const int32_t bos = tok.add_bos() ? tok.bos() : -1;
  ck::app::ChunkPlan plan = ck::app::plan_chunks(base->tokens().size(), static_cast<int>(h.n_ctx), o.n_chunks);
  if (o.n_ctx != static_cast<int>(h.n_ctx)) {
    std::fprintf(stderr, "ck-perplexity: using the reference's context of %u tokens (not -c %d)\n", h.n_ctx, o.n_ctx);
  }
  ck::Session session = make_session(model, o, plan.n_ctx);

  ck::app::KldStats stats;
  ck::app::ProgressBar bar("kl-divergence", plan.n_chunk);
  std::printf("\n");
  ck::app::KldStats::print_chunk_header(stdout);
  const auto t0 = std::chrono::steady_clock::now();
  ck::app::evaluate_chunks(session, base->tokens(), plan, bos, tok.n_vocab(), [&](const ck::app::ScoredChunk& c) {
    for (int r = 0; r < plan.n_scored(); ++r) {
      stats.add(base->compare_next(c.row(r), c.targets[r]));
    }
    bar.clear();
    stats.print_chunk_line(stdout, c.index + 1);
    std::fflush(stdout);
    bar.update(c.index + 1, "chunks");
  });
  bar.clear();
  std::printf("\n");
  stats.print_report(stdout);
  std::fprintf(stderr, "ck-perplexity: %d chunks compared in %.2f s (reference: %s)\n", plan.n_chunk,
               seconds_since(t0), ck::app::describe_reference(h).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Perplexity of a model over a text (llama-perplexity's method), and KL divergence against a saved "
               "reference model",
               "ck-perplexity"};
  Options o;
  app.add_option("-m,--model", o.model, "Model (.gguf or .bump); " + ck::app::default_model_help());
  ck::app::add_bump_dir_flag(app, o.bump_dir);
  app.add_option("-f,--file", o.text_file,
                 "Text to evaluate, e.g. ../shared/data/wikitext-2/wikitext-2-raw-v1.test.txt");
  app.add_option("-c,--ctx-size", o.n_ctx,
                 "Tokens per chunk (at least 4); 0 = the model's training context. More than that warns and runs")
      ->capture_default_str();
  app.add_option("--chunks", o.n_chunks, "Evaluate at most N chunks (default: all)")->check(CLI::PositiveNumber);
  app.add_option("-b,--batch-size", o.n_batch, "Tokens per prefill batch")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("-t,--threads", o.threads,
                 "Threads; 0 = one per physical core (the default). More than the CPUs warns and runs");
  app.add_option("--kl-divergence-base,--save-all-logits", o.kld_base,
                 "Reference file: written by a perplexity run, read with --kl-divergence");
  app.add_flag("--kl-divergence", o.kld, "Compare the model against --kl-divergence-base (no -f needed)");
  app.add_option("--kl-top-k", o.kld_top_k,
                 "Save only the N most probable tokens per position (ck's own compact file, a lower bound of the "
                 "KL divergence) instead of llama.cpp's file with the whole distribution")
      ->check(CLI::Range(1, 1 << 20));
  ck::app::add_kv_cache_flags(app, o.kv_cache);
  return ck::app::run_app(app, argc, argv, ck::app::llama_common_flags(), [&] {
    if (o.kld && o.kld_base.empty()) throw std::runtime_error("--kl-divergence needs --kl-divergence-base FILE");
    if (!o.kld && o.text_file.empty()) throw std::runtime_error("no text to evaluate: give -f FILE");
    ck::app::check_context_flag(o.n_ctx);
    o.kv_types = ck::app::kv_cache_types(o.kv_cache);
    ck::set_threads(ck::app::resolve_thread_count(o.threads, "-t", "ck-perplexity"));
    const std::string text = o.kld ? std::string() : ck::app::read_text_file(o.text_file);
    const auto t0 = std::chrono::steady_clock::now();
    ck::app::LoadProgress load_progress;
    auto model = ck::Model::load(ck::app::model_or_default(o.model, "ck-perplexity"),
                                 {.bump_dir = o.bump_dir, .progress = load_progress.callback()});
    std::fprintf(stderr, "ck-perplexity: loaded %s in %.2f s\n", model->path().string().c_str(), seconds_since(t0));
    // -c as everywhere: 0 = the model's context, more than it warns.
    o.n_ctx = ck::app::resolve_context_size(o.n_ctx, app.count("--ctx-size") > 0, model->config().context_len,
                                            "ck-perplexity");
    return o.kld ? run_kl_divergence(*model, o) : run_perplexity(*model, o, text);
  });
}
