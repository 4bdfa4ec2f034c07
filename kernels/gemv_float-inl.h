// Per-target kernels of the float dtypes (F32, F16, BF16): the fused
// GEMV (decode) and the fp32 GEMM over decoded tiles (prefill). Included by
// gemv.cc after gemv-inl.h, once per Highway target.

// Per-target include guard (the Highway "toggle" idiom).
#if defined(CK_KERNELS_GEMV_FLOAT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CK_KERNELS_GEMV_FLOAT_INL_H_
#undef CK_KERNELS_GEMV_FLOAT_INL_H_
#else
#define CK_KERNELS_GEMV_FLOAT_INL_H_
#endif

HWY_BEFORE_NAMESPACE();
namespace ck::qgemv::HWY_NAMESPACE {

struct F32Kernel {
  template <int kN>
  static void Dot(const uint8_t* row, int64_t cols, const float* x, const XSums&, float* out) {
    const DF df;
    const auto* w = reinterpret_cast<const float*>(row);
    const int64_t N = static_cast<int64_t>(hn::Lanes(df));
    VF a0[kN], a1[kN];
    for (int t = 0; t < kN; ++t) a0[t] = a1[t] = hn::Zero(df);
    int64_t i = 0;
    for (; i + 2 * N <= cols; i += 2 * N) {
      PrefetchStep<2 * hn::MaxLanes(DF()) * sizeof(float)>(w + i);
      const VF w0 = hn::LoadU(df, w + i), w1 = hn::LoadU(df, w + i + N);
      for (int t = 0; t < kN; ++t) {
        a0[t] = hn::MulAdd(w0, hn::LoadU(df, x + t * cols + i), a0[t]);
        a1[t] = hn::MulAdd(w1, hn::LoadU(df, x + t * cols + i + N), a1[t]);
      }
    }
    for (int t = 0; t < kN; ++t) {
      float tail = 0.0f;
      for (int64_t j = i; j < cols; ++j) tail += w[j] * x[t * cols + j];
      out[t] = Sum(hn::Add(a0[t], a1[t])) + tail;
    }
  }
  static void Decode(const uint8_t* row, int64_t cols, float* out) {
    std::memcpy(out, row, static_cast<size_t>(cols) * sizeof(float));
  }
};

// F16 and BF16: one widening load per vector; cols is a multiple of 32
// whenever these appear as matrices, the scalar tail covers the rest.
template <typename T>
struct HalfKernel {
  using DH = hn::Rebind<T, DF>;
  static VF Load(const uint16_t* p) { return hn::PromoteTo(DF(), hn::LoadU(DH(), reinterpret_cast<const T*>(p))); }
  static float Scalar(uint16_t h) {
    if constexpr (std::is_same_v<T, hwy::float16_t>) return fp16_to_fp32(h);
    return bf16_to_fp32(h);
  }
  template <int kN>
  static void Dot(const uint8_t* row, int64_t cols, const float* x, const XSums&, float* out) {
    const DF df;
    const auto* w = reinterpret_cast<const uint16_t*>(row);
    const int64_t N = static_cast<int64_t>(hn::Lanes(df));
    VF a0[kN], a1[kN];
    for (int t = 0; t < kN; ++t) a0[t] = a1[t] = hn::Zero(df);
    int64_t i = 0;
    for (; i + 2 * N <= cols; i += 2 * N) {
      PrefetchStep<2 * hn::MaxLanes(DF()) * sizeof(uint16_t)>(w + i);
      const VF w0 = Load(w + i), w1 = Load(w + i + N);
      for (int t = 0; t < kN; ++t) {
        a0[t] = hn::MulAdd(w0, hn::LoadU(df, x + t * cols + i), a0[t]);
        a1[t] = hn::MulAdd(w1, hn::LoadU(df, x + t * cols + i + N), a1[t]);
      }
    }
    for (int t = 0; t < kN; ++t) {
      float tail = 0.0f;
      for (int64_t j = i; j < cols; ++j) tail += Scalar(w[j]) * x[t * cols + j];
      out[t] = Sum(hn::Add(a0[t], a1[t])) + tail;
    }
  }
  static void Decode(const uint8_t* row, int64_t cols, float* out) {
    const DF df;
    const auto* w = reinterpret_cast<const uint16_t*>(row);
    const int64_t N = static_cast<int64_t>(hn::Lanes(df));
    int64_t i = 0;
    for (; i + N <= cols; i += N) hn::StoreU(Load(w + i), df, out + i);
    for (; i < cols; ++i) out[i] = Scalar(w[i]);
  }
};
// The GEMM micro-kernel: kR decoded rows times kT activation rows, kR*kT
// vector accumulators over the shared length `cols`.
template <int kR, int kT>
HWY_INLINE void MicroTile(const float* w, const float* X, int64_t cols, float* out, int64_t out_stride) {
  const DF df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  VF acc[kR][kT];
  for (int r = 0; r < kR; ++r)
    for (int t = 0; t < kT; ++t) acc[r][t] = hn::Zero(df);
  int64_t i = 0;
  for (; i + N <= cols; i += N) {
    VF xv[kT];
    for (int t = 0; t < kT; ++t) xv[t] = hn::LoadU(df, X + t * cols + i);
    for (int r = 0; r < kR; ++r) {
      const VF wv = hn::LoadU(df, w + r * cols + i);
      for (int t = 0; t < kT; ++t) acc[r][t] = hn::MulAdd(wv, xv[t], acc[r][t]);
    }
  }
  for (int r = 0; r < kR; ++r) {
    for (int t = 0; t < kT; ++t) {
      float tail = 0.0f;
      for (int64_t j = i; j < cols; ++j) tail += w[r * cols + j] * X[t * cols + j];
      out[t * out_stride + r] = Sum(acc[r][t]) + tail;
    }
  }
}

// AVX-512 has 32 vector registers: 4x4 accumulators keep the FMA units busy.
// With 16 registers (AVX2, SSE4) a 4x2 tile avoids spills.
#if HWY_TARGET <= HWY_AVX3
constexpr int kTileT = 4;
#else
constexpr int kTileT = 2;
#endif
constexpr int kTileR = 4;

template <int kT>
void TokensTile(const float* w, int64_t rows_in_buf, const float* X, int64_t cols, float* Y, int64_t y_stride) {
  for (int64_t r = 0; r < rows_in_buf; r += kTileR) MicroTile<kTileR, kT>(w + r * cols, X, cols, Y + r, y_stride);
}

// Y[t*rows + r] for rows [r0, r1) and all n tokens: the rows are decoded
// once into `buf` (rows_per_tile * cols floats, rows padded to kTileR with
// zeros) and reused for every token tile; tmp holds kTileT x padded rows.
template <class K>
void GemmRows(const uint8_t* W, size_t row_bytes, int64_t r0, int64_t r1, int64_t cols, const float* X, int64_t n,
              float* Y, int64_t rows, float* buf, float* tmp) {
  const int64_t nr = r1 - r0;
  const int64_t padded = (nr + kTileR - 1) / kTileR * kTileR;
  for (int64_t r = 0; r < nr; ++r) K::Decode(W + static_cast<size_t>(r0 + r) * row_bytes, cols, buf + r * cols);
  std::memset(buf + nr * cols, 0, static_cast<size_t>((padded - nr) * cols) * sizeof(float));
  int64_t t = 0;
  for (; t + kTileT <= n; t += kTileT) {
    TokensTile<kTileT>(buf, padded, X + t * cols, cols, tmp, padded);
    for (int u = 0; u < kTileT; ++u) std::memcpy(Y + (t + u) * rows + r0, tmp + u * padded, nr * sizeof(float));
  }
  for (; t < n; ++t) {
    TokensTile<1>(buf, padded, X + t * cols, cols, tmp, padded);
    std::memcpy(Y + t * rows + r0, tmp, nr * sizeof(float));
  }
}
}  // namespace ck::qgemv::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CK_KERNELS_GEMV_FLOAT_INL_H_
