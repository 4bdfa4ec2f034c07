// Every compiled SIMD target's gemv / gemv_multi / gemm against a double
// precision reference built on the (gguf-py bit-exact) reference dequantizers.
//
// Tolerance, fp32 arithmetic: |y - ref| <= 2e-6 * sum_i |w_i x_i|. The kernels
// accumulate in fp32 in blocks of at most 16 lanes x 256 weights and then
// across blocks, so the rounding error stays a few ulps of the absolute sum
// (measured worst case ~3e-7); a layout or indexing mistake errs by a sizeable
// fraction of it.
// gemv and gemm of the block-quantized dtypes multiply integers, with x
// rounded to int8 per 32 values (kernels/gemm_int8-inl.h: x ~ q * s, s =
// max|x| / 127): each x_i is off by at most half a step s/2 (plus the fp32
// rounding of x/s, < 1 % of a step), which adds sum over blocks b of
// 0.51 * s_b * sum_{i in b} |w_i| to the bound,
// except for the spiky blocks (largest |x| above kInt8SpikeRatio times the
// row's RMS), whose rounding error is rounded to int8 again and added: their
// x are off by at most half a step of that second scale, which is at most
// (s_b / 2) / 127, so 0.51 * s_b / 254 * sum |w_i|.
// The decode GEMV of the K-quants (gemv, and gemm of up to kGemvBatchMax
// vectors, which runs it) rounds x per 256 values instead
// (DTypeTraits::gemv_x_block): the same bound over blocks of 256, spiky
// above kInt8SpikeRatioSuperBlock times the RMS.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "kernels/blocks.h"
#include "kernels/gemv.h"
#include "kernels/quantize.h"
#include "kernels/row_groups.h"
#include "kernels/simd_target.h"
#include "kernels/unit_lanes.h"
#include "tests/kernels/oracle.h"

