// Q4_K and Q6_K quantizers after llama.cpp's reference ones
// (quantize_row_q4_K_ref / quantize_row_q6_K_ref in ggml-quants.c): a
// weighted least-squares search over a few candidate scales per sub-block,
// then the sub-block scales themselves quantized to 6 (Q4_K) or 8 (Q6_K) bits
// against one fp16 super-block scale.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/fp16.h"
#include "kernels/quantize_kquant.h"

namespace ck {
namespace {

constexpr float kGroupMaxEps = 1e-15f;

// The searches below are most of the cost of writing a 1B model: let GCC
// emit AVX2 / AVX-512 clones of them (picked at load time). The results are
// the same bits on every clone: ISO C++ mode keeps -ffp-contract=off, and
// vectorizing the independent partial sums reorders nothing.
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define CK_QUANT_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define CK_QUANT_CLONES
#endif

// Round to nearest even for |v| < 2^22, as ggml's nearest_int: adding
// 1.5 * 2^23 leaves the rounded integer in the low mantissa bits.
int nearest_int(float v) {
  const float shifted = v + 12582912.0f;
  int32_t bits;
  std::memcpy(&bits, &shifted, sizeof(bits));
  return (bits & 0x007FFFFF) - 0x00400000;
}

float lane_sum(const float* v) { return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7])); }

// Asymmetric quantization x ~ scale * L - min_out of n values to 0..nmax,
// minimizing the weighted squared error over nstep+1 trial scales.
CK_QUANT_CLONES float make_qkx2_quants(int n, int nmax, const float* x, const float* w, uint8_t* L, float* min_out,
                       float rmin, float rdelta, int nstep) {
  float min = x[0], max = x[0];
  float sum_w = 0.0f, sum_x = 0.0f;
  for (int i = 0; i < n; ++i) {
    min = std::min(min, x[i]);
    max = std::max(max, x[i]);
    sum_w += w[i];
    sum_x += w[i] * x[i];
  }
  if (min > 0) min = 0;
  if (max == min) {
    std::fill(L, L + n, uint8_t{0});
    *min_out = -min;
    return 0.0f;
  }
  float iscale = nmax / (max - min);
  float scale = 1 / iscale;
  float best_err = 0;
  for (int i = 0; i < n; ++i) {
    L[i] = static_cast<uint8_t>(std::clamp(nearest_int(iscale * (x[i] - min)), 0, nmax));
    const float diff = scale * L[i] + min - x[i];
    best_err += w[i] * diff * diff;
  }
  // The sums run in kLanes interleaved partial sums (fixed-size inner loops
  // that GCC turns into vector code): one serial chain of float adds would
  // make the 21 trials per sub-block latency-bound. n is 16 or 32.
  constexpr int kLanes = 8;
  uint8_t trial[32];
  float lf[32];
  for (int is = 0; is <= nstep; ++is) {
    iscale = (rmin + rdelta * is + nmax) / (max - min);
    for (int i = 0; i < n; ++i) {
      const int l = std::clamp(nearest_int(iscale * (x[i] - min)), 0, nmax);
      trial[i] = static_cast<uint8_t>(l);
      lf[i] = static_cast<float>(l);
    }
    float sum_l[kLanes] = {}, sum_l2[kLanes] = {}, sum_xl[kLanes] = {};
    for (int i = 0; i < n; i += kLanes) {
      for (int j = 0; j < kLanes; ++j) {
        const float wl = w[i + j] * lf[i + j];
        sum_l[j] += wl;
        sum_l2[j] += wl * lf[i + j];
        sum_xl[j] += wl * x[i + j];
      }
    }
    const float sl = lane_sum(sum_l), sl2 = lane_sum(sum_l2), sxl = lane_sum(sum_xl);
    const float det = sum_w * sl2 - sl * sl;
    if (det <= 0) continue;
    float this_scale = (sum_w * sxl - sum_x * sl) / det;
    float this_min = (sl2 * sum_x - sl * sxl) / det;
    if (this_min > 0) {
      this_min = 0;
      this_scale = sxl / sl2;
    }
    float errs[kLanes] = {};
    for (int i = 0; i < n; i += kLanes) {
      for (int j = 0; j < kLanes; ++j) {
        const float diff = this_scale * lf[i + j] + this_min - x[i + j];
        errs[j] += w[i + j] * diff * diff;
      }
    }
    const float err = lane_sum(errs);
    if (err < best_err) {
      std::copy(trial, trial + n, L);
      best_err = err;
      scale = this_scale;
      min = this_min;
    }
  }
  *min_out = -min;
  return scale;
}

