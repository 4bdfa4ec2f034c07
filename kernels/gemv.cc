// The static (non-SIMD) half of the GEMV kernels and of the fp32 GEMM of
// F32/F16/BF16: argument checks, activation rounding, thread partitioning
// and dispatch; the per-target float kernels (gemv_float-inl.h). The
// quantized GEMV kernels are compiled in gemv_int8.cc and gemv_kquant.cc
// (gemv_rows.h); the integer GEMM in gemm.cc.
#include "kernels/gemv.h"
#include "kernels/matmul_internal.h"
#include "kernels/unit_lanes.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gemv.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/gemv-inl.h"
#include "kernels/gemv_float-inl.h"

// This unit's kernels; the quantized dtypes are in gemv_int8.cc and
// gemv_kquant.cc.
#define CK_GEMV_FLOAT_KERNELS(ENTRY) \
  ENTRY(F32, F32Kernel) ENTRY(F16, HalfKernel<hwy::float16_t>) ENTRY(BF16, HalfKernel<hwy::bfloat16_t>)

HWY_BEFORE_NAMESPACE();
namespace ck::qgemv::HWY_NAMESPACE {
#define CK_DEFINE_GEMM_ENTRY_POINT(name, K)                                                            \
  void GemmRows##name(const uint8_t* W, size_t rb, int64_t r0, int64_t r1, int64_t cols, const float* X, \
                      int64_t n, float* Y, int64_t rows, float* buf, float* tmp) {                      \
    GemmRows<K>(W, rb, r0, r1, cols, X, n, Y, rows, buf, tmp);                                           \
  }
CK_GEMV_FLOAT_KERNELS(CK_DEFINE_GEMV_ENTRY_POINT)
CK_GEMV_FLOAT_KERNELS(CK_DEFINE_GEMM_ENTRY_POINT)
#undef CK_DEFINE_GEMM_ENTRY_POINT

const char* CompiledTargetName() { return hwy::TargetName(HWY_TARGET); }
}  // namespace ck::qgemv::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/cpu_vendor.h"
#include "kernels/simd_target.h"

namespace ck {
namespace qgemv {
// AMD: one L1 prefetch a line; Intel: the two steps (gemv-inl.h).
const StreamDistances kStreamDistances =
    prefetch_hints_all_fill_l1() ? StreamDistances{0, 4096} : StreamDistances{3072, 1024};
const StreamDistances kRowGroupStreamDistances = prefetch_hints_all_fill_l1() ? StreamDistances{2048, 0} : kStreamDistances;
const StreamDistances kSuperBlockGroupStreamDistances =
    prefetch_hints_all_fill_l1() ? StreamDistances{6144, 0} : StreamDistances{6144, 3072};

CK_DEFINE_GEMV_ROWS_FN(gemv_float_rows_fn, CK_GEMV_FLOAT_KERNELS)
#define CK_EXPORT_GEMM(name, K) HWY_EXPORT(GemmRows##name);
CK_GEMV_FLOAT_KERNELS(CK_EXPORT_GEMM)
#undef CK_EXPORT_GEMM
HWY_EXPORT(CompiledTargetName);
// Looked up here, where it is exported (see gemm.cc's group_rows_fn).
const char* compiled_target_name() { return HWY_DYNAMIC_DISPATCH(CompiledTargetName)(); }

using GemmRowsFn = void (*)(const uint8_t*, size_t, int64_t, int64_t, int64_t, const float*, int64_t, float*,
                            int64_t, float*, float*);

// The function of the target chosen now (HWY_DYNAMIC_DISPATCH evaluated
// once per call of ours, not per row), from the unit that has dt.
GemvRowsFn gemv_rows_fn(DType dt) {
  for (GemvRowsFn (*unit)(DType) : {gemv_float_rows_fn, gemv_int8_rows_fn, gemv_kquant_rows_fn}) {
    if (const GemvRowsFn fn = unit(dt)) return fn;
  }
  return nullptr;
}

GemmRowsFn gemm_rows_fn(DType dt) {
  switch (dt) {
#define CK_CASE(name, K) \
  case DType::name:      \
    return &HWY_DYNAMIC_DISPATCH(GemmRows##name);
    CK_GEMV_FLOAT_KERNELS(CK_CASE)
#undef CK_CASE
    default:
      return nullptr;
  }
}

}  // namespace qgemv

std::string active_simd_target() {
  apply_simd_target_from_env();
  return qgemv::compiled_target_name();
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
  if (rows % t.row_group != 0) {
    throw std::runtime_error(std::string(fn) + ": " + std::string(t.name) + " matrix " + std::to_string(rows) +
                             "x" + std::to_string(cols) + ": rows must be a multiple of " +
                             std::to_string(t.row_group));
  }
}

int threads_for(int64_t work) { return work >= kMinParallelWeights ? omp_get_max_threads() : 1; }

void gemv(DType dt, const void* W, int64_t rows, int64_t cols, const float* x, float* y) {
  const GemvOutput out{dt, W, rows, y};
  gemv_multi({&out, 1}, cols, x);
}

namespace {

// n activation vectors as the kernels take them (qgemv::XSums, vector t at
// the offsets gemv-inl.h's VectorOf expects): int8 per 32 as prefill rounds
// them, and per 256 for the K-quants (DTypeTraits::gemv_x_block), each form
// only where a matrix of the call multiplies it.
// The offset terms (Q4_0's -8d, Q4_1's m, the K-quants' minimums, ...)
// multiply the sums of the *rounded* x, so that a kernel computes sum w *
// (rounded x); with the sums of the exact x the two terms' rounding errors
// would not cancel (the weights' u are all positive), which doubled the
// error of SmolLM2 Q4_1's decode in session 2.
struct Activations {
  // One rounding of n vectors: int8 per `width` values and the second pass
  // over the spiky blocks, the sums per 16 and per 32 counting both.
  // Per vector: cols bytes, `blocks` scales, `blocks` * width / 16 and / 32
  // sums (blocks >= cols / width: the per-32 form pads, X8Blocks).
  struct Rounded {
    std::vector<int8_t> q, r;
    std::vector<float> scale, rscale, sum16, sum32, rsum16, rsum32, residual;