namespace ck {
namespace {

constexpr double kRelTol = 2e-6;

struct Matrix {
  DType dt;
  int64_t rows, cols;
  std::vector<uint8_t> bytes;
};

// The dtypes that ck cannot quantize (kernels/quantize.h): their test
// matrices are random bytes (every quant and sub-block scale equally
// likely) with fp16 scales of about 0.01.
constexpr DType kNoQuantizer[] = {DType::Q2_K, DType::Q3_K, DType::IQ4_NL, DType::IQ4_XS};

// Rows of a test matrix of dtype dt with about `rows` rows: a multiple of
// the dtype's row group.
int64_t rows_of(DType dt, int64_t rows) {
  const int64_t g = traits(dt).row_group;
  return (rows + g - 1) / g * g;
}

Matrix random_matrix(DType dt, int64_t rows, int64_t cols, std::mt19937& rng) {
  const DTypeTraits& t = traits(dt);
  if (const DType plain = plain_form(dt); plain != dt) {  // unit lanes, row groups: plain blocks, relaid
    Matrix m = random_matrix(plain, rows, cols, rng);
    to_stored_rows(dt, m.bytes.data(), rows, cols);
    m.dt = dt;
    return m;
  }
  Matrix m{dt, rows, cols, std::vector<uint8_t>(row_bytes(t, cols) * rows)};
  if (std::find(std::begin(kNoQuantizer), std::end(kNoQuantizer), dt) != std::end(kNoQuantizer)) {
    for (auto& byte : m.bytes) byte = static_cast<uint8_t>(rng());
    for (size_t k = 0; k < m.bytes.size() / t.block_bytes; ++k) {
      for (int off : test::half_fields(dt)) {
        const uint16_t scale = static_cast<uint16_t>(0x2000 | (rng() & 0x3FF));  // 0.0078 .. 0.0156
        std::memcpy(m.bytes.data() + k * t.block_bytes + off, &scale, 2);
      }
    }
    return m;
  }
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> w(static_cast<size_t>(rows * cols));
  for (auto& v : w) v = normal(rng);
  for (int64_t r = 0; r < rows; ++r) quantize(dt, w.data() + r * cols, m.bytes.data() + r * row_bytes(t, cols), cols);
  return m;
}

std::vector<float> random_vector(int64_t n, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(n));
  for (auto& v : x) v = normal(rng);
  return x;
}

// How the kernel rounded the activations: not at all (F32, F16, BF16), to
// int8 per 32 (the GEMM of the block-quantized dtypes), or per the dtype's
// gemv_x_block (their decode GEMV).
enum class XRounding { kNone, kInt8, kInt8Gemv };

// Exact-ish y, the scale sum |w x| and the activation-rounding error bounds
// (see the top of the file) per output: per 32, and per gemv_x_block.
struct Reference {
  std::vector<double> y, abs_sum, x8_bound, gemv_bound;
  Reference first_rows(int64_t rows) const {
    auto head = [rows](const std::vector<double>& v) { return std::vector<double>(v.begin(), v.begin() + rows); };
    return {head(y), head(abs_sum), head(x8_bound), head(gemv_bound)};
  }
  double bound(size_t i, XRounding r) const {
    return r == XRounding::kInt8 ? x8_bound[i] : r == XRounding::kInt8Gemv ? gemv_bound[i] : 0.0;
  }
};

// Every native block-quantized dtype multiplies rounded activations: as the
// GEMV rounds them for up to kGemvBatchMax vectors (gemm_multi runs
// gemv_batch), as the integer GEMM does above.
XRounding rounding(DType dt, int64_t n = 1) {
  if (traits(dt).block_size == 1) return XRounding::kNone;
  return n <= kGemvBatchMax ? XRounding::kInt8Gemv : XRounding::kInt8;
}

// sum over groups of `width` values of 0.51 * (max |x| / levels) * sum |w|;
// groups whose max |x| exceeds `spike` times the RMS of x have levels * 254.
double rounding_bound(const float* w, const float* x, int64_t cols, int64_t width, double levels,
                      double spike = INFINITY) {
  double sq = 0;
  for (int64_t i = 0; i < cols; ++i) sq += static_cast<double>(x[i]) * x[i];
  const double spike_level = spike * std::sqrt(sq / static_cast<double>(cols));
  double bound = 0;
  for (int64_t b = 0; b < cols; b += width) {
    double amax = 0, wsum = 0;
    for (int64_t i = b; i < std::min(cols, b + width); ++i) {
      amax = std::max(amax, std::fabs(static_cast<double>(x[i])));
      wsum += std::fabs(static_cast<double>(w[i]));
    }
    bound += 0.51 * amax / (amax > spike_level ? levels * 254.0 : levels) * wsum;
  }
  return bound;
}

Reference reference_gemm(const Matrix& m, const float* X, int64_t n) {
  const size_t outputs = static_cast<size_t>(m.rows * n);
  Reference ref{std::vector<double>(outputs), std::vector<double>(outputs), std::vector<double>(outputs),
                std::vector<double>(outputs)};
  const int64_t gemv_width = std::max(1, traits(m.dt).gemv_x_block);
  const double gemv_spike = gemv_width == kQK_K ? kInt8SpikeRatioSuperBlock : kInt8SpikeRatio;
  std::vector<float> row(static_cast<size_t>(m.cols));
  for (int64_t r = 0; r < m.rows; ++r) {
    dequantize_row(m.dt, m.bytes.data(), m.cols, r, row.data());
    for (int64_t t = 0; t < n; ++t) {
      double s = 0, a = 0;
      const float* x = X + t * m.cols;
      for (int64_t i = 0; i < m.cols; ++i) {
        const double p = static_cast<double>(row[i]) * x[i];
        s += p;
        a += std::fabs(p);
      }
      ref.y[t * m.rows + r] = s;
      ref.abs_sum[t * m.rows + r] = a;
      ref.x8_bound[t * m.rows + r] = rounding_bound(row.data(), x, m.cols, 32, 127.0, kInt8SpikeRatio);
      ref.gemv_bound[t * m.rows + r] = rounding_bound(row.data(), x, m.cols, gemv_width, 127.0, gemv_spike);
    }
  }
  return ref;
}

void check_close(const std::vector<float>& y, const Reference& ref, XRounding rounding = XRounding::kNone) {
  REQUIRE(y.size() == ref.y.size());
  double worst = 0;
  size_t worst_i = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const double tol = kRelTol * ref.abs_sum[i] + ref.bound(i, rounding);
    const double ratio = std::fabs(y[i] - ref.y[i]) / std::max(tol, 1e-30);
    if (!(ratio <= worst)) {
      worst = ratio;
      worst_i = i;
    }
  }
  INFO("worst output " << worst_i << ": " << y[worst_i] << " vs " << ref.y[worst_i] << " (error / tolerance = "
                       << worst << ", sum|wx| = " << ref.abs_sum[worst_i] << ")");
  CHECK(worst <= 1.0);
}

