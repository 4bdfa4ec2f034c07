// The static half of the prefill GEMM: argument checks, activation
// quantization, the split of rows over threads and dispatch into the
// per-target integer kernels of gemm_int8-inl.h.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "kernels/blocks.h"
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
HWY_EXPORT(TileFormatOf);

// The functions of the target chosen now, looked up where they are
// exported: a one-target build (the fuzzers') dispatches statically, by a
// name relative to this namespace.
auto* group_rows_fn() { return &HWY_DYNAMIC_DISPATCH(GroupRows); }
auto* gemm_int8_rows_fn() { return &HWY_DYNAMIC_DISPATCH(GemmInt8Rows); }
auto* quantize_row_int8_fn() { return &HWY_DYNAMIC_DISPATCH(QuantizeRowInt8); }
auto* fixed_offset_fn() { return &HWY_DYNAMIC_DISPATCH(FixedOffset); }
auto* tile_format_fn() { return &HWY_DYNAMIC_DISPATCH(TileFormatOf); }
}  // namespace qgemm

namespace {

// A tile (decoded rows of one thread's share) of about this many bytes
// stays in L2 while every token streams past it.
constexpr int64_t kTileBytes = 256 << 10;

// Rows per tile: a whole number of the kernel's passes of groups and of
// the dtype's row groups (the tile of a row-grouped dtype is built from its
// stored groups only where it holds whole ones: gemm_int8-inl.h,
// BuildTile), small enough for L2 and for at least two tiles per thread
// where the matrix has that many, so that the dynamic schedule can even out
// threads that run slower (a busy core).
int64_t tile_rows(int64_t rows, int64_t cols, qgemm::TileFormat f, const DTypeTraits& tr, int64_t group_rows,
                  int threads) {
  const int64_t unit = std::lcm(f.groups_per_pass * group_rows, int64_t{tr.row_group});
  const int64_t units = (rows + unit - 1) / unit;
  const int64_t unit_bytes = unit * cols * (f.weight_bytes + 8 / tr.u8_block);
  const int64_t by_cache = std::max<int64_t>(1, kTileBytes / unit_bytes);
  const int64_t by_threads = std::max<int64_t>(1, units / (2 * int64_t{threads}));
  return std::min(by_cache, by_threads) * unit;
}

// One matrix of a gemm_multi call: its tiles, its folded offsets, its residual products.
struct Product {
  const GemvOutput* out;
  const DTypeTraits* tr;
  int64_t tile, first_tile;  // rows per tile; index of its first tile in the call
  int weight_bytes;          // per weight in the tile: 2 where it multiplies int16 words
  float k;                   // FixedOffset, NaN if none
  std::vector<float> koff;   // 2n x weight blocks (rows as in Call): k times the sums per block
};

// The state of one gemm_multi call that the threads share: the quantized
// activations and the matrices. Activation row t < n is token t; row n + t
// the rounding residual of token t's spiky blocks (gemv.h, kInt8SpikeRatio)
// where it has any (has_spikes[t]), multiplied in a second pass over just
// those (block, token) pairs and added to the token's outputs. The residual
// goes from a one-row buffer straight to its int8 row, so no n x cols
// floats are held for it.
struct Call {
  std::vector<int8_t> xq;      // where a product multiplies bytes (else empty)
  std::vector<int16_t> xq16;  // the same as int16, where a product multiplies words (else empty)
  std::vector<float> xscale, xsum16, xsum32;
  std::vector<uint8_t> has_spikes;
  std::vector<int32_t> starts, tokens;  // tokens with a spiky block b: tokens[starts[b] .. starts[b+1])
  std::vector<Product> products;
  int64_t n_tiles = 0;
};

// The matrices of the call that take the integer path, their tiles sized
// for `threads`, and buffers for n tokens.
void prepare(Call& c, std::span<const GemvOutput> outputs, int64_t cols, int64_t n, int64_t group_rows,
             int threads) {
  c.products.clear();
  c.n_tiles = 0;
  for (const GemvOutput& o : outputs) {
    const DTypeTraits& tr = traits(o.dtype);
    if (tr.decode_u8 == nullptr || o.rows == 0) continue;
    const qgemm::TileFormat format = qgemm::tile_format_fn()(o.dtype);
    const int64_t tile = tile_rows(o.rows, cols, format, tr, group_rows, threads);
    c.products.push_back({&o, &tr, tile, c.n_tiles, format.weight_bytes, qgemm::fixed_offset_fn()(o.dtype), {}});
    c.n_tiles += (o.rows + tile - 1) / tile;
  }
  const int64_t nb32 = cols / 32;
  // A call whose matrices all multiply words reads no int8 rows: each is
  // made in a row of the thread's own and widened (on AVX2 that spares the
  // 1.1B Q8_0's pp512 5.8 MB, the down projection's 2 x 512 x 5632 bytes).
  const auto any_with = [&](int bytes) {
    return std::any_of(c.products.begin(), c.products.end(), [&](const Product& p) { return p.weight_bytes == bytes; });
  };
  const auto rows = static_cast<size_t>(2 * n * cols);
  c.xq.resize(any_with(1) ? rows : 0);
  c.xq16.resize(any_with(2) ? rows : 0);
  c.xscale.resize(static_cast<size_t>(2 * n * nb32));
  c.xsum16.resize(static_cast<size_t>(2 * n * cols / 16));
  c.xsum32.resize(c.xscale.size());
  c.has_spikes.resize(static_cast<size_t>(n));
  for (Product& p : c.products) {
    // k = 0 (the signed weights' c): no offset term to fold.
    if (!std::isnan(p.k) && p.k != 0.0f) p.koff.resize(static_cast<size_t>(2 * n * (cols / p.tr->u8_block)));
  }
}

}  // namespace

