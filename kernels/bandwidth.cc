#include "kernels/bandwidth.h"

#include "kernels/cpu_vendor.h"
#include "kernels/huge_pages.h"

#include <hwy/cache_control.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace ck {
namespace {

constexpr size_t kBufferBytes = size_t{1} << 30;
constexpr int kPasses = 5;

// Eight independent sums so that the loads, not the adds, set the pace.
// On Intel each line 2 KB ahead is prefetched as the GEMV kernels' stream
// does: on machines whose hardware prefetcher alone leaves DRAM idle part of
// the time (the Xeon VMs), a plain read loop reports less than the kernels
// then stream, and would not be the ceiling their fractions are quoted
// against. On AMD, where every prefetch fills L1, the same loop read 20.4
// GB/s with it and 24.6 without (Zen 3, 1 thread, session 25): there the
// hardware prefetcher alone is the ceiling.
constexpr size_t kPrefetchWords = 256;
template <bool kPrefetch>
uint64_t sum_words(const uint64_t* p, size_t n) {
  uint64_t s[8] = {};
  for (size_t i = 0; i + 8 <= n; i += 8) {
    if (kPrefetch && i + kPrefetchWords < n) hwy::Prefetch(p + i + kPrefetchWords);
    for (int j = 0; j < 8; ++j) s[j] += p[i + j];
  }
  return s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
}

}  // namespace

double measure_read_bandwidth_gbs(int threads) {
  threads = std::max(1, threads);
  const size_t n = kBufferBytes / sizeof(uint64_t);
  // In 2 MiB pages, as the model file's: from 4 KiB ones 2 threads read
  // 21.4 and 30.6 GB/s where 2 MiB pages gave 32.9 and 53.6 (Zen 3,
  // session 28), below what decode then streamed.
  const HugePageBuffer bytes = allocate_huge_pages(kBufferBytes);
  auto* const buf = reinterpret_cast<uint64_t*>(bytes.get());
  // First touch by the thread that will read each part (NUMA placement).
#pragma omp parallel num_threads(threads)
  {
    const size_t t = static_cast<size_t>(omp_get_thread_num()), nt = static_cast<size_t>(omp_get_num_threads());
    std::fill(buf + n * t / nt, buf + n * (t + 1) / nt, t + 1);
  }
  const bool prefetch = !prefetch_hints_all_fill_l1();
  double best = 0;
  volatile uint64_t sink = 0;
  for (int pass = 0; pass < kPasses; ++pass) {
    const auto start = std::chrono::steady_clock::now();
    uint64_t total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
    {
      const size_t t = static_cast<size_t>(omp_get_thread_num()), nt = static_cast<size_t>(omp_get_num_threads());
      const uint64_t* part = buf + n * t / nt;
      const size_t words = n * (t + 1) / nt - n * t / nt;
      total += prefetch ? sum_words<true>(part, words) : sum_words<false>(part, words);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    sink = sink + total;
    best = std::max(best, static_cast<double>(kBufferBytes) / seconds / 1e9);
  }
  return best;
}

}  // namespace ck