// Row lengths: every multiple of the block size up to 9 blocks, then a
// model-sized one (the threaded test below adds 5632).
std::vector<int64_t> row_lengths(DType dt) {
  const int bs = traits(dt).block_size;
  std::vector<int64_t> out;
  if (bs == 1) {
    for (int64_t c = 1; c <= 40; ++c) out.push_back(c);
  } else {
    for (int64_t k = 1; k <= 9; ++k) out.push_back(k * bs);
  }
  out.push_back(bs == 1 ? 2050 : 2048);
  return out;
}

constexpr DType kNative[] = {DType::F32,  DType::F16,  DType::BF16, DType::Q4_0, DType::Q4_1, DType::Q5_0,
                             DType::Q5_1, DType::Q8_0, DType::Q2_K, DType::Q3_K, DType::Q4_K, DType::Q5_K,
                             DType::Q6_K, DType::IQ4_NL, DType::IQ4_XS, DType::Q4_K_L, DType::Q5_K_L, DType::Q6_K_L,
                             DType::Q5_0_L, DType::Q5_1_L, DType::Q8_0_R16, DType::Q4_0_R16, DType::Q4_1_R16,
                             DType::Q5_0_R16, DType::Q5_1_R16, DType::Q4_K_R16, DType::Q6_K_R16};

// Runs `body` once per available SIMD target, forced.
template <class F>
void for_each_target(F&& body) {
  for (const std::string& target : available_simd_targets()) {
    force_simd_target(target);
    INFO("SIMD target " << target);
    CHECK(active_simd_target() == target);
    body();
  }
  force_simd_target("");
}

}  // namespace

TEST_CASE("gemv and gemm of every target match the reference", "[gemv]") {
  std::mt19937 rng(42);
  for (DType dt : kNative) {
    for (int64_t cols : row_lengths(dt)) {
      // 13: two groups of 8 rows, the second partial, in one pass (AVX2).
      for (int64_t r : {int64_t{1}, int64_t{7}, int64_t{13}, int64_t{33}}) {
        const int64_t rows = rows_of(dt, r);
        const Matrix m = random_matrix(dt, rows, cols, rng);
        const std::vector<float> X = random_vector(5 * cols, rng);
        const Reference ref1 = reference_gemm(m, X.data(), 1);
        const Reference ref5 = reference_gemm(m, X.data(), 5);
        for_each_target([&] {
          INFO(traits(dt).name << " " << rows << "x" << cols);
          std::vector<float> y(static_cast<size_t>(rows));
          gemv(dt, m.bytes.data(), rows, cols, X.data(), y.data());
          check_close(y, ref1, rounding(dt));
          std::vector<float> Y(static_cast<size_t>(5 * rows));
          gemm(dt, m.bytes.data(), rows, cols, X.data(), 5, Y.data());
          check_close(Y, ref5, rounding(dt, 5));
        });
      }
    }
  }
}

