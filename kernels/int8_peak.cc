// The byte multiply-add peak probe: one loop per Highway target.
#include "kernels/int8_peak.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/int8_peak.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "kernels/hwy_portable.h"
#include "kernels/simd_target.h"

HWY_BEFORE_NAMESPACE();
namespace ck::peak::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr int kChains = 12;  // more than latency x throughput of any of them

// Byte multiply-adds done by `iterations` rounds of kChains instructions;
// the accumulators are folded into `sink` so that nothing is dead code.
int64_t ByteDotLoop(int64_t iterations, int32_t* sink) {
#if CK_HWY_PORTABLE_TARGET
  (void)iterations;
  *sink = 0;
  return 0;
#else
  const hn::ScalableTag<uint8_t> d8;
  const hn::ScalableTag<int32_t> d32;
  auto w = hn::Iota(d8, 1).raw;
  auto x = hn::Set(d8, 3).raw;
  decltype(w) acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = hn::Set(d8, static_cast<uint8_t>(i)).raw;
  for (int64_t it = 0; it < iterations; ++it) {
    for (int i = 0; i < kChains; ++i) {
#if HWY_TARGET == HWY_AVX3_DL
      // No Highway op, and the target attribute lacks avx512vnni (as in gemm_int8-inl.h).
      asm volatile("vpdpbusd %1, %2, %0" : "+v"(acc[i]) : "v"(w), "v"(x));
#elif HWY_TARGET <= HWY_AVX3
      acc[i] = _mm512_add_epi16(acc[i], _mm512_maddubs_epi16(w, x));
      asm volatile("" : "+v"(acc[i]));
#elif HWY_TARGET == HWY_AVX2
      acc[i] = _mm256_add_epi16(acc[i], _mm256_maddubs_epi16(w, x));
      asm volatile("" : "+x"(acc[i]));
#else
      acc[i] = _mm_add_epi16(acc[i], _mm_maddubs_epi16(w, x));
      asm volatile("" : "+x"(acc[i]));
#endif
    }
  }
  auto total = hn::Zero(d32);
  for (int i = 0; i < kChains; ++i) total = hn::Add(total, decltype(total){acc[i]});
  *sink = hn::GetLane(hn::SumOfLanes(d32, total));
  // Each instruction: one product per byte lane.
  return iterations * kChains * static_cast<int64_t>(hn::Lanes(d8));
#endif
}

const char* Instruction() {
#if CK_HWY_PORTABLE_TARGET
  return "none (portable target)";
#elif HWY_TARGET == HWY_AVX3_DL
  return "vpdpbusd zmm";
#elif HWY_TARGET <= HWY_AVX3
  return "vpmaddubsw + vpaddw zmm";
#elif HWY_TARGET == HWY_AVX2
  return "vpmaddubsw + vpaddw ymm";
#else
  return "pmaddubsw + paddw xmm";
#endif
}

}  // namespace ck::peak::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ck {
namespace peak {
HWY_EXPORT(ByteDotLoop);
HWY_EXPORT(Instruction);
// Looked up here, where they are exported (see gemm.cc's group_rows_fn).
auto* byte_dot_loop_fn() { return &HWY_DYNAMIC_DISPATCH(ByteDotLoop); }
auto* instruction_fn() { return &HWY_DYNAMIC_DISPATCH(Instruction); }
}  // namespace peak

double measure_int8_peak_gmacs(int threads) {
  apply_simd_target_from_env();
  threads = std::max(1, threads);
  auto* loop = peak::byte_dot_loop_fn();
  constexpr int kPasses = 5;
  constexpr int64_t kIterations = int64_t{1} << 22;  // 50 M instructions: 15-30 ms
  double best = 0;
  for (int pass = 0; pass < kPasses; ++pass) {
    int64_t macs = 0;
    const auto start = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads) reduction(+ : macs)
    {
      int32_t sink = 0;
      macs += loop(kIterations, &sink);
      asm volatile("" : : "r"(sink));
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, static_cast<double>(macs) / seconds / 1e9);
  }
  return best;
}

const char* int8_peak_instruction() {
  apply_simd_target_from_env();
  return peak::instruction_fn()();
}

}  // namespace ck
#endif  // HWY_ONCE