// Symmetric quantization x ~ scale * (L - nmax) with L in 0..2*nmax-1,
// weights x^2, trying 19 scales around nmax / max|x|.
CK_QUANT_CLONES float make_qx_quants(int n, int nmax, const float* x, uint8_t* L) {
  float max = 0, amax = 0;
  for (int i = 0; i < n; ++i) {
    const float ax = std::fabs(x[i]);
    if (ax > amax) {
      amax = ax;
      max = x[i];
    }
  }
  if (amax < kGroupMaxEps) {
    std::fill(L, L + n, uint8_t{0});
    return 0.0f;
  }
  auto level = [&](float iscale, int i) { return std::clamp(nearest_int(iscale * x[i]), -nmax, nmax - 1); };
  float iscale = -nmax / max;
  float sumlx = 0, suml2 = 0;
  for (int i = 0; i < n; ++i) {
    const int l = level(iscale, i);
    L[i] = static_cast<uint8_t>(l + nmax);
    const float w = x[i] * x[i];
    sumlx += w * x[i] * l;
    suml2 += w * l * l;
  }
  float scale = suml2 != 0 ? sumlx / suml2 : 0.0f;
  float best = scale * sumlx;
  for (int is = -9; is <= 9; ++is) {
    if (is == 0) continue;
    iscale = -(nmax + 0.1f * is) / max;
    float lx[4] = {}, l2[4] = {};  // partial sums, as in make_qkx2_quants
    for (int i = 0; i < n; ++i) {
      const int l = level(iscale, i);
      const float w = x[i] * x[i];
      lx[i % 4] += w * x[i] * l;
      l2[i % 4] += w * l * l;
    }
    sumlx = (lx[0] + lx[1]) + (lx[2] + lx[3]);
    suml2 = (l2[0] + l2[1]) + (l2[2] + l2[3]);
    if (suml2 > 0 && sumlx * sumlx > best * suml2) {
      for (int i = 0; i < n; ++i) L[i] = static_cast<uint8_t>(nmax + level(iscale, i));
      scale = sumlx / suml2;
      best = scale * sumlx;
    }
  }
  return scale;
}

}  // namespace

namespace {

// Q4_K and Q5_K (llama.cpp's quantize_row_q4_K_ref / q5_K_ref): per 32-weight
// sub-block an asymmetric search over 0..nmax (15 or 31) with weights
// sqrt(mean x^2) + |x|, then 6-bit sub-scales and mins against fp16 super
// scales, and the levels requantized against the rounded scales. Returns the
// levels in L; the caller packs them.
template <class Block>
void quantize_k_scales_mins(const float* x, int nmax, float rmin, int nstep, Block* out, uint8_t* L) {
  float weights[32], scales[8], mins[8];
  float max_scale = 0, max_min = 0;
  for (int j = 0; j < 8; ++j) {
    const float* xs = x + 32 * j;
    float sum_x2 = 0;
    for (int l = 0; l < 32; ++l) sum_x2 += xs[l] * xs[l];
    const float av_x = std::sqrt(sum_x2 / 32);
    for (int l = 0; l < 32; ++l) weights[l] = av_x + std::fabs(xs[l]);
    scales[j] = make_qkx2_quants(32, nmax, xs, weights, L + 32 * j, &mins[j], rmin, 0.1f, nstep);
    max_scale = std::max(max_scale, scales[j]);
    max_min = std::max(max_min, mins[j]);
  }
  const float inv_scale = max_scale > 0 ? 63.0f / max_scale : 0.0f;
  const float inv_min = max_min > 0 ? 63.0f / max_min : 0.0f;
  std::memset(out->scales, 0, sizeof(out->scales));
  for (int j = 0; j < 8; ++j) {
    const auto ls = static_cast<uint8_t>(std::min(63, nearest_int(inv_scale * scales[j])));
    const auto lm = static_cast<uint8_t>(std::min(63, nearest_int(inv_min * mins[j])));
    if (j < 4) {
      out->scales[j] = ls;
      out->scales[j + 4] = lm;
    } else {
      out->scales[j + 4] = static_cast<uint8_t>((ls & 0xF) | ((lm & 0xF) << 4));
      out->scales[j - 4] |= static_cast<uint8_t>((ls >> 4) << 6);
      out->scales[j] |= static_cast<uint8_t>((lm >> 4) << 6);
    }
  }
  out->d = fp32_to_fp16(max_scale / 63.0f);
  out->dmin = fp32_to_fp16(max_min / 63.0f);
  for (int j = 0; j < 8; ++j) {
    uint8_t sc, m;
    k_scale_min(j, out->scales, &sc, &m);
    const float d = fp16_to_fp32(out->d) * sc;
    if (d == 0) continue;
    const float dm = fp16_to_fp32(out->dmin) * m;
    for (int l = 0; l < 32; ++l) {
      L[32 * j + l] = static_cast<uint8_t>(std::clamp(nearest_int((x[32 * j + l] + dm) / d), 0, nmax));
    }
  }
}

}  // namespace