    void round(const float* X, int64_t cols, int64_t n, int64_t width, int64_t blocks) {
      const int64_t nb = cols / width, per16 = width / 16, per32 = width / 32;
      q.resize(static_cast<size_t>(n * cols));
      r.resize(q.size());
      scale.assign(static_cast<size_t>(n * blocks), 0.0f);
      rscale.assign(scale.size(), 0.0f);
      sum16.assign(scale.size() * per16, 0.0f);
      sum32.assign(scale.size() * per32, 0.0f);
      rsum16.resize(static_cast<size_t>(nb * per16));
      rsum32.resize(static_cast<size_t>(nb * per32));
      residual.resize(static_cast<size_t>(cols));
      for (int64_t t = 0; t < n; ++t) {
        const int64_t b0 = t * blocks;
        float* s16 = sum16.data() + b0 * per16;
        float* s32 = sum32.data() + b0 * per32;
        if (!quantize_row_int8(X + t * cols, cols, width, q.data() + t * cols, scale.data() + b0, s16, s32,
                               residual.data())) {
          continue;
        }
        quantize_row_int8(residual.data(), cols, width, r.data() + t * cols, rscale.data() + b0, rsum16.data(),
                          rsum32.data(), nullptr);
        for (int64_t i = 0; i < nb * per16; ++i) s16[i] += rsum16[static_cast<size_t>(i)];
        for (int64_t i = 0; i < nb * per32; ++i) s32[i] += rsum32[static_cast<size_t>(i)];
      }
    }
  };
  Rounded by32, by256;
  std::vector<int16_t> bsum16, rbsum16;

  // out = the sums of q per 16 bytes, each 256's 16 sums in XSums::bsum16_8k's
  // order (the even sub-blocks, then the odd ones).
  static void integer_sums16(const std::vector<int8_t>& q, std::vector<int16_t>& out) {
    out.resize(q.size() / 16);
    for (size_t s = 0; s < out.size(); ++s) {
      int sum = 0;
      for (size_t i = 0; i < 16; ++i) sum += q[16 * s + i];
      const size_t within = s % 16;
      out[s - within + (within % 2) * 8 + within / 2] = static_cast<int16_t>(sum);
    }
  }
  std::vector<int8_t> q8p, r8p;
  std::vector<int8_t> q8kl, r8kl;
  std::vector<float> scale8p, rscale8p, sum8p;
  std::vector<uint8_t> spiky4;  // per group of kX8Pad blocks: has a spiky one
  std::vector<int32_t> spiky_groups, n_spiky_groups;