TEST_CASE("gemv of large odd-shaped matrices matches on every target (threads on)", "[gemv]") {
  std::mt19937 rng(7);
  for (DType dt : kNative) {
    const Matrix m = random_matrix(dt, rows_of(dt, 259), 5632, rng);
    const std::vector<float> X = random_vector(19 * 5632, rng);
    // 19 tokens: two full tiles of 8 (AVX-512) or four of 4 and a remainder.
    const Reference ref = reference_gemm(m, X.data(), 19);
    for_each_target([&] {
      INFO(traits(dt).name);
      std::vector<float> Y(static_cast<size_t>(19 * m.rows));
      gemm(dt, m.bytes.data(), m.rows, m.cols, X.data(), 19, Y.data());
      check_close(Y, ref, rounding(dt, 19));
      std::vector<float> y(static_cast<size_t>(m.rows));
      gemv(dt, m.bytes.data(), m.rows, m.cols, X.data(), y.data());
      check_close(y, ref.first_rows(m.rows), rounding(dt));
    });
  }
}

// Heavy-tailed activations as real models have them (a few channels tens of
// times the rest): the spiky blocks must get the second int8 pass, which the
// bound assumes (without it their error is ~250 times larger).
TEST_CASE("gemm and gemv of spiky activations keep their precision on every target", "[gemv][gemm]") {
  std::mt19937 rng(21);
  for (DType dt : {DType::Q4_1, DType::Q8_0, DType::Q5_0, DType::IQ4_NL, DType::Q2_K, DType::Q3_K, DType::Q4_K,
                   DType::Q5_K, DType::Q6_K, DType::IQ4_XS, DType::Q4_K_L, DType::Q5_K_L, DType::Q6_K_L, DType::Q5_0_L,
                   DType::Q5_1_L, DType::Q8_0_R16, DType::Q4_0_R16, DType::Q4_1_R16, DType::Q5_0_R16,
                   DType::Q5_1_R16, DType::Q4_K_R16, DType::Q6_K_R16}) {
    // A partial row group on every target; and rows of 34 and 35 blocks where
    // they are 32 weights: a partial last group of blocks, a pair or three
    // (gemv_int8-inl.h lays them out apart), which gets a spike too (every
    // token 0, 2, ...).
    for (int64_t cols : traits(dt).block_size == 32 ? std::vector<int64_t>{1088, 1120} : std::vector<int64_t>{1024}) {
      INFO(cols << " columns");
      const Matrix m = random_matrix(dt, rows_of(dt, 37), cols, rng);
      std::vector<float> X = random_vector(13 * m.cols, rng);
      // Above kInt8SpikeRatio (16) times the row's RMS, which they raise to 12-15.
      for (int64_t t = 0; t < 13; ++t) {
        X[t * m.cols + 3] = 300.0f;                       // a channel spiky in every token
        X[t * m.cols + 100 + 37 * t] = -250.0f;           // and one that moves
        if (t % 3 == 0) X[t * m.cols + 700] = 400.0f;
        if (t % 2 == 0) X[t * m.cols + m.cols - 58] = 350.0f;
      }
      const Reference ref = reference_gemm(m, X.data(), 13);
      for_each_target([&] {
        INFO(traits(dt).name);
        std::vector<float> Y(static_cast<size_t>(13 * m.rows));
        gemm(dt, m.bytes.data(), m.rows, m.cols, X.data(), 13, Y.data());
        check_close(Y, ref, XRounding::kInt8);
        // Decode: one vector, and three together (gemv_batch).
        std::vector<float> y(static_cast<size_t>(3 * m.rows));
        gemv(dt, m.bytes.data(), m.rows, m.cols, X.data(), y.data());
        check_close(std::vector<float>(y.begin(), y.begin() + m.rows), ref.first_rows(m.rows), rounding(dt));
        gemm(dt, m.bytes.data(), m.rows, m.cols, X.data(), 3, y.data());
        check_close(y, ref.first_rows(3 * m.rows), rounding(dt, 3));
      });
    }
  }
}

