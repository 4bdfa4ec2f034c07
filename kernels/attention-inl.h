// Per-target bodies of kernels/attention.cc (re-included once per Highway
// target through foreach_target.h).

#if defined(CK_KERNELS_ATTENTION_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CK_KERNELS_ATTENTION_INL_H_
#undef CK_KERNELS_ATTENTION_INL_H_
#else
#define CK_KERNELS_ATTENTION_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/attention.h"
#include "kernels/fp16.h"
#include "kernels/ops.h"

HWY_BEFORE_NAMESPACE();
namespace ck::attn::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// The register tile of Products: kQ rows of s (broadcast one scalar each)
// against kU vectors of m's columns. With AVX-512's 32 registers 6 x 4
// accumulators, elsewhere 6 x 2 (15 of the 16 registers with the two
// columns and the broadcast); each load of m (and its conversion from f16)
// serves kQ rows, and the 24 or 12 FMA chains keep both FMA units busy
// (two units of 4 cycles' latency need 8 in flight: with 4 x 2 there was
// no slack).
constexpr int kTileRows = 6;
#if HWY_TARGET <= HWY_AVX3
constexpr int kTileVectors = 4;
#else
constexpr int kTileVectors = 2;
#endif
// The KV cache holds floats or IEEE halves (uint16_t): one vector of m's
// row from p, all lanes or the first `valid` (a half row is read whole and
// the rest zeroed: the cache keeps at least one vector of slack after every
// row, RunState).
template <bool kMasked>
HWY_INLINE VF LoadRow(const float* p, hn::Mask<DF> mask) {
  return kMasked ? hn::MaskedLoad(mask, DF(), p) : hn::LoadU(DF(), p);
}
template <bool kMasked>
HWY_INLINE VF LoadRow(const uint16_t* p, hn::Mask<DF> mask) {
  const hn::Rebind<hwy::float16_t, DF> dh;
  const VF v = hn::PromoteTo(DF(), hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
  return kMasked ? hn::IfThenElseZero(mask, v) : v;
}
HWY_INLINE float ToFloat(float v) { return v; }
HWY_INLINE float ToFloat(uint16_t v) { return fp16_to_fp32(v); }

// Where element (r, c) of m lies: m[r * row + (c / kKeyTile) * tile + c %
// kKeyTile]. Plain rows (the values, the softmax weights): tile = kKeyTile;
// the tiled keys: row = kKeyTile, tile = kKeyTile * head_dim. A vector's
// columns never straddle a tile: column chunks start at multiples of N, and
// N divides kKeyTile.
struct Layout {
  int64_t row, tile;
  // Elements from a load to the one prefetched with it: the same place in
  // the next column chunk's tiles (keys), 16 rows on (values). Both are
  // streams the hardware prefetcher follows too late: at depth 4096 decode
  // attention read its cache 22-24 % faster with it (session 18).
  int64_t ahead;
  int64_t column(int64_t c) const { return (c / kKeyTile) * tile + c % kKeyTile; }
};

// Rows of m per pass: a pass over 128 rows of the values (32-64 KiB) or of
// the tiled keys' chunk stays in L1 while every row group uses it.
constexpr int64_t kRowsPerPass = 128;

// out[g * out_stride + u N + i] (+)= sum_{r0 <= r < r1} s[g * s_stride + r]
// * m(r, c + u N + i) for g < kQ, u < kU, lanes i; `valid` lanes of the
// last vector (all when kMasked is false: whole vectors).
template <int kQ, int kU, bool kMasked, class T>
HWY_INLINE void ProductTile(const float* s, int64_t s_stride, const T* m, Layout L, int64_t c, int64_t r0,
                            int64_t r1, float* out, int64_t out_stride, bool add, size_t valid) {
  const DF df;
  const size_t N = hn::Lanes(df);
  const auto mask = hn::FirstN(df, kMasked ? valid : N);
  const T* mu[kU];
  for (int u = 0; u < kU; ++u) mu[u] = m + L.column(c + u * static_cast<int64_t>(N));
  VF acc[kQ][kU];
  for (int g = 0; g < kQ; ++g) {
    for (int u = 0; u < kU; ++u) {
      float* o = out + g * out_stride + u * N;
      acc[g][u] = !add ? hn::Zero(df) : kMasked ? hn::MaskedLoad(mask, df, o) : hn::LoadU(df, o);
    }
  }
  for (int64_t r = r0; r < r1; ++r) {
    VF col[kU];
    for (int u = 0; u < kU; ++u) {
      if (!kMasked) hwy::Prefetch(mu[u] + r * L.row + L.ahead);
      col[u] = LoadRow<kMasked>(mu[u] + r * L.row, mask);
    }
    for (int g = 0; g < kQ; ++g) {
      const VF sr = hn::Set(df, s[g * s_stride + r]);
      for (int u = 0; u < kU; ++u) acc[g][u] = hn::MulAdd(sr, col[u], acc[g][u]);
    }
  }
  for (int g = 0; g < kQ; ++g) {
    for (int u = 0; u < kU; ++u) {
      float* o = out + g * out_stride + u * N;
      if constexpr (kMasked) {
        hn::BlendedStore(acc[g][u], mask, df, o);
      } else {
        hn::StoreU(acc[g][u], df, o);
      }
    }
  }
}

// One column chunk of every row, in as few row groups as kTileRows allows,
// of near-equal sizes: a short group has fewer FMA chains than the units
// keep in flight (32 rows: 6, 6, 5, 5, 5, 5 rather than five 6 and a 2).
template <int kU, bool kMasked, class T>
HWY_INLINE void ProductColumns(const float* s, int64_t s_stride, int rows, const T* m, Layout L, int64_t c,
                               int64_t r0, int64_t r1, float* out, int64_t out_stride, bool add, size_t valid) {
  static_assert(kTileRows == 6, "a case per group size");
  const int groups = (rows + kTileRows - 1) / kTileRows;
  for (int i = 0, g = 0; i < groups; ++i) {
    const int size = (rows - g) / (groups - i);
    const float* sg = s + g * s_stride;
    float* og = out + g * out_stride;
    switch (size) {
      case 6: ProductTile<6, kU, kMasked>(sg, s_stride, m, L, c, r0, r1, og, out_stride, add, valid); break;
      case 5: ProductTile<5, kU, kMasked>(sg, s_stride, m, L, c, r0, r1, og, out_stride, add, valid); break;
      case 4: ProductTile<4, kU, kMasked>(sg, s_stride, m, L, c, r0, r1, og, out_stride, add, valid); break;
      case 3: ProductTile<3, kU, kMasked>(sg, s_stride, m, L, c, r0, r1, og, out_stride, add, valid); break;
      case 2: ProductTile<2, kU, kMasked>(sg, s_stride, m, L, c, r0, r1, og, out_stride, add, valid); break;
      default: ProductTile<1, kU, kMasked>(sg, s_stride, m, L, c, r0, r1, og, out_stride, add, valid); break;
    }
    g += size;
  }
}

// out[g * out_stride + c] = sum_{r < n} s[g * s_stride + r] * m(r, c) for g
// < rows, c < cols. Both halves of attention have this shape: the scores (s
// = the queries, m = the tiled keys, rows = dimensions, columns = positions) and
// the weighted sum of the values (s = the softmax rows, m = the values,
// columns = dimensions). Loops: passes over kRowsPerPass rows of m, column
// chunks, row groups innermost, so that a chunk of m is reused from L1 by
// every query row of the block.
template <class T>
void Products(const float* s, int64_t s_stride, int rows, const T* m, Layout L, int64_t n, int64_t cols,
              float* out, int64_t out_stride) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(DF()));
  for (int64_t r0 = 0; r0 < n; r0 += kRowsPerPass) {
    const int64_t r1 = std::min(n, r0 + kRowsPerPass);
    const bool add = r0 > 0;
    int64_t c = 0;
    for (; c + kTileVectors * N <= cols; c += kTileVectors * N) {
      ProductColumns<kTileVectors, false>(s, s_stride, rows, m, L, c, r0, r1, out + c, out_stride, add, 0);
    }
    for (; c + N <= cols; c += N) {
      ProductColumns<1, false>(s, s_stride, rows, m, L, c, r0, r1, out + c, out_stride, add, 0);
    }
    if (c == cols) continue;
#if HWY_TARGET <= HWY_AVX2
    // The last partial vector (a causal row's last keys), masked: AVX2 and
    // AVX-512 load and store only the lanes in the mask.
    ProductColumns<1, true>(s, s_stride, rows, m, L, c, r0, r1, out + c, out_stride, add,
                            static_cast<size_t>(cols - c));
#else
    // (Elsewhere Highway emulates masked loads with whole ones, which could
    // read past the end.)
    for (int g = 0; g < rows; ++g) {
      for (int64_t cc = c; cc < cols; ++cc) {
        float sum = add ? out[g * out_stride + cc] : 0.0f;
        for (int64_t r = r0; r < r1; ++r) sum += s[g * s_stride + r] * ToFloat(m[r * L.row + L.column(cc)]);
        out[g * out_stride + cc] = sum;
      }
    }
#endif
  }
}

