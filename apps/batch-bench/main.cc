// ck-batch-bench: aggregate decode tokens/s of N sequences that share each
// forward pass (Session::eval_batch, what ck-server's continuous batching
// runs), after a prompt of -p tokens per sequence. As in ck-bench, the
// tokens are random ids and only the forward passes are timed; medians of
// -r repetitions.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "apps/bench/params.h"
#include "apps/common/app_main.h"
#include "apps/common/kv_cache_flags.h"
#include "apps/common/llama_flags.h"
#include "apps/common/model_path.h"
#include "apps/common/thread_count.h"
#include "runtime/model.h"
#include "runtime/session.h"

namespace ck::app {
namespace {

struct Options {
  std::string model;
  std::string parallel = "1,2,4";
  int n_prompt = 32;
  int n_gen = 64;
  int repetitions = 3;
  int threads = 0;
  KvCacheFlags kv_cache;  // -ctk/-ctv
};

// Seconds for n_gen decode steps of `np` sequences, each after an n_prompt prefill.
double decode_seconds(Session& session, int np, int n_prompt, int n_gen, std::mt19937& rng) {
  std::uniform_int_distribution<int32_t> id(1, 255);  // ids valid in every vocabulary
  session.reset();
  std::vector<std::vector<int32_t>> prompts(np);
  for (int s = 0; s < np; ++s) {
    prompts[s].resize(n_prompt);
    for (int32_t& t : prompts[s]) t = id(rng);
    const SeqTokens one[] = {{s, prompts[s]}};
    session.eval_batch(one);
  }
  std::vector<int32_t> next(np);
  std::vector<SeqTokens> inputs(np);
  const auto t0 = std::chrono::steady_clock::now();
  for (int step = 0; step < n_gen; ++step) {
    for (int s = 0; s < np; ++s) {
      next[s] = id(rng);
      inputs[s] = {s, std::span(&next[s], 1)};
    }
    session.eval_batch(inputs);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int run(Options& o) {
  set_threads(resolve_thread_count(o.threads, "-t", "ck-batch-bench"));
  const std::vector<int> parallel = bench::parse_int_list(o.parallel);
  const int most = *std::max_element(parallel.begin(), parallel.end());
  if (*std::min_element(parallel.begin(), parallel.end()) < 1) throw std::runtime_error("-np: counts must be >= 1");
  const KvCacheTypes kv = kv_cache_types(o.kv_cache);
  auto model = Model::load(model_or_default(o.model, "ck-batch-bench"));
  const int n_ctx = o.n_prompt + o.n_gen;
  std::fprintf(stderr, "ck-batch-bench: %s\n", kv_cache_summary(model->config(), n_ctx, most, kv).c_str());
  Session session(*model,
                  {.n_ctx = n_ctx, .n_batch = std::max(o.n_prompt, most), .n_seq = most, .kv_types = kv});
  std::mt19937 rng(1234);
  std::printf("| model | sequences | prompt | decode steps | aggregate t/s | per sequence t/s |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: | ---: |\n");
  for (int np : parallel) {
    decode_seconds(session, np, o.n_prompt, std::min(o.n_gen, 8), rng);  // warm-up
    std::vector<double> secs;
    for (int r = 0; r < o.repetitions; ++r) secs.push_back(decode_seconds(session, np, o.n_prompt, o.n_gen, rng));
    std::sort(secs.begin(), secs.end());
    const double tps = np * o.n_gen / secs[secs.size() / 2];
    std::printf("| %s | %d | %d | %d | %.2f | %.2f |\n", model->path().filename().c_str(), np, o.n_prompt, o.n_gen,
                tps, tps / np);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace
}  // namespace ck::app

int main(int argc, char** argv) {
  ck::app::Options o;
  CLI::App app("ck-batch-bench: aggregate decode tokens/s of N sequences sharing each forward pass", "ck-batch-bench");
  app.add_option("-m,--model", o.model, "model (.gguf or .bump); " + ck::app::default_model_help());
  app.add_option("--parallel", o.parallel, "sequences decoded together, a list (\"1,2,4\", \"1-8*2\")");
  app.add_option("-p,--n-prompt", o.n_prompt, "prompt tokens per sequence before decoding")->check(CLI::Range(1, 4096));
  app.add_option("-n,--n-gen", o.n_gen, "decode steps timed")->check(CLI::Range(1, 4096));
  app.add_option("-r,--repetitions", o.repetitions, "repetitions (median reported)")->check(CLI::Range(1, 100));
  app.add_option("-t,--threads", o.threads, "threads (0 = one per physical core)");
  ck::app::add_kv_cache_flags(app, o.kv_cache);
  return ck::app::run_app(app, argc, argv, ck::app::llama_server_flags(), [&] { return ck::app::run(o); });
}