  // XSums' pair layout of every whole group of kX8Pad blocks, and of a
  // last group of two (its other lanes are the padding blocks' zeros).
  void pair_layout(int64_t cols, int64_t n) {
    static_assert(qgemv::kX8Pad == 4, "two pairs per group");
    static constexpr int kBlockOfLane[8] = {0, 0, 2, 2, 1, 1, 3, 3};
    const int64_t nb = cols / 32, nb8 = qgemv::X8Blocks(cols);
    const int64_t groups = nb / qgemv::kX8Pad + (nb % qgemv::kX8Pad == 2);
    q8p.resize(by32.q.size());
    r8p.resize(by32.r.size());
    scale8p.assign(static_cast<size_t>(2 * n * nb8), 0.0f);
    rscale8p.assign(scale8p.size(), 0.0f);
    sum8p.assign(scale8p.size(), 0.0f);
    for (int64_t t = 0; t < n; ++t) {
      for (int64_t g = 0; g < groups; ++g) {
        const int64_t k0 = g * qgemv::kX8Pad, bytes = t * cols + k0 * 32;
        const bool spiky = spiky4[static_cast<size_t>((t * nb8 + k0) / qgemv::kX8Pad)] != 0;
        const int pieces = k0 + qgemv::kX8Pad <= nb ? 8 : 4;
        for (int i = 0; i < pieces; ++i) {  // 16-byte piece i: pair i / 4, half (i / 2) % 2, block i % 2 of the pair
          const int64_t from = bytes + (2 * (i / 4) + i % 2) * 32 + (i / 2) % 2 * 16, to = bytes + 16 * i;
          std::memcpy(&q8p[static_cast<size_t>(to)], &by32.q[static_cast<size_t>(from)], 16);
          if (spiky) std::memcpy(&r8p[static_cast<size_t>(to)], &by32.r[static_cast<size_t>(from)], 16);
        }
        for (int lane = 0; lane < 8; ++lane) {
          const size_t from = static_cast<size_t>(t * nb8 + k0 + kBlockOfLane[lane]);
          const size_t to = static_cast<size_t>(t * 2 * nb8 + 2 * k0 + lane);
          scale8p[to] = by32.scale[from];
          rscale8p[to] = by32.rscale[from];
          if (lane % 2 == 0) sum8p[to] = by32.sum32[from];
        }
      }
    }
  }

