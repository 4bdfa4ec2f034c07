// How much of the read bandwidth a core keeps while it also computes: a
// stream of 64-byte lines with `work` 256-bit adds per line beyond the ones
// that take its loads, from 1 GiB in 2 MiB pages (as BM_gemv reads a
// matrix) or from a buffer that stays in L2 (hot: the compute alone).
// side:1 also reads 64 bytes of an 8 KiB buffer per line, as a decode
// kernel reads its activations beside the weights (a 5632-column row's
// int8 values and sums take about that much). l1:1 prefetches the stream
// at the GEMV kernels' distances (kStreamDistances), l1:0 the same without
// the step into L1 (on AMD, whose only step that is, no prefetch at all). Where this loop streams faster than a kernel with as
// much compute per line (BM_gemv cold against hot), the kernel, not the
// machine, stops short (docs/kernels.md, "Session 51").
#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstdint>
#include <cstring>

#include "kernels/gemv_rows.h"
#include "kernels/huge_pages.h"

namespace {

using Lane8 = uint32_t __attribute__((vector_size(32)));

constexpr size_t kSideBytes = 8192;
alignas(64) uint8_t side_buffer[kSideBytes + 64];

// The lines of [p, p + bytes), each line's two vectors (and with kSide two
// of the side buffer's) added into eight sums, 8 + kWork adds per line. The
// empty asm keeps every add (the compiler would fold repeated adds of one
// vector into a shift) and emits nothing.
template <int kWork, bool kSide>
__attribute__((noinline, target("avx2"))) uint32_t stream_lines(const uint8_t* p, size_t bytes,
                                                                 ck::qgemv::StreamDistances ahead) {
  static_assert(kWork % 8 == 0);
  Lane8 s0 = {}, s1 = {}, s2 = {}, s3 = {}, s4 = {}, s5 = {}, s6 = {}, s7 = {};
  for (size_t i = 0; i < bytes; i += 64) {
    if (ahead.l2_ahead != 0) __builtin_prefetch(p + i + ahead.l2_ahead, 0, 1);
    if (ahead.l1_ahead != 0) __builtin_prefetch(p + i + ahead.l1_ahead, 0, 3);
    Lane8 a, b, c, d;
    std::memcpy(&a, p + i, 32);
    std::memcpy(&b, p + i + 32, 32);
    c = a;
    d = b;
    if constexpr (kSide) {
      std::memcpy(&c, side_buffer + (i % kSideBytes), 32);
      std::memcpy(&d, side_buffer + (i % kSideBytes) + 32, 32);
    }
#pragma GCC unroll 16
    for (int w = 0; w <= kWork; w += 8) {
      s0 += a;
      s1 += b;
      s2 += c;
      s3 += d;
      s4 += a;
      s5 += b;
      s6 += c;
      s7 += d;
      asm("" : "+x"(s0), "+x"(s1), "+x"(s2), "+x"(s3), "+x"(s4), "+x"(s5), "+x"(s6), "+x"(s7));
    }
  }
  const Lane8 s = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
  return s[0] + s[7];
}

constexpr size_t kColdBytes = size_t{1} << 30;
constexpr size_t kHotBytes = size_t{256} << 10;  // per thread: in L2 on every CPU we run on
constexpr size_t kStepBytes = size_t{64} << 20;   // per iteration, from the 1 GiB

template <int kWork, bool kSide>
void BM_stream_work(benchmark::State& state) {
  if (!__builtin_cpu_supports("avx2")) {
    state.SkipWithError("the loop is written for AVX2");
    return;
  }
  const bool hot = state.range(0) != 0, l1 = state.range(1) != 0;
  const int threads = static_cast<int>(state.range(2));
  const size_t total = hot ? kHotBytes * static_cast<size_t>(threads) : kColdBytes;
  const size_t step = hot ? total : kStepBytes;
  const ck::HugePageBuffer buffer = ck::allocate_huge_pages(total);
  std::memset(buffer.get(), 1, total);
  const ck::qgemv::StreamDistances ahead = {ck::qgemv::kStreamDistances.l2_ahead,
                                            l1 ? ck::qgemv::kStreamDistances.l1_ahead : 0};
  size_t at = 0;
  for (auto _ : state) {
    uint32_t result = 0;
#pragma omp parallel num_threads(threads) reduction(+ : result)
    {
      const size_t t = static_cast<size_t>(omp_get_thread_num()), nt = static_cast<size_t>(omp_get_num_threads());
      const size_t part = step / nt / 64 * 64;
      result += stream_lines<kWork, kSide>(buffer.get() + at + t * part, part, ahead);
    }
    benchmark::DoNotOptimize(result);
    at = (at + step) % total;
  }
  state.counters["GB/s"] =
      benchmark::Counter(static_cast<double>(step) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

void WorkArgs(benchmark::internal::Benchmark* b) {
  for (int threads : {1, 2}) {
    for (int l1 : {1, 0}) {
      for (int hot : {0, 1}) b->Args({hot, l1, threads});
    }
  }
  b->ArgNames({"hot", "l1", "threads"})->UseRealTime()->MinTime(0.5);
}
#define CK_STREAM_WORK(work)                                            \
  BENCHMARK_TEMPLATE(BM_stream_work, work, false)->Apply(WorkArgs);     \
  BENCHMARK_TEMPLATE(BM_stream_work, work, true)->Apply(WorkArgs);
CK_STREAM_WORK(0)
CK_STREAM_WORK(8)
CK_STREAM_WORK(16)
CK_STREAM_WORK(24)
CK_STREAM_WORK(32)

}  // namespace
