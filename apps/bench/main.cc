// ck-bench: prompt-processing and generation speed, like llama-bench, plus the
// weight bandwidth each test achieves against the machine's measured read
// bandwidth.
#include <chrono>
#include <cstdio>
#include <map>

#include <spdlog/spdlog.h>

#include "apps/bench/params.h"
#include "apps/bench/printers.h"
#include "apps/bench/runner.h"
#include "apps/common/app_main.h"
#include "apps/common/bump_dir_flag.h"
#include "apps/common/kv_cache_flags.h"
#include "apps/common/llama_flags.h"
#include "apps/common/load_progress.h"
#include "apps/common/model_path.h"
#include "apps/common/progress.h"
#include "apps/common/thread_count.h"
#include "kernels/bandwidth.h"
#include "kernels/int8_peak.h"
#include "runtime/decode_threads.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "runtime/threads.h"

namespace {

// Each option takes several values: repeated flags and comma lists combine.
std::vector<int> ints(const std::vector<std::string>& specs) {
  std::vector<int> out;
  for (const auto& s : specs) {
    const auto v = ck::bench::parse_int_list(s);
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Benchmark prompt processing (pp) and generation (tg) speed, like llama-bench", "ck-bench"};
  std::vector<std::string> models;
  std::vector<std::string> prompt = {"512"}, gen = {"128"}, depth = {"0"}, threads, pg, cache_k = {"f16"},
                           cache_v = {"f16"};
  int reps = 5, n_batch = 512;
  std::string output = "md";
  bool no_warmup = false, profile = false, fixed_threads = false;
  app.add_option("-m,--model", models, "Model files (.gguf or .bump), repeatable or comma-separated; " +
                                           ck::app::default_model_help())
      ->delimiter(',');
  std::string bump_dir;
  ck::app::add_bump_dir_flag(app, bump_dir);
  app.add_option("-p,--n-prompt", prompt, "Prompt lengths (ppN tests): 512 or 128,512 or 64-512*2")->capture_default_str();
  app.add_option("-n,--n-gen", gen, "Generated lengths (tgN tests)")->capture_default_str();
  app.add_option("--pg", pg, "Prompt then generation, PROMPT,GEN (ppP+tgG tests), repeatable (also -pg)");
  app.add_option("-d,--n-depth", depth, "Context depth each test starts at")->capture_default_str();
  app.add_option("--cache-type-k", cache_k,
                 "KV cache types of the keys, f16 or f32, as llama-bench's -ctk: a list (f16,f32) runs each with "
                 "each --cache-type-v")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--cache-type-v", cache_v, "KV cache types of the values (also -ctv)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("-t,--threads", threads,
                 "Thread counts, e.g. 1,2 or 1-4 (default: physical cores); more than the CPUs warns and runs");
  app.add_option("-b,--batch-size", n_batch, "Prefill batch")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("-r,--repetitions", reps, "Timed repetitions per test")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("-o,--output", output, "Output format: md, csv, json, jsonl")->capture_default_str();
  app.add_flag("--no-warmup", no_warmup, "Skip the untimed warm-up run of each test");
  app.add_flag("--fixed-threads", fixed_threads,
               "Decode on exactly -t threads. By default a decode pass may run on half of them while that has "
               "been faster lately (another process busy on the cores; docs/threading.md), as in ck-run, ck-chat "
               "and ck-server");
  app.add_flag("--profile", profile,
               "Also record where the timed runs' time goes: each step of the forward pass per token (matmuls "
               "with their shape and multiply-adds per second, attention, the other ops) and the threads' "
               "waits at barriers; a table per test after the results (md) or a \"profile\" field (json)");

  return ck::app::run_app(app, argc, argv, ck::app::llama_bench_flags(), [&] {
    const auto format = ck::bench::parse_output_format(output);
    std::vector<std::pair<int, int>> pgs;
    for (const auto& s : pg) pgs.push_back(ck::bench::parse_pg(s));
    if (fixed_threads) ck::decode_threads().fix(ck::kMaxThreads);
    const auto tests = ck::bench::expand_tests(ints(prompt), ints(gen), pgs, ints(depth));
    if (tests.empty()) throw std::runtime_error("nothing to run: every -p, -n and -pg is 0");
    std::vector<int> thread_counts = threads.empty() ? std::vector<int>{ck::default_threads()} : ints(threads);
    for (int t : thread_counts) {
      if (t < 1) throw std::runtime_error("-t: thread counts must be at least 1");
      ck::app::resolve_thread_count(t, "-t", "ck-bench");
    }
    std::vector<ck::KvCacheTypes> cache_types;  // llama-bench's order: the values vary fastest
    for (const std::string& k : cache_k) {
      for (const std::string& v : cache_v) {
        cache_types.push_back({.key_f16 = ck::app::parse_kv_cache_type(k, "-ctk/--cache-type-k"),
                               .value_f16 = ck::app::parse_kv_cache_type(v, "-ctv/--cache-type-v")});
      }
    }
    if (models.empty()) models.push_back(ck::app::model_or_default("", "ck-bench").string());
    // Every model is loaded once before anything is printed (converting a
    // GGUF on first use): a bad path or an unsupported model is an error with
    // empty stdout, never a table or JSON array cut short. The weights are
    // read in by each model's own load below, not all of them here. Both
    // loads draw a bar for a step that takes long (a conversion, a first
    // read from disk), as ck-run's does.
    ck::app::LoadProgress load_progress;
    for (const std::string& m : models) {
      ck::Model::load(m, {.bump_dir = bump_dir, .settle_pages = false, .progress = load_progress.callback()});
    }

    int max_ctx = 0;
    for (const auto& t : tests) max_ctx = std::max(max_ctx, t.n_depth + t.n_prompt + t.n_gen);
    const ck::bench::RunOptions opts{reps, !no_warmup, profile};
    const int runs_per_test = reps + (no_warmup ? 0 : 1);
    ck::app::ProgressBar bar("ck-bench", static_cast<int64_t>(models.size() * cache_types.size() *
                                                              thread_counts.size() * tests.size() * runs_per_test));
    int64_t runs_done = 0;
    // The read bandwidth for "% bw", per thread count, measured before any
    // model is loaded.
    std::map<int, double> bandwidth, int8_peak;
    for (int t : thread_counts) {
      ck::set_threads(t);
      bandwidth[t] = ck::measure_read_bandwidth_gbs(t);
      if (profile) int8_peak[t] = ck::measure_int8_peak_gmacs(t);
    }

    auto printer = ck::bench::make_printer(format, stdout);
    printer->header();
    const ck::bench::FooterGuard footer(*printer);
    for (size_t mi = 0; mi < models.size(); ++mi) {
      const auto t0 = std::chrono::steady_clock::now();
      bar.clear();
      auto model = ck::Model::load(models[mi], {.bump_dir = bump_dir, .progress = load_progress.callback()});
      spdlog::info("loaded {} in {:.2f} s", models[mi],
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      for (const ck::KvCacheTypes kv : cache_types) {
        // Each model's and cache's own peak (not the probe's buffer, the
        // previous model's or the previous cache's).
        ck::bench::reset_peak_rss();
        spdlog::info("{}", ck::app::kv_cache_summary(model->config(), max_ctx, 1, kv));
        // As llama-bench: any depth runs, also past the trained context (a
        // speed test; the text's quality is not measured).
        ck::Session session(*model, ck::SessionOptions{.n_ctx = max_ctx,
                                                       .n_batch = n_batch,
                                                       .allow_longer_context = true,
                                                       .kv_types = kv});
        ck::bench::Result base = ck::bench::describe_model(*model, models[mi]);
        base.n_batch = n_batch;
        base.kv_types = kv;
        for (int t : thread_counts) {
          ck::set_threads(t);
          for (const auto& test : tests) {
            ck::bench::Result r = base;
            r.n_threads = t;
            r.mem_bw_gbs = bandwidth[t];
            if (profile) r.int8_peak_gmacs = int8_peak[t];
            r.weight_bytes = ck::bench::weight_bytes_streamed(test, model->decode_bytes_per_token(), n_batch);
            ck::bench::run_test(*model, session, test, opts, r, [&](int rep) {
              const std::string what = "runs: model " + std::to_string(mi + 1) + "/" + std::to_string(models.size()) +
                                       ", t=" + std::to_string(t) + ", " + test.name() + ", " +
                                       (rep == 0 ? std::string("warm-up") : "rep " + std::to_string(rep));
              bar.update(runs_done++, what);
            });
            bar.clear();
            printer->print(r);
          }
        }
      }
    }
    bar.clear();
    return 0;
  });
}