template <class K, class V>
void AttendTokensOf(const float* q, int64_t q_token_stride, int heads, int tokens, const K* kt, const V* v,
                    int head_dim, int64_t n_keys, int64_t window, float scale, float* scratch, float* out,
                    int64_t out_token_stride, KeyShare share) {
  const int rows = heads * tokens;  // row t * heads + h: token t, head h
  // The keys any row sees lie in [lo, hi); lo starts a tile.
  const int64_t first = std::max(share.begin, window > 0 ? std::max<int64_t>(0, n_keys - window) : 0);
  const int64_t lo = first / kKeyTile * kKeyTile;
  const int64_t hi = std::max(lo, std::min(share.end, n_keys + tokens - 1));
  const int64_t cols = hi - lo;
  const int64_t s_stride = (cols + 15) / 16 * 16;
  float* qs = scratch;                 // rows x head_dim: the queries, times scale
  float* sc = qs + rows * head_dim;    // rows x s_stride: the scores, then the weights
  float* os = sc + rows * s_stride;    // rows x head_dim: the outputs
  for (int t = 0; t < tokens; ++t) {
    for (int h = 0; h < heads; ++h) {
      const float* src = q + t * q_token_stride + h * head_dim;
      float* dst = qs + (t * heads + h) * head_dim;
      for (int d = 0; d < head_dim; ++d) dst[d] = src[d] * scale;
    }
  }
  const int64_t chunk_tiles = std::max<int64_t>(1, kTileVectors * static_cast<int64_t>(hn::Lanes(DF())) / kKeyTile);
  const Layout tiled_keys{kKeyTile, kKeyTile * head_dim, chunk_tiles * kKeyTile * head_dim};
  Products(qs, head_dim, rows, kt + tiled_keys.column(lo), tiled_keys, head_dim, cols, sc, s_stride);
  // Each row's weights are left unnormalized; its output is divided by
  // their sum (0 for a row without keys: its output is 0 anyway).
  float inv_sum[kMaxAttendHeads * kMaxAttendTokens];
  HWY_DASSERT(rows <= kMaxAttendHeads * kMaxAttendTokens);
  for (int row = 0; row < rows; ++row) {
    const int t = row / heads;
    // This row's keys: [begin, end) of the columns.
    const int64_t end = std::min(share.end, n_keys + t) - lo;
    const int64_t begin = std::max(share.begin, window > 0 ? std::max<int64_t>(0, n_keys + t - window) : 0) - lo;
    float* w = sc + row * s_stride;
    if (end <= begin) {  // no key of the share: weight 0 in the merge
      std::fill(w, w + cols, 0.0f);
      inv_sum[row] = 0.0f;
      if (share.stats != nullptr) {
        share.stats[2 * row] = -INFINITY;
        share.stats[2 * row + 1] = 0.0f;
      }
      continue;
    }
    const SoftmaxSums sums = softmax_numerators(w + begin, end - begin);
    inv_sum[row] = 1.0f / sums.sum;
    if (share.stats != nullptr) {
      share.stats[2 * row] = sums.max;
      share.stats[2 * row + 1] = sums.sum;
    }
    std::fill(w, w + begin, 0.0f);
    std::fill(w + end, w + cols, 0.0f);
  }
  Products(sc, s_stride, rows, v + lo * head_dim, Layout{head_dim, kKeyTile, 16 * head_dim}, cols, head_dim, os,
           head_dim);
  for (int t = 0; t < tokens; ++t) {
    for (int h = 0; h < heads; ++h) {
      const int row = t * heads + h;
      const float* o = os + row * head_dim;
      float* dst = out + t * out_token_stride + h * head_dim;
      for (int d = 0; d < head_dim; ++d) dst[d] = o[d] * inv_sum[row];
    }
  }
}

