// The static (non-SIMD) half of the GEMV kernels and of the fp32 GEMM of
// F32/F16/BF16: argument checks, thread partitioning and dispatch into the
// per-target code of gemv-inl.h (the integer GEMM: gemm.cc).
#include "kernels/gemv.h"
#include "kernels/matmul_internal.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gemv.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/gemv-inl.h"

#if HWY_ONCE
#include "kernels/simd_target.h"

namespace ck {
namespace qgemv {

#define CK_EXPORT_GEMV(name, K) HWY_EXPORT(GemvRows##name);
#define CK_EXPORT_GEMM(name, K) HWY_EXPORT(GemmRows##name);
CK_GEMV_KERNELS(CK_EXPORT_GEMV)
CK_GEMM_FLOAT_KERNELS(CK_EXPORT_GEMM)
#undef CK_EXPORT_GEMV
#undef CK_EXPORT_GEMM
HWY_EXPORT(CompiledTargetName);

using GemvRowsFn = void (*)(const uint8_t*, size_t, int64_t, int64_t, int64_t, const float*, XSums, int64_t, float*,
                            int64_t);
using GemmRowsFn = void (*)(const uint8_t*, size_t, int64_t, int64_t, int64_t, const float*, int64_t, float*,
                            int64_t, float*, float*);

// The functions of the target chosen now (HWY_DYNAMIC_DISPATCH evaluated
// once per call of ours, not per row).
GemvRowsFn gemv_rows_fn(DType dt) {
  switch (dt) {
#define CK_CASE(name, K) \
  case DType::name:      \
    return &HWY_DYNAMIC_DISPATCH(GemvRows##name);
    CK_GEMV_KERNELS(CK_CASE)
#undef CK_CASE
    default:
      return nullptr;
  }
}

GemmRowsFn gemm_rows_fn(DType dt) {
  switch (dt) {
#define CK_CASE(name, K) \
  case DType::name:      \
    return &HWY_DYNAMIC_DISPATCH(GemmRows##name);
    CK_GEMM_FLOAT_KERNELS(CK_CASE)
#undef CK_CASE
    default:
      return nullptr;
  }
}

}  // namespace qgemv

std::string active_simd_target() {
  apply_simd_target_from_env();
  return HWY_DYNAMIC_DISPATCH(qgemv::CompiledTargetName)();
}

void check_matrix_args(DType dt, int64_t rows, int64_t cols, const char* fn) {
  const DTypeTraits& t = traits(dt);
  if (!t.native) {
    throw std::runtime_error(std::string(fn) + ": no kernel for " + std::string(t.name) + " (native: " +
                             native_dtype_names() + ")");
  }
  if (rows < 0 || cols <= 0 || cols % t.block_size != 0) {
    throw std::runtime_error(std::string(fn) + ": " + std::string(t.name) + " matrix " + std::to_string(rows) +
                             "x" + std::to_string(cols) + ": cols must be a positive multiple of " +
                             std::to_string(t.block_size));
  }
}

namespace {

// Rows [begin, end) of `rows` that thread `tid` of `nth` takes.
std::pair<int64_t, int64_t> share(int64_t rows, int tid, int nth) {
  return {rows * tid / nth, rows * (tid + 1) / nth};
}

// Sums of the rounded activations (q16 * scale) over each 16 values: exact
// in int32, scaled once. The offset terms of Q2_K (the minimums) multiply
// these, so that a kernel computes sum w * (rounded x); with
// the sums of the exact x instead, the rounding errors of the two terms
// would not cancel (the weights' q are all positive) and decode was about
// twice as far from the fp64 reference (measured on SmolLM2's Q4_1).
void sums_by16(const int16_t* q16, const float* scale32, int64_t cols, float* sums) {
  for (int64_t k = 0; k < cols / 16; ++k) {
    int32_t s = 0;
    for (int i = 0; i < 16; ++i) s += q16[16 * k + i];
    sums[k] = static_cast<float>(s) * scale32[16 * k / 32];
  }
}

// The dtypes whose gemv multiplies int8 activations (gemv_int8-inl.h: the
// 32-weight ones, Q4_K, Q5_K and Q6_K) and those that multiply int16 (Q2_K,
// Q3_K, IQ4_XS).
bool uses_x8(DType dt) {
  return traits(dt).block_size == 32 || dt == DType::Q4_K || dt == DType::Q5_K || dt == DType::Q6_K;
}
bool uses_x16(DType dt) { return traits(dt).block_size == 256 && !uses_x8(dt); }

// x as int16 per kInt16ActivationGroup values (x ~ q * scale, scale = max |x| / 32767,
// round to nearest): the activations of the integer dot products. The scale
// is stored once per 32 values (repeated over a group) so that the kernels
// index it by block. A non-finite group gets scale NaN, so that its rows come
// out NaN as with fp32 arithmetic.
void quantize_x16(const float* x, int64_t cols, int16_t* q, float* scale32) {
  for (int64_t g0 = 0; g0 < cols; g0 += kInt16ActivationGroup) {
    const int64_t n = std::min(kInt16ActivationGroup, cols - g0);
    const float* xg = x + g0;
    float amax = 0.0f;
    bool finite = true;
    for (int64_t i = 0; i < n; ++i) {
      amax = std::max(amax, std::fabs(xg[i]));
      finite &= std::isfinite(xg[i]);
    }
    const float d = finite ? amax / 32767.0f : std::numeric_limits<float>::quiet_NaN();
    std::fill(scale32 + g0 / 32, scale32 + (g0 + n) / 32, d);
    if (!finite) {
      std::fill_n(q + g0, n, int16_t{0});
      continue;
    }
    const float inv = d > 0.0f ? 1.0f / d : 0.0f;
    // Round to nearest (even) without a libm call per value, which cost a
    // tenth of prefill: adding and subtracting 1.5 * 2^23 leaves |v| <= 32767
    // rounded in the float's last place (no -ffast-math here to fold it).
    constexpr float kRound = 12582912.0f;
    for (int64_t i = 0; i < n; ++i) {
      q[g0 + i] = static_cast<int16_t>((xg[i] * inv + kRound) - kRound);
    }
  }
}

}  // namespace

int threads_for(int64_t work) { return work >= kMinParallelWeights ? omp_get_max_threads() : 1; }

void gemv(DType dt, const void* W, int64_t rows, int64_t cols, const float* x, float* y) {
  const GemvOutput out{dt, W, rows, y};
  gemv_multi({&out, 1}, cols, x);
}

namespace {

// What the activations of a product must be turned into for these matrices.
struct ActivationNeeds {
  int64_t weights = 0;  // multiply-adds per activation vector
  bool sums16 = false, q16 = false, q8 = false;
};

ActivationNeeds activation_needs(std::span<const GemvOutput> outputs, int64_t cols) {
  ActivationNeeds nd;
  for (const GemvOutput& o : outputs) {
    nd.weights += o.rows * cols;
    // The offsets and minimums per sub-block of the unsigned byte forms
    // multiply the sums of x over their blocks (a signed q has none).
    // (int16 forms; the int8 form always has its sums).
    const DTypeTraits& t = traits(o.dtype);
    const bool x16 = uses_x16(o.dtype);
    nd.sums16 |= x16 && t.u8_block == 16 && !t.u8_signed;
    nd.q16 |= x16;
    nd.q8 |= uses_x8(o.dtype);
  }
  return nd;
}

// n activation vectors as the kernels take them (qgemv::XSums, vector t at
// the offsets gemv-inl.h's VectorOf expects): int16 with their scales and
// block sums, and int8 as prefill rounds them.
struct Activations {
  std::vector<float> sums16, scale32;
  std::vector<int16_t> q16;
  std::vector<int8_t> q8, r8;
  std::vector<float> scale8, sum8, sum16_8, rscale8, rsum8, rsum16, residual;
  std::vector<uint8_t> spiky4;

  qgemv::XSums prepare(const float* X, int64_t cols, int64_t n, const ActivationNeeds& nd) {
    qgemv::XSums xs{};
    if (nd.q16) {
      q16.resize(static_cast<size_t>(n * cols));
      scale32.resize(static_cast<size_t>(n * cols / 32));
      sums16.resize(nd.sums16 ? static_cast<size_t>(n * cols / 16) : 0);
      for (int64_t t = 0; t < n; ++t) {
        int16_t* q = q16.data() + t * cols;
        float* scale = scale32.data() + t * (cols / 32);
        quantize_x16(X + t * cols, cols, q, scale);
        if (nd.sums16) sums_by16(q, scale, cols, sums16.data() + t * (cols / 16));
      }
      xs.by16 = nd.sums16 ? sums16.data() : nullptr;
      xs.q16 = q16.data();
      xs.scale32 = scale32.data();
    }
    if (nd.q8) prepare_x8(X, cols, n, xs);
    return xs;
  }

  // The padding blocks (X8Blocks) stay zero: scale, sums and flags.
  void prepare_x8(const float* X, int64_t cols, int64_t n, qgemv::XSums& xs) {
    const int64_t nb = cols / 32, nb8 = qgemv::X8Blocks(cols);
    const size_t blocks = static_cast<size_t>(n * nb8);
    q8.resize(static_cast<size_t>(n * cols));
    r8.resize(q8.size());
    scale8.assign(blocks, 0.0f);
    sum8.assign(blocks, 0.0f);
    sum16_8.assign(2 * blocks, 0.0f);
    rscale8.assign(blocks, 0.0f);
    rsum8.resize(static_cast<size_t>(nb));
    rsum16.resize(static_cast<size_t>(2 * nb));
    residual.resize(static_cast<size_t>(cols));
    spiky4.assign(blocks / qgemv::kX8Pad, 0);
    for (int64_t t = 0; t < n; ++t) {
      float* sum = sum8.data() + t * nb8;
      float* sum16 = sum16_8.data() + t * 2 * nb8;
      float* rscale = rscale8.data() + t * nb8;
      if (!quantize_row_int8(X + t * cols, cols, q8.data() + t * cols, scale8.data() + t * nb8, sum16, sum,
                             residual.data())) {
        continue;
      }
      quantize_row_int8(residual.data(), cols, r8.data() + t * cols, rscale, rsum16.data(), rsum8.data(), nullptr);
      for (int64_t b = 0; b < nb; ++b) {
        sum[b] += rsum8[static_cast<size_t>(b)];
        sum16[2 * b] += rsum16[static_cast<size_t>(2 * b)];
        sum16[2 * b + 1] += rsum16[static_cast<size_t>(2 * b + 1)];
        spiky4[static_cast<size_t>((t * nb8 + b) / qgemv::kX8Pad)] |= rscale[b] != 0.0f;
      }
    }
    xs.q8 = q8.data();
    xs.scale8 = scale8.data();
    xs.sum8 = sum8.data();
    xs.sum16_8 = sum16_8.data();
    xs.r8 = r8.data();
    xs.rscale8 = rscale8.data();
    xs.spiky4 = spiky4.data();
  }
};

int64_t checked_weights(std::span<const GemvOutput> outputs, int64_t cols, const char* fn) {
  int64_t weights = 0;
  for (const GemvOutput& o : outputs) {
    check_matrix_args(o.dtype, o.rows, cols, fn);
    weights += o.rows * cols;
  }
  return weights;
}

}  // namespace

void gemv_multi(std::span<const GemvOutput> outputs, int64_t cols, const float* x) {
  gemv_batch(outputs, cols, x, 1);
}

void gemv_multi(Team& team, std::span<const GemvOutput> outputs, int64_t cols, const float* x) {
  gemv_batch(team, outputs, cols, x, 1);
}

void gemv_batch(std::span<const GemvOutput> outputs, int64_t cols, const float* X, int64_t n) {
  apply_simd_target_from_env();
  const int64_t weights = checked_weights(outputs, cols, "gemv");
  run_team(threads_for(weights * n), [&](Team& team) { gemv_batch(team, outputs, cols, X, n); });
}

void gemv_batch(Team& team, std::span<const GemvOutput> outputs, int64_t cols, const float* X, int64_t n) {
  // Every thread rounds the vectors itself, into its own buffers: a few
  // hundred nanoseconds per vector, less than the barrier that sharing one
  // copy would need.
  thread_local Activations act;
  const qgemv::XSums xs = act.prepare(X, cols, n, activation_needs(outputs, cols));
  for (const GemvOutput& o : outputs) {
    const auto [r0, r1] = team.share(o.rows);
    qgemv::gemv_rows_fn(o.dtype)(static_cast<const uint8_t*>(o.W), row_bytes(traits(o.dtype), cols), r0, r1, cols,
                                 X, xs, n, o.y, o.rows);
  }
  team.barrier();
}

void gemm_float(Team& team, DType dt, const void* W, int64_t rows, int64_t cols, const float* X, int64_t n,
                float* Y) {
  if (n <= 0 || rows == 0) return;
  const qgemv::GemmRowsFn fn = qgemv::gemm_rows_fn(dt);
  const size_t rb = row_bytes(traits(dt), cols);
  // A tile of decoded rows of about 1 MiB stays in L2 while every token
  // tile streams past it.
  const int64_t tile = std::max<int64_t>(4, (int64_t{1} << 18) / cols / 4 * 4);
  const int64_t n_tiles = (rows + tile - 1) / tile;
  thread_local std::vector<float> buf, tmp;
  buf.resize(static_cast<size_t>(tile * cols));
  tmp.resize(static_cast<size_t>(tile * 4));
  const auto [first, last] = team.share(n_tiles);
  for (int64_t i = first; i < last; ++i) {
    const int64_t r0 = i * tile;
    fn(static_cast<const uint8_t*>(W), rb, r0, std::min(rows, r0 + tile), cols, X, n, Y, rows, buf.data(), tmp.data());
  }
  team.barrier();
}

}  // namespace ck
#endif  // HWY_ONCE