// The integer GEMM adds byte products in int16 as far as the dtype's largest
// u allows (gemm_int8-inl.h, BlockProducts): weights whose every quant is at
// its extreme (all bits set; Q8_0's -128, IQ4_NL's -127, IQ4_XS's -127 at scale -32) times activations at full scale
// (+-127 after rounding) are the worst case for overflow and saturation.
TEST_CASE("gemm of extreme quants and full-scale activations does not overflow on any target", "[gemv][gemm]") {
  for (DType dt : kNative) {
    const DTypeTraits& t = traits(dt);
    if (t.decode_u8 == nullptr) continue;
    const DType plain = plain_form(dt);  // a row-grouped dtype: its plain dtype's extremes, interleaved
    const int64_t rows = rows_of(dt, 37), cols = 512;
    Matrix m{dt, rows, cols, std::vector<uint8_t>(row_bytes(t, cols) * rows, plain == DType::Q8_0 ? 0x80 : dt == DType::IQ4_NL || dt == DType::IQ4_XS ? 0x00 : 0xFF)};
    for (size_t k = 0; k < m.bytes.size() / t.block_bytes; ++k) {
      for (int off : test::half_fields(plain)) {
        const uint16_t one = 0x3C00;
        std::memcpy(m.bytes.data() + k * t.block_bytes + off, &one, 2);
      }
    }
    to_stored_rows(dt, m.bytes.data(), rows, cols);
    std::vector<float> X(static_cast<size_t>(3 * cols));
    for (int64_t i = 0; i < cols; ++i) {
      X[i] = 1.0f;                               // every product at its largest
      X[cols + i] = -1.0f;                       // and at its most negative
      X[2 * cols + i] = i % 4 < 2 ? 1.0f : -1.0f;  // pairs of one sign
    }
    const Reference ref = reference_gemm(m, X.data(), 3);
    for_each_target([&] {
      INFO(t.name);
      std::vector<float> Y(static_cast<size_t>(3 * rows));
      gemm(dt, m.bytes.data(), rows, cols, X.data(), 3, Y.data());
      check_close(Y, ref, rounding(dt, 3));
    });
  }
}

// A NaN or an infinity in a token's activations makes every output of that
// token non-finite, as fp32 arithmetic would (the int8 rounding gives its
// block a NaN scale), and changes no bit of the other tokens' outputs: the
// integer GEMM (13 tokens), the decode GEMV of a batch (3) and of one.
TEST_CASE("a non-finite activation spoils its own token's outputs only, on every target", "[gemv][gemm]") {
  std::mt19937 rng(5);
  for (DType dt : kNative) {
    const Matrix m = random_matrix(dt, rows_of(dt, 37), traits(dt).block_size == 1 ? 300 : 1024, rng);
    const std::vector<float> clean = random_vector(13 * m.cols, rng);
    std::vector<float> X = clean;
    X[2 * m.cols + 5] = std::numeric_limits<float>::quiet_NaN();
    X[9 * m.cols + 40] = std::numeric_limits<float>::infinity();
    X[11 * m.cols + m.cols - 1] = -std::numeric_limits<float>::infinity();
    for_each_target([&] {
      INFO(traits(dt).name);
      for (int64_t n : {13, 3, 1}) {
        INFO(n << " tokens");
        std::vector<float> Y(static_cast<size_t>(n * m.rows)), Yclean(Y.size());
        // Token 0 stays clean; one token is the bad one in the shorter runs.
        std::vector<float> Xn(X.begin(), X.begin() + n * m.cols), Cn(clean.begin(), clean.begin() + n * m.cols);
        if (n < 13) std::copy_n(X.begin() + 2 * m.cols, m.cols, Xn.begin() + (n - 1) * m.cols);
        const bool bad_last = n < 13;
        if (n == 1) {
          gemv(dt, m.bytes.data(), m.rows, m.cols, Xn.data(), Y.data());
          gemv(dt, m.bytes.data(), m.rows, m.cols, Cn.data(), Yclean.data());
        } else {
          gemm(dt, m.bytes.data(), m.rows, m.cols, Xn.data(), n, Y.data());
          gemm(dt, m.bytes.data(), m.rows, m.cols, Cn.data(), n, Yclean.data());
        }
        for (int64_t t = 0; t < n; ++t) {
          const bool bad = n == 13 ? (t == 2 || t == 9 || t == 11) : (bad_last && t == n - 1);
          int64_t finite = 0, differ = 0;
          for (int64_t r = 0; r < m.rows; ++r) {
            const float y = Y[t * m.rows + r];
            finite += std::isfinite(y) ? 1 : 0;
            differ += std::memcmp(&y, &Yclean[t * m.rows + r], sizeof y) != 0 ? 1 : 0;
          }
          INFO("token " << t);
          CHECK(finite == (bad ? 0 : m.rows));
          if (!bad) CHECK(differ == 0);
        }
      }
    });
  }
}