void AttendTokens(const float* q, int64_t q_token_stride, int heads, int tokens, KvView kt, KvView v, int head_dim,
                  int64_t n_keys, int64_t window, float scale, float* scratch, float* out, int64_t out_token_stride,
                  KeyShare share) {
  auto with_values = [&](const auto* keys) {
    if (v.f16) {
      AttendTokensOf(q, q_token_stride, heads, tokens, keys, static_cast<const uint16_t*>(v.data), head_dim,
                     n_keys, window, scale, scratch, out, out_token_stride, share);
    } else {
      AttendTokensOf(q, q_token_stride, heads, tokens, keys, static_cast<const float*>(v.data), head_dim,
                     n_keys, window, scale, scratch, out, out_token_stride, share);
    }
  };
  if (kt.f16) {
    with_values(static_cast<const uint16_t*>(kt.data));
  } else {
    with_values(static_cast<const float*>(kt.data));
  }
}

// store_kv (attention.h). The halves by F16C's vcvtps2ph (nearest even, as
// fp32_to_fp16) on AVX2 and AVX-512: one token's keys and values of a
// layer (SmolLM2: 384 of each) took ~2 us one by one, 2.6 % of a prefill
// token. Highway's conversion below AVX2 truncates, so the narrower targets
// keep the exact scalar one.
void StoreKv(const float* x, int64_t n, void* out, bool f16, int64_t stride) {
  if (!f16) {
    float* o = static_cast<float*>(out);
    for (int64_t i = 0; i < n; ++i) o[i * stride] = x[i];
    return;
  }
  uint16_t* o = static_cast<uint16_t*>(out);
  int64_t i = 0;
#if HWY_TARGET <= HWY_AVX2
  const DF df;
  const hn::Rebind<hwy::float16_t, DF> dh;
  const hn::Rebind<uint16_t, DF> du;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  for (; i + L <= n; i += L) {
    const auto h = hn::BitCast(du, hn::DemoteTo(dh, hn::LoadU(df, x + i)));
    if (stride == 1) {
      hn::StoreU(h, du, o + i);
    } else {
      HWY_ALIGN uint16_t lanes[hn::MaxLanes(du)];
      hn::Store(h, du, lanes);
      for (int64_t j = 0; j < L; ++j) o[(i + j) * stride] = lanes[j];
    }
  }
#endif
  for (; i < n; ++i) o[i * stride] = fp32_to_fp16(x[i]);
}

}  // namespace ck::attn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CK_KERNELS_ATTENTION_INL_H_