bool quantize_row_int8(const float* x, int64_t cols, int64_t width, int8_t* q, float* scale, float* sum16,
                       float* sum32, float* residual) {
  const float spike = width == kQK_K ? kInt8SpikeRatioSuperBlock : kInt8SpikeRatio;
  return qgemm::quantize_row_int8_fn()(x, cols, width, q, scale, sum16, sum32, residual, spike);
}

void gemm(DType dt, const void* W, int64_t rows, int64_t cols, const float* X, int64_t n, float* Y) {
  const GemvOutput out{dt, W, rows, Y};
  gemm_multi({&out, 1}, cols, X, n);
}

void gemm_multi(std::span<const GemvOutput> outputs, int64_t cols, const float* X, int64_t n) {
  if (n == 1) return gemv_multi(outputs, cols, X);
  if (n <= kGemvBatchMax) return gemv_batch(outputs, cols, X, n);
  apply_simd_target_from_env();
  int64_t work = 0;
  for (const GemvOutput& o : outputs) {
    check_matrix_args(o.dtype, o.rows, cols, "gemm");
    work += o.rows * cols * std::max<int64_t>(n, 0);
  }
  if (work == 0) return;
  run_team(threads_for(work), [&](Team& team) { gemm_multi(team, outputs, cols, X, n); });
}