TEST_CASE("gemv_multi computes matrices of different dtypes and row counts in one call", "[gemv]") {
  std::mt19937 rng(3);
  const int64_t cols = 768;
  const Matrix mats[] = {random_matrix(DType::Q4_K, 301, cols, rng), random_matrix(DType::Q6_K, 37, cols, rng),
                         random_matrix(DType::Q8_0, 64, cols, rng), random_matrix(DType::Q4_1, 19, cols, rng),
                         random_matrix(DType::Q4_0, 5, cols, rng), random_matrix(DType::F16, 3, cols, rng),
                         random_matrix(DType::Q5_K, 11, cols, rng), random_matrix(DType::Q8_0_R16, 48, cols, rng),
                         random_matrix(DType::Q4_1_R16, 32, cols, rng), random_matrix(DType::Q5_0_R16, 16, cols, rng),
                         random_matrix(DType::Q5_1_R16, 48, cols, rng), random_matrix(DType::Q4_K_R16, 32, cols, rng),
                         random_matrix(DType::Q6_K_R16, 48, cols, rng)};
  const std::vector<float> x = random_vector(cols, rng);
  for_each_target([&] {
    std::vector<std::vector<float>> ys;
    std::vector<GemvOutput> outs;
    for (const Matrix& m : mats) ys.emplace_back(static_cast<size_t>(m.rows));
    for (size_t i = 0; i < std::size(mats); ++i) {
      outs.push_back({mats[i].dt, mats[i].bytes.data(), mats[i].rows, ys[i].data()});
    }
    gemv_multi(outs, cols, x.data());
    for (size_t i = 0; i < std::size(mats); ++i) {
      INFO(traits(mats[i].dt).name);
      check_close(ys[i], reference_gemm(mats[i], x.data(), 1), rounding(mats[i].dt));
    }
  });
}

// gemv_batch decodes each block once for up to four vectors (kernels in
// gemv-inl.h take 4, 2 and 1 at a time); every vector must get exactly the
// result gemv gives it alone, whatever its place in the batch.
TEST_CASE("gemv_batch equals gemv bit for bit for every vector, dtype and target", "[gemv]") {
  std::mt19937 rng(5);
  for (DType dt : kNative) {
    const int64_t cols = traits(dt).block_size == 1 ? 100 : 2 * kQK_K;
    const Matrix m = random_matrix(dt, rows_of(dt, 13), cols, rng);
    std::vector<float> X = random_vector(kGemvBatchMax * cols, rng);
    X[3 * cols + 5] = 300.0f;  // vectors of different scales
    for (int64_t i = 0; i < cols; ++i) X[6 * cols + i] *= 1e-3f;
    for_each_target([&] {
      std::vector<float> alone(static_cast<size_t>(kGemvBatchMax * m.rows));
      for (int64_t t = 0; t < kGemvBatchMax; ++t) {
        gemv(dt, m.bytes.data(), m.rows, cols, X.data() + t * cols, alone.data() + t * m.rows);
      }
      for (int64_t n = 1; n <= kGemvBatchMax; ++n) {
        INFO(traits(dt).name << ", " << n << " vectors");
        std::vector<float> Y(static_cast<size_t>(n * m.rows), -1.0f);
        const GemvOutput out{dt, m.bytes.data(), m.rows, Y.data()};
        gemv_batch({&out, 1}, cols, X.data(), n);
        CHECK(std::memcmp(Y.data(), alone.data(), Y.size() * sizeof(float)) == 0);
      }
    });
  }
}

