// Runs ck-bench's tests on a loaded model. Timings cover only the forward
// passes: the model is loaded, the session allocated and the random tokens
// drawn before the clock starts (as llama-bench, the tokens are random ids;
// the text does not change the work).
#pragma once
#include <functional>
#include <string>

#include "apps/bench/params.h"
#include "apps/bench/result.h"
#include "runtime/model.h"
#include "runtime/session.h"

namespace ck::bench {

struct RunOptions {
  int repetitions = 5;
  bool warmup = true;  // one untimed run of each test first
  bool profile = false;  // record where the timed passes' time goes (Result::profile)
};

// The model fields of a Result (file, type, size, params, dtype mix).
Result describe_model(const Model& model, const std::string& filename);

// "llama 135M Q4_1": architecture, parameter count, most used weight dtype.
std::string model_type(const std::string& arch, int64_t n_params, const std::string& dtype_mix);

// Weight bytes one run of `test` streams: one pass over the weights per
// prefill batch and per generated token.
uint64_t weight_bytes_streamed(const TestSpec& test, uint64_t bytes_per_pass, int n_batch);

// Runs `test` opts.repetitions times on `session` and records the samples in
// `r` (which describes the model already). `on_rep(i)` is called before
// repetition i (0 = the warm-up when enabled, then 1..repetitions).
void run_test(const Model& model, Session& session, const TestSpec& test, const RunOptions& opts, Result& r,
              const std::function<void(int)>& on_rep);

std::string cpu_info();           // "model name" of /proc/cpuinfo
uint64_t peak_rss_bytes();        // of this process so far (since reset_peak_rss)
void reset_peak_rss();            // Linux: the peak becomes the current RSS
std::string utc_now_rfc3339();

}  // namespace ck::bench