void gemm_multi(Team& team, std::span<const GemvOutput> outputs, int64_t cols, const float* X, int64_t n,
                Team::Last last) {
  if (n <= 0) {
    if (last) team.barrier(last);
    return;
  }
  if (n <= kGemvBatchMax) return gemv_batch(team, outputs, cols, X, n, last);
  for (const GemvOutput& o : outputs) {
    if (traits(o.dtype).decode_u8 == nullptr) gemm_float(team, o.dtype, o.W, o.rows, cols, X, n, o.y);
  }
  const int64_t group_rows = static_cast<int64_t>(qgemm::group_rows_fn()());
  thread_local Call master_call;
  if (team.master()) prepare(master_call, outputs, cols, n, group_rows, team.size());
  Call& c = *team.from_master(&master_call);
  if (c.products.empty()) {
    // Only float matrices (gemm_float ended at barriers of its own).
    if (last) team.barrier(last);
    return;
  }
  const auto gemm_rows = qgemm::gemm_int8_rows_fn();
  const int64_t nb32 = cols / 32;
  auto acts = [&](const Product& p, int64_t t) {
    const int64_t nbw = cols / p.tr->u8_block;
    return qgemm::Int8Activations{c.xq.empty() ? nullptr : c.xq.data() + t * cols,
                                  c.xq16.empty() ? nullptr : c.xq16.data() + t * cols,
                                  c.xscale.data() + t * nb32,
                                  c.xsum16.data() + t * (cols / 16), c.xsum32.data() + t * nb32,
                                  p.koff.empty() ? nullptr : p.koff.data() + t * nbw, cols};
  };
  thread_local std::vector<int8_t> own_row;
  own_row.resize(c.xq.empty() ? static_cast<size_t>(cols) : 0);
  auto quantize = [&](const float* x, int64_t t, float* res) {
    int8_t* q = c.xq.empty() ? own_row.data() : c.xq.data() + t * cols;
    const bool spiky = quantize_row_int8(x, cols, 32, q, c.xscale.data() + t * nb32,
                                         c.xsum16.data() + t * (cols / 16), c.xsum32.data() + t * nb32, res);
    if (!c.xq16.empty()) std::copy(q, q + cols, c.xq16.data() + t * cols);
    return spiky;
  };

  // k times the sums of row t per weight block, for the products whose offset folds in.
  auto fold_offsets = [&](int64_t t) {
    for (Product& p : c.products) {
      if (p.koff.empty()) continue;
      const int64_t nbw = cols / p.tr->u8_block;
      const float* sums = (p.tr->u8_block == 16 ? c.xsum16.data() : c.xsum32.data()) + t * nbw;
      for (int64_t b = 0; b < nbw; ++b) p.koff[static_cast<size_t>(t * nbw + b)] = p.k * sums[b];
    }
  };

  // Quantize the tokens and the residuals of the spiky ones, list the
  // spiky (block, token) pairs, multiply the tiles of every matrix (both
  // passes).
  thread_local std::vector<float> residual;
  residual.resize(static_cast<size_t>(cols));
  for (auto [t, end] = team.share(n); t < end; ++t) {
    c.has_spikes[t] = quantize(X + t * cols, t, residual.data());
    fold_offsets(t);
    if (c.has_spikes[t]) {
      quantize(residual.data(), n + t, nullptr);
      fold_offsets(n + t);
    }
  }
  team.barrier();
  if (team.master()) {
    c.starts.assign(static_cast<size_t>(nb32 + 1), 0);
    c.tokens.clear();
    for (int64_t b = 0; b < nb32; ++b) {
      for (int64_t t = 0; t < n; ++t) {
        if (c.has_spikes[t] && c.xscale[static_cast<size_t>((n + t) * nb32 + b)] != 0.0f) {
          c.tokens.push_back(static_cast<int32_t>(t));
        }
      }
      c.starts[static_cast<size_t>(b + 1)] = static_cast<int32_t>(c.tokens.size());
    }
  }
  team.barrier();
  const bool any_spiky = !c.tokens.empty();
  thread_local std::vector<uint8_t> tile_u, row_u;
  thread_local std::vector<float> tile_a, tile_c, row_a, row_c;
  for (const Product& p : c.products) {
    const int64_t nbw = cols / p.tr->u8_block;
    tile_u.resize(std::max(tile_u.size(), static_cast<size_t>(p.tile * cols * p.weight_bytes)));
    tile_a.resize(std::max(tile_a.size(), static_cast<size_t>(p.tile * nbw)));
    tile_c.resize(tile_a.size());
    row_a.resize(std::max(row_a.size(), static_cast<size_t>(nbw)));
    row_c.resize(row_a.size());
  }
  row_u.resize(static_cast<size_t>(group_rows * cols));  // a group's decoded rows (BuildTile)
  const qgemm::Int8Scratch s{tile_u.data(), tile_a.data(), tile_c.data(), row_u.data(), row_a.data(), row_c.data()};
  // Tiles of every matrix in one list, handed out dynamically.
  team.for_dynamic(c.n_tiles, [&](int64_t i) {
    size_t k = 0;
    while (k + 1 < c.products.size() && c.products[k + 1].first_tile <= i) ++k;
    Product& p = c.products[k];
    const GemvOutput& o = *p.out;
    const qgemm::Int8Residual res{acts(p, n), c.starts.data(), c.tokens.data()};
    const int64_t r0 = (i - p.first_tile) * p.tile;
    gemm_rows(o.dtype, static_cast<const uint8_t*>(o.W), row_bytes(*p.tr, cols), r0, std::min(o.rows, r0 + p.tile),
              acts(p, 0), n, o.y, o.rows, any_spiky ? &res : nullptr, s);
  }, last);
}

}  // namespace ck
#endif  // HWY_ONCE