// Some kernels take several rows at a time (gemv-inl.h, DotRows): a row
// must get the same bits whichever rows it was computed with, so that a
// result does not depend on the threads' shares of a matrix (a row-grouped
// dtype's unit is its group).
TEST_CASE("gemv gives every row the bits it gets alone, on every target", "[gemv]") {
  std::mt19937 rng(6);
  for (DType dt : kNative) {
    // Short rows, four at a time (32-weight dtypes: 18 blocks a row, four
    // groups of four and two left over, as in SmolLM2), and rows of 2048,
    // two at a time where four do not fit in the stream's reach (Q4_1,
    // Q4_K_L) or one (Q8_0).
    const int64_t short_cols = traits(dt).block_size == 1 ? 100 : traits(dt).block_size == 32 ? 576 : 2 * kQK_K;
    for (const int64_t cols : {short_cols, int64_t{2048}}) {
      // 61 rows: gemv cuts a thread's share into eight chunks, of 7 or 8
      // rows here, some rows in fours (or twos) and some left over.
      const Matrix m = random_matrix(dt, rows_of(dt, 61), cols, rng);
      std::vector<float> x = random_vector(cols, rng);
      x[40] = 300.0f;  // a spiky block: its second term too
      const size_t rb = row_bytes(traits(dt), cols);
      const int64_t g = traits(dt).row_group;
      for_each_target([&] {
        INFO(traits(dt).name << ", " << cols << " columns");
        std::vector<float> all(static_cast<size_t>(m.rows)), alone(all.size());
        gemv(dt, m.bytes.data(), m.rows, cols, x.data(), all.data());
        for (int64_t r = 0; r < m.rows; r += g) gemv(dt, m.bytes.data() + r * rb, g, cols, x.data(), &alone[r]);
        CHECK(std::memcmp(all.data(), alone.data(), all.size() * sizeof(float)) == 0);
      });
    }
  }
}

TEST_CASE("gemm_multi computes matrices of different dtypes and row counts from one quantization", "[gemm]") {
  std::mt19937 rng(4);
  const int64_t cols = 768, n = 11;
  const Matrix mats[] = {random_matrix(DType::Q4_K, 301, cols, rng), random_matrix(DType::Q6_K, 37, cols, rng),
                         random_matrix(DType::Q8_0, 64, cols, rng), random_matrix(DType::Q4_1, 19, cols, rng),
                         random_matrix(DType::Q4_0, 5, cols, rng), random_matrix(DType::F16, 3, cols, rng),
                         random_matrix(DType::Q5_K, 11, cols, rng), random_matrix(DType::Q8_0_R16, 48, cols, rng),
                         random_matrix(DType::Q4_1_R16, 32, cols, rng), random_matrix(DType::Q5_0_R16, 16, cols, rng),
                         random_matrix(DType::Q5_1_R16, 48, cols, rng), random_matrix(DType::Q4_K_R16, 32, cols, rng),
                         random_matrix(DType::Q6_K_R16, 48, cols, rng)};
  std::vector<float> X = random_vector(n * cols, rng);
  for (int64_t t = 0; t < n; t += 2) X[t * cols + 40] = 200.0f;  // spiky blocks (16x the RMS) in some tokens
  for_each_target([&] {
    std::vector<std::vector<float>> ys;
    std::vector<GemvOutput> outs;
    for (const Matrix& m : mats) ys.emplace_back(static_cast<size_t>(n * m.rows));
    for (size_t i = 0; i < std::size(mats); ++i) {
      outs.push_back({mats[i].dt, mats[i].bytes.data(), mats[i].rows, ys[i].data()});
    }
    gemm_multi(outs, cols, X.data(), n);
    for (size_t i = 0; i < std::size(mats); ++i) {
      INFO(traits(mats[i].dt).name);
      check_close(ys[i], reference_gemm(mats[i], X.data(), n), rounding(mats[i].dt, n));
    }
  });
}