void quantize_block_q4_k(const float* x, BlockQ4_K* out) {
  uint8_t L[kQK_K];
  quantize_k_scales_mins(x, 15, -1.0f, 20, out, L);
  for (int g = 0; g < 4; ++g) {
    for (int l = 0; l < 32; ++l) {
      out->qs[32 * g + l] = static_cast<uint8_t>(L[64 * g + l] | (L[64 * g + 32 + l] << 4));
    }
  }
}

// Q5_K: the fifth bit of the level of sub-block j goes to bit j of qh[l].
void quantize_block_q5_k(const float* x, BlockQ5_K* out) {
  uint8_t L[kQK_K];
  quantize_k_scales_mins(x, 31, -0.5f, 15, out, L);
  std::memset(out->qh, 0, sizeof(out->qh));
  for (int g = 0; g < 4; ++g) {
    for (int l = 0; l < 32; ++l) {
      const int lo = L[64 * g + l], hi = L[64 * g + 32 + l];
      out->qs[32 * g + l] = static_cast<uint8_t>((lo & 0xF) | ((hi & 0xF) << 4));
      out->qh[l] |= static_cast<uint8_t>(((lo >> 4) << (2 * g)) | ((hi >> 4) << (2 * g + 1)));
    }
  }
}

void quantize_block_q6_k(const float* x, BlockQ6_K* out) {
  uint8_t L[kQK_K];
  float scales[16];
  float max_scale = 0, max_abs_scale = 0;
  for (int s = 0; s < 16; ++s) {
    scales[s] = make_qx_quants(16, 32, x + 16 * s, L + 16 * s);
    if (std::fabs(scales[s]) > max_abs_scale) {
      max_abs_scale = std::fabs(scales[s]);
      max_scale = scales[s];
    }
  }
  if (max_abs_scale < kGroupMaxEps) {
    std::memset(out, 0, sizeof(*out));
    return;
  }
  const float iscale = -128.0f / max_scale;
  out->d = fp32_to_fp16(1 / iscale);
  for (int s = 0; s < 16; ++s) {
    out->scales[s] = static_cast<int8_t>(std::min(127, nearest_int(iscale * scales[s])));
  }
  for (int s = 0; s < 16; ++s) {
    const float d = fp16_to_fp32(out->d) * out->scales[s];
    if (d == 0) continue;
    for (int l = 0; l < 16; ++l) {
      L[16 * s + l] = static_cast<uint8_t>(std::clamp(nearest_int(x[16 * s + l] / d), -32, 31) + 32);
    }
  }
  for (int h = 0; h < 2; ++h) {
    const uint8_t* Lh = L + 128 * h;
    for (int l = 0; l < 32; ++l) {
      out->ql[64 * h + l] = static_cast<uint8_t>((Lh[l] & 0xF) | ((Lh[l + 64] & 0xF) << 4));
      out->ql[64 * h + 32 + l] = static_cast<uint8_t>((Lh[l + 32] & 0xF) | ((Lh[l + 96] & 0xF) << 4));
      out->qh[32 * h + l] = static_cast<uint8_t>((Lh[l] >> 4) | ((Lh[l + 32] >> 4) << 2) |
                                                 ((Lh[l + 64] >> 4) << 4) | ((Lh[l + 96] >> 4) << 6));
    }
  }
}

}  // namespace ck