  // The padding blocks (X8Blocks) stay zero: scale, sums and flags.
  qgemv::XSums prepare(const float* X, int64_t cols, int64_t n, bool per32, bool per256) {
    qgemv::XSums xs{};
    if (per32) {
      const int64_t nb8 = qgemv::X8Blocks(cols);
      by32.round(X, cols, n, 32, nb8);
      spiky4.assign(static_cast<size_t>(n * nb8 / qgemv::kX8Pad), 0);
      // A block took the second pass where its residual scale is not zero.
      for (size_t b = 0; b < by32.rscale.size(); ++b) spiky4[b / qgemv::kX8Pad] |= by32.rscale[b] != 0.0f;
      const int64_t groups = nb8 / qgemv::kX8Pad;
      spiky_groups.resize(spiky4.size());
      n_spiky_groups.assign(static_cast<size_t>(n), 0);
      for (int64_t t = 0; t < n; ++t) {
        for (int64_t g = 0; g < groups; ++g) {
          if (spiky4[static_cast<size_t>(t * groups + g)] != 0) {
            spiky_groups[static_cast<size_t>(t * groups + n_spiky_groups[static_cast<size_t>(t)]++)] =
                static_cast<int32_t>(g);
          }
        }
      }
      pair_layout(cols, n);
      xs.q8 = by32.q.data();
      xs.scale8 = by32.scale.data();
      xs.sum8 = by32.sum32.data();
      xs.sum16_8 = by32.sum16.data();
      xs.r8 = by32.r.data();
      xs.rscale8 = by32.rscale.data();
      xs.spiky_groups = spiky_groups.data();
      xs.n_spiky_groups = n_spiky_groups.data();
      xs.q8p = q8p.data();
      xs.r8p = r8p.data();
      xs.scale8p = scale8p.data();
      xs.rscale8p = rscale8p.data();
      xs.sum8p = sum8p.data();
    }
    if (per256) {
      by256.round(X, cols, n, 256, cols / 256);
      xs.q8k = by256.q.data();
      xs.scale8k = by256.scale.data();
      xs.sum16_8k = by256.sum16.data();
      xs.sum32_8k = by256.sum32.data();
      xs.r8k = by256.r.data();
      xs.rscale8k = by256.rscale.data();
      integer_sums16(by256.q, bsum16);
      integer_sums16(by256.r, rbsum16);
      xs.bsum16_8k = bsum16.data();
      xs.rbsum16_8k = rbsum16.data();
      q8kl.resize(by256.q.size());
      r8kl.resize(by256.r.size());
      unit_lanes_activations(by256.q.data(), q8kl.data(), static_cast<int64_t>(q8kl.size()));
      unit_lanes_activations(by256.r.data(), r8kl.data(), static_cast<int64_t>(r8kl.size()));
      xs.q8kl = q8kl.data();
      xs.r8kl = r8kl.data();
    }
    return xs;
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

void gemv_batch(std::span<const GemvOutput> outputs, int64_t cols, const float* X, int64_t n) {
  apply_simd_target_from_env();
  const int64_t weights = checked_weights(outputs, cols, "gemv");
  run_team(threads_for(weights * n), [&](Team& team) { gemv_batch(team, outputs, cols, X, n); });
}

void gemv_batch(Team& team, std::span<const GemvOutput> outputs, int64_t cols, const float* X, int64_t n,
                Team::Last last) {
  // Every thread rounds the vectors itself, into its own buffers: a few
  // hundred nanoseconds per vector, less than the barrier that sharing one
  // copy would need.
  thread_local Activations act;
  bool per32 = false, per256 = false;
  for (const GemvOutput& o : outputs) {
    per32 |= traits(o.dtype).gemv_x_block == 32;
    per256 |= traits(o.dtype).gemv_x_block == 256;
  }
  const qgemv::XSums xs = per32 || per256 ? act.prepare(X, cols, n, per32, per256) : qgemv::XSums{};
  // Each thread owns an equal share of every matrix's rows, cut into up to
  // eight chunks, and computes its own chunks first, in order (one stream
  // per matrix: each chunk's prefetch runs on into the next), then helps
  // with the chunks its slower team-mates have not begun (Team::for_owned):
  // a thread slowed by other load computes fewer. Every row is computed
  // alike whoever takes it. Chunk index: owner-major, then matrix, then
  // chunk of the owner's share. A row-grouped matrix is cut between its
  // groups: its units are groups, not rows.
  const int64_t T = team.size();
  const auto units = [](const GemvOutput& o) { return o.rows / traits(o.dtype).row_group; };
  const auto per_share = [T, units](const GemvOutput& o) { return std::clamp<int64_t>(units(o) / T, 1, 8); };
  int64_t chunks_per_owner = 0;
  for (const GemvOutput& o : outputs) chunks_per_owner += per_share(o);
  team.for_owned(T * chunks_per_owner, [&](int64_t i) {
    const int owner = static_cast<int>(i / chunks_per_owner);
    int64_t j = i % chunks_per_owner;
    size_t k = 0;
    while (j >= per_share(outputs[k])) j -= per_share(outputs[k++]);
    const GemvOutput& o = outputs[k];
    const auto [s0, s1] = team.share_of(units(o), owner);
    const int64_t c = per_share(o), g = traits(o.dtype).row_group;
    const int64_t r0 = (s0 + (s1 - s0) * j / c) * g, r1 = (s0 + (s1 - s0) * (j + 1) / c) * g;
    if (r0 == r1) return;
    qgemv::gemv_rows_fn(o.dtype)(static_cast<const uint8_t*>(o.W), row_bytes(traits(o.dtype), cols), r0, r1, cols,
                                 X, xs, n, o.y, o.rows);
  }, last);
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
