// The static half of the prefill GEMM: argument checks, activation
// quantization, the split of rows over threads and dispatch into the
// per-target integer kernels of gemm_int8-inl.h.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/gemv.h"
#include "kernels/matmul_internal.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gemm.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/gemm_int8-inl.h"

#if HWY_ONCE
#include "kernels/simd_target.h"

namespace ck {
namespace qgemm {
HWY_EXPORT(GroupRows);
HWY_EXPORT(GemmInt8Rows);
HWY_EXPORT(QuantizeRowInt8);
HWY_EXPORT(FixedOffset);
}  // namespace qgemm

namespace {

// A tile (decoded rows of one thread's share) of about this many bytes
// stays in L2 while every token streams past it.
constexpr int64_t kTileBytes = 256 << 10;

// Rows per tile: a whole number of groups, small enough for L2 and for at
// least two tiles per thread where the matrix has that many groups, so that
// the dynamic schedule can even out threads that run slower (a busy core).
int64_t tile_rows(int64_t rows, int64_t cols, int u8_block, int64_t group_rows, int threads) {
  const int64_t groups = (rows + group_rows - 1) / group_rows;
  const int64_t group_bytes = group_rows * cols * (1 + 8 / u8_block);
  const int64_t by_cache = std::max<int64_t>(1, kTileBytes / group_bytes);
  const int64_t by_threads = std::max<int64_t>(1, groups / (2 * int64_t{threads}));
  return std::min(by_cache, by_threads) * group_rows;
}

// The activations of one gemm call.
struct Buffers {
  std::vector<int8_t> xq;
  std::vector<float> xscale, xsum16, xsum32, koff, residual, y_residual;
  std::vector<uint8_t> has_spikes;
  std::vector<int64_t> spiky;
  std::vector<int32_t> starts, tokens;  // residual rows with a spiky block b: tokens[starts[b] .. starts[b+1])
};

}  // namespace

void gemm(DType dt, const void* W, int64_t rows, int64_t cols, const float* X, int64_t n, float* Y) {
  if (n == 1) return gemv(dt, W, rows, cols, X, Y);
  apply_simd_target_from_env();
  check_matrix_args(dt, rows, cols, "gemm");
  const DTypeTraits& tr = traits(dt);
  if (tr.decode_u8 == nullptr) return gemm_float(dt, W, rows, cols, X, n, Y);
  if (n <= 0 || rows == 0) return;

  const auto quantize_row = HWY_DYNAMIC_DISPATCH(qgemm::QuantizeRowInt8);
  const auto gemm_rows = HWY_DYNAMIC_DISPATCH(qgemm::GemmInt8Rows);
  const int64_t group_rows = static_cast<int64_t>(HWY_DYNAMIC_DISPATCH(qgemm::GroupRows)());
  const int64_t tile = tile_rows(rows, cols, tr.u8_block, group_rows, omp_get_max_threads());
  const int64_t n_tiles = (rows + tile - 1) / tile;
  const size_t rb = row_bytes(tr, cols);

  // Activation rows 0..n-1: the tokens; rows n..n+m-1: the rounding
  // residuals of the spiky blocks of the m tokens that have any (gemv.h,
  // kInt8SpikeRatio), multiplied in a second pass over just those (block,
  // row) pairs and added. (Buffers of the calling thread, reused across
  // calls; the parallel region below reaches them through these references,
  // not by their names, which would name each worker's own thread_local copy.)
  thread_local Buffers buffers;
  auto& xq = buffers.xq;
  auto& xscale = buffers.xscale;
  auto& xsum16 = buffers.xsum16;
  auto& xsum32 = buffers.xsum32;
  auto& koff = buffers.koff;
  auto& residual = buffers.residual;
  auto& y_residual = buffers.y_residual;
  auto& has_spikes = buffers.has_spikes;
  auto& spiky = buffers.spiky;
  auto& starts = buffers.starts;
  auto& tokens = buffers.tokens;
  const int64_t nb32 = cols / 32;
  const int64_t y_stride = (rows + group_rows - 1) / group_rows * group_rows;
  xq.resize(static_cast<size_t>(2 * n * cols));
  xscale.resize(static_cast<size_t>(2 * n * nb32));
  xsum16.resize(static_cast<size_t>(2 * n * cols / 16));
  xsum32.resize(xscale.size());
  const float k = HWY_DYNAMIC_DISPATCH(qgemm::FixedOffset)(dt);
  const bool fixed_offset = !std::isnan(k);
  const int64_t nbw = cols / tr.u8_block;  // weight blocks per row
  koff.resize(fixed_offset ? static_cast<size_t>(2 * n * nbw) : 0);
  residual.resize(static_cast<size_t>(n * cols));
  has_spikes.resize(static_cast<size_t>(n));
  spiky.clear();
  auto acts = [&](int64_t t) {
    return qgemm::Int8Activations{xq.data() + t * cols, xscale.data() + t * nb32, xsum16.data() + t * (cols / 16),
                                  xsum32.data() + t * nb32, fixed_offset ? koff.data() + t * nbw : nullptr, cols};
  };
  auto quantize = [&](const float* x, int64_t t, float* res) {
    return quantize_row(x, cols, xq.data() + t * cols, xscale.data() + t * nb32, xsum16.data() + t * (cols / 16),
                        xsum32.data() + t * nb32, res, kInt8SpikeRatio);
  };

  // One parallel region: quantize the tokens, pick the spiky ones, quantize
  // their residuals and list them by block, multiply the tiles of W (both
  // passes), add the residual products.
#pragma omp parallel if (rows * cols * n >= kMinParallelWeights)
  {
#pragma omp for schedule(static)
    for (int64_t t = 0; t < n; ++t) has_spikes[t] = quantize(X + t * cols, t, residual.data() + t * cols);
#pragma omp single
    for (int64_t t = 0; t < n; ++t) {
      if (has_spikes[t]) spiky.push_back(t);
    }
    const int64_t m = static_cast<int64_t>(spiky.size());
#pragma omp for schedule(static)
    for (int64_t i = 0; i < m; ++i) quantize(residual.data() + spiky[i] * cols, n + i, nullptr);
    if (fixed_offset) {
      const float* sums = tr.u8_block == 16 ? xsum16.data() : xsum32.data();
#pragma omp for schedule(static)
      for (int64_t t = 0; t < n + m; ++t) {
        for (int64_t b = 0; b < nbw; ++b) koff[static_cast<size_t>(t * nbw + b)] = k * sums[t * nbw + b];
      }
    }
#pragma omp single
    {
      starts.assign(static_cast<size_t>(nb32 + 1), 0);
      tokens.clear();
      for (int64_t b = 0; b < nb32; ++b) {
        for (int64_t i = 0; i < m; ++i) {
          if (xscale[static_cast<size_t>((n + i) * nb32 + b)] != 0.0f) tokens.push_back(static_cast<int32_t>(i));
        }
        starts[static_cast<size_t>(b + 1)] = static_cast<int32_t>(tokens.size());
      }
      y_residual.assign(static_cast<size_t>(m * y_stride), 0.0f);
    }
    thread_local std::vector<uint8_t> tile_u, row_u;
    thread_local std::vector<float> tile_a, tile_c, row_a, row_c;
    tile_u.resize(static_cast<size_t>(tile * cols));
    tile_a.resize(static_cast<size_t>(tile * nbw));
    tile_c.resize(tile_a.size());
    row_u.resize(static_cast<size_t>(cols));
    row_a.resize(static_cast<size_t>(nbw));
    row_c.resize(row_a.size());
    const qgemm::Int8Scratch s{tile_u.data(), tile_a.data(), tile_c.data(), row_u.data(), row_a.data(), row_c.data()};
    const qgemm::Int8Residual res{acts(n), starts.data(), tokens.data(), y_residual.data(), y_stride};
#pragma omp for schedule(dynamic, 1)
    for (int64_t i = 0; i < n_tiles; ++i) {
      const int64_t r0 = i * tile;
      gemm_rows(dt, static_cast<const uint8_t*>(W), rb, r0, std::min(rows, r0 + tile), acts(0), n, Y, rows,
                m > 0 ? &res : nullptr, s);
    }
#pragma omp for schedule(static)
    for (int64_t i = 0; i < m; ++i) {
      float* y = Y + spiky[i] * rows;
      const float* yr = y_residual.data() + i * y_stride;
      for (int64_t r = 0; r < rows; ++r) y[r] += yr[r];
    }
  }
}

}  // namespace ck
#endif  // HWY_ONCE
