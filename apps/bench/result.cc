#include "apps/bench/result.h"

#include <cmath>
#include <numeric>

namespace ck::bench {
namespace {

double mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

std::vector<double> as_double(const std::vector<uint64_t>& v) { return {v.begin(), v.end()}; }

}  // namespace

double stddev(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  const double m = mean(v);
  double sq = 0;
  for (double x : v) sq += (x - m) * (x - m);
  return std::sqrt(sq / static_cast<double>(v.size() - 1));
}

std::vector<double> Result::samples_ts() const {
  std::vector<double> ts;
  const double n_tokens = test.n_prompt + test.n_gen;
  for (uint64_t ns : samples_ns) ts.push_back(1e9 * n_tokens / static_cast<double>(ns));
  return ts;
}

uint64_t Result::avg_ns() const { return static_cast<uint64_t>(mean(as_double(samples_ns))); }
uint64_t Result::stddev_ns() const { return static_cast<uint64_t>(stddev(as_double(samples_ns))); }
double Result::avg_ts() const { return mean(samples_ts()); }
double Result::stddev_ts() const { return stddev(samples_ts()); }

double Result::weight_gbs() const {
  const uint64_t ns = avg_ns();
  return ns > 0 ? static_cast<double>(weight_bytes) / static_cast<double>(ns) : 0.0;  // bytes/ns = GB/s
}

double Result::bw_fraction() const { return mem_bw_gbs > 0 ? weight_gbs() / mem_bw_gbs : 0.0; }

double Result::avg_ttft_ms() const { return mean(as_double(ttft_ns)) / 1e6; }

}  // namespace ck::bench