TEST_CASE("gemv of real matrices (SmolLM2 Q8_0 embedding, also as Q8_0_R16, and Q4_1 ffn_down, stories260K F32) matches on every target",
          "[gemv][real]") {
  test::ScratchDir scratch;
  const std::string smol = std::string(CK_MODELS_DIR) + "/SmolLM2-135M-Instruct.Q4_1.gguf";
  const std::string stories = std::string(CK_SHARED_DATA) + "/models/stories260K.gguf";
  test::run_oracle({"tensor " + smol + " token_embd.weight 777 " + scratch.file("a.raw").string() + " " +
                        scratch.file("a.f32").string(),
                    "tensor " + stories + " blk.2.ffn_down.weight 64 " + scratch.file("b.raw").string() + " " +
                        scratch.file("b.f32").string(),
                    "tensor " + smol + " blk.3.ffn_down.weight 576 " + scratch.file("c.raw").string() + " " +
                        scratch.file("c.f32").string()},
                   scratch);
  std::mt19937 rng(11);
  const std::vector<uint8_t> embd = test::read_bytes(scratch.file("a.raw"));
  std::vector<uint8_t> grouped(row_bytes(traits(DType::Q8_0), 576) * 768);  // the first 48 groups of 16 rows
  REQUIRE(embd.size() >= grouped.size());
  to_row_groups(DType::Q8_0_R16, embd.data(), 768, 576, grouped.data());
  const Matrix mats[] = {{DType::Q8_0, 777, 576, embd},
                         {DType::F32, 64, 172, test::read_bytes(scratch.file("b.raw"))},
                         {DType::Q4_1, 576, 1536, test::read_bytes(scratch.file("c.raw"))},
                         {DType::Q8_0_R16, 768, 576, grouped}};
  for (const Matrix& m : mats) {
    REQUIRE(m.bytes.size() == row_bytes(traits(m.dt), m.cols) * m.rows);
    const std::vector<float> X = random_vector(3 * m.cols, rng);
    const Reference ref = reference_gemm(m, X.data(), 3);
    for_each_target([&] {
      std::vector<float> Y(static_cast<size_t>(3 * m.rows));
      gemm(m.dt, m.bytes.data(), m.rows, m.cols, X.data(), 3, Y.data());
      check_close(Y, ref, rounding(m.dt, 3));
    });
  }
}

// (Every dtype code has a kernel now, so "no kernel for" has no case.)
TEST_CASE("gemv rejects ragged rows", "[gemv]") {
  std::vector<uint8_t> w(4096);
  std::vector<float> x(512), y(4);
  CHECK_THROWS_WITH(gemv(DType::Q4_K, w.data(), 1, 300, x.data(), y.data()), Catch::Contains("multiple of 256"));
  CHECK_THROWS_WITH(gemv(DType::Q8_0_R16, w.data(), 4, 64, x.data(), y.data()), Catch::Contains("rows must be a multiple of 16"));
  CHECK_THROWS_WITH(force_simd_target("NOPE"), Catch::Contains("not available"));
}

}  // namespace ck
