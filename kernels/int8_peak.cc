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

#if !CK_HWY_PORTABLE_TARGET
// An empty asm that tells the compiler v may have changed, so that the same
// product is not computed once for all chains and nothing is dead code;
// the machine sees no instruction.
template <class Raw>
HWY_INLINE void Opaque(Raw& v) {
#if HWY_TARGET <= HWY_AVX3
  asm volatile("" : "+v"(v));
#else
  asm volatile("" : "+x"(v));
#endif
}

// acc += the target's byte dot product of w and x, then w is hidden from
// the compiler (Opaque) so that the next chain's product is its own. In
// asm: written with intrinsics, GCC copied each chain's sum to another
// register (and some to the stack) every time, and the probe measured
// those moves.
template <class Raw>
HWY_INLINE void ByteDot(Raw& acc, Raw& w, Raw x) {
#if HWY_TARGET == HWY_AVX3_DL
  // No Highway op, and the target attribute lacks avx512vnni (as in gemm_int8-inl.h).
  asm("vpdpbusd %1, %2, %0" : "+v"(acc) : "v"(x), "v"(w));
#elif HWY_TARGET <= HWY_AVX3
  Raw t;
  asm("vpmaddubsw %2, %1, %0" : "=v"(t) : "v"(w), "v"(x));
  asm("vpaddw %1, %0, %0" : "+v"(acc) : "v"(t));
#elif HWY_TARGET == HWY_AVX2
  Raw t;
  asm("vpmaddubsw %2, %1, %0" : "=x"(t) : "x"(w), "x"(x));
  asm("vpaddw %1, %0, %0" : "+x"(acc) : "x"(t));
#else
  Raw t;
  asm("movdqa %1, %0\n\tpmaddubsw %2, %0" : "=&x"(t) : "x"(w), "x"(x));
  asm("paddw %1, %0" : "+x"(acc) : "x"(t));
#endif
  Opaque(w);
}
#endif

// Byte multiply-adds done by `iterations` rounds of eight independent
// chains: enough to cover the latency of the add at full throughput, and of
// vpdpbusd (5 cycles) at one per cycle; few enough for 16 registers. The
// sums go to `sink`.
int64_t ByteDotLoop(int64_t iterations, int32_t* sink) {
#if CK_HWY_PORTABLE_TARGET
  (void)iterations;
  *sink = 0;
  return 0;
#else
  const hn::ScalableTag<uint8_t> d8;
  const hn::ScalableTag<int32_t> d32;
  auto w = hn::Iota(d8, 1).raw;
  const auto x = hn::Set(d8, 3).raw;
  auto a0 = hn::Zero(d8).raw, a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
  for (int64_t it = 0; it < iterations; ++it) {
    ByteDot(a0, w, x);
    ByteDot(a1, w, x);
    ByteDot(a2, w, x);
    ByteDot(a3, w, x);
    ByteDot(a4, w, x);
    ByteDot(a5, w, x);
    ByteDot(a6, w, x);
    ByteDot(a7, w, x);
  }
  using V = decltype(hn::Zero(d32));
  const V total = hn::Add(hn::Add(hn::Add(V{a0}, V{a1}), hn::Add(V{a2}, V{a3})),
                          hn::Add(hn::Add(V{a4}, V{a5}), hn::Add(V{a6}, V{a7})));
  // The chains wrap around int32 (vpdpbusd wraps), so the lanes are summed as
  // unsigned: GCC's AVX-512 reduce-add adds them as signed ints, which UBSan
  // rightly calls an overflow.
  const hn::ScalableTag<uint32_t> du32;
  HWY_ALIGN uint32_t lanes[hn::MaxLanes(du32)];
  hn::Store(hn::BitCast(du32, total), du32, lanes);
  uint32_t folded = 0;
  for (size_t i = 0; i < hn::Lanes(du32); ++i) folded += lanes[i];
  *sink = static_cast<int32_t>(folded);
  // Each instruction: one product per byte lane.
  return iterations * 8 * static_cast<int64_t>(hn::Lanes(d8));
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
