// One benchmark result, with llama-bench's field names where they mean the
// same thing so one script reads both tools' output (scripts/plot-bench), and
// ck's extras: weight bandwidth, time to first token, peak RSS.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "apps/bench/params.h"
#include "runtime/forward_profile.h"
#include "runtime/run_state.h"

namespace ck::bench {

struct Result {
  std::string cpu_info;
  std::string model_filename;
  std::string model_type;   // "llama 135M Q4_1": arch, size class, main weight dtype
  uint64_t model_size = 0;  // bytes of weights
  uint64_t model_n_params = 0;
  std::string dtype_mix;
  int n_batch = 0;
  int n_threads = 0;
  KvCacheTypes kv_types;          // type_k, type_v
  TestSpec test;
  std::string test_time;          // RFC 3339, when the test started
  std::vector<uint64_t> samples_ns;  // one per repetition
  std::vector<uint64_t> ttft_ns;     // time to first token, pg tests only
  uint64_t weight_bytes = 0;      // weight bytes streamed by one repetition
  double mem_bw_gbs = 0;          // measured read bandwidth at n_threads (0 = unknown)
  double int8_peak_gmacs = 0;     // --profile: measured byte multiply-add peak at n_threads
  uint64_t peak_rss_bytes = 0;    // of the process, after the test
  // The model file's mapping after the test: resident, and of that in 2 MiB
  // pages (loader/mapped_file.h, mapping_pages).
  uint64_t weights_resident_bytes = 0;
  uint64_t weights_huge_bytes = 0;
  std::optional<ForwardProfile> profile;  // --profile: the timed repetitions' steps

  std::vector<double> samples_ts() const;  // tokens/s per repetition
  uint64_t avg_ns() const;
  uint64_t stddev_ns() const;
  double avg_ts() const;
  double stddev_ts() const;
  double weight_gbs() const;      // weight_bytes / avg time
  double bw_fraction() const;     // weight_gbs / mem_bw_gbs (0 when unknown)
  double avg_ttft_ms() const;     // 0 when not a pg test
};

// Sample standard deviation (n - 1), 0 for fewer than two samples: llama-bench's.
double stddev(const std::vector<double>& v);

}  // namespace ck::bench
