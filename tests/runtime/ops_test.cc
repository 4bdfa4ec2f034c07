// kernels/ops against the formulas, computed naively in double.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <random>
#include <vector>

#include "kernels/attention.h"
#include "kernels/fp16.h"
#include "kernels/ops.h"
#include "kernels/simd_target.h"

namespace {

std::vector<float> random_vec(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// A cache of n elements (plus the slack attend_tokens may read) holding x as floats or halves.
struct Cache {
  bool f16;
  std::vector<std::byte> bytes;
  Cache(const std::vector<float>& x, bool half) : f16(half), bytes((x.size() + ck::kKvSlack) * (half ? 2 : 4)) {
    ck::store_kv(x.data(), static_cast<int64_t>(x.size()), bytes.data(), f16, 1);
  }
  // n keys of head_dim each (key j's dimensions consecutive in x), in tiles.
  Cache(const std::vector<float>& x, int64_t n, int head_dim, bool half)
      : f16(half), bytes(size_t((n + ck::kKeyTile - 1) / ck::kKeyTile * ck::kKeyTile * head_dim) * (half ? 2 : 4)) {
    for (int64_t j = 0; j < n; ++j) {
      ck::store_kv(x.data() + j * head_dim, head_dim, bytes.data() + ck::key_index(j, 0, head_dim) * (half ? 2 : 4),
                   f16, ck::kKeyTile);
    }
  }
  double at(int64_t i) const {
    if (!f16) return reinterpret_cast<const float*>(bytes.data())[i];
    return ck::fp16_to_fp32(reinterpret_cast<const uint16_t*>(bytes.data())[i]);
  }
};

}  // namespace

TEST_CASE("rmsnorm matches x / rms(x) * w", "[ops]") {
  for (int n : {1, 7, 64, 577}) {
    auto x = random_vec(n, 1, 3.0f), w = random_vec(n, 2);
    double ss = 0;
    for (float v : x) ss += double(v) * v;
    const double inv = 1.0 / std::sqrt(ss / n + 1e-5);
    std::vector<float> out(n);
    ck::rmsnorm(out.data(), x.data(), w.data(), n, 1e-5f);
    for (int i = 0; i < n; ++i) REQUIRE(out[i] == Approx(x[i] * inv * w[i]).epsilon(1e-5).margin(1e-6));
    ck::rmsnorm(x.data(), x.data(), w.data(), n, 1e-5f);  // in place
    for (int i = 0; i < n; ++i) REQUIRE(x[i] == out[i]);
  }
}

TEST_CASE("softmax_numerators: exp(x - max) to about an ulp, its max and sum, and huge logits", "[ops]") {
  for (int n : {1, 5, 16, 33, 1000}) {
    auto x = random_vec(n, 3, 10.0f);
    x[0] = 1000.0f;  // exp(1000) overflows without the max shift
    x[n / 2] = 1001.5f;
    std::vector<double> ref(n);
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += ref[i] = std::exp(double(x[i]) - 1001.5);
    const ck::SoftmaxSums sums = ck::softmax_numerators(x.data(), n);
    REQUIRE(sums.max == 1001.5f);
    REQUIRE(sums.sum == Approx(sum).epsilon(1e-6));
    for (int i = 0; i < n; ++i) REQUIRE(x[i] == Approx(ref[i]).epsilon(2e-7).margin(1e-37));
  }
  // Every shift from 0 down past float's least normal exponent, in the
  // vector body and the scalar tail (n = 8191 is no multiple of a vector).
  const int n = 8191;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = -100.0f * float(i) / (n - 1);
  ck::softmax_numerators(x.data(), n);
  for (int i = 0; i < n; ++i) {
    const double shifted = std::exp(double(-100.0f * float(i) / (n - 1)));
    INFO("x " << -100.0f * float(i) / (n - 1));
    if (shifted >= 1.2e-38) {
      REQUIRE(x[i] == Approx(shifted).epsilon(2e-7));
    } else {
      REQUIRE(x[i] >= 0.0f);
      REQUIRE(x[i] <= 1.2e-38f);
    }
  }
}

TEST_CASE("silu_mul matches g / (1 + exp(-g)) * u, also far in the tails", "[ops]") {
  for (int n : {3, 16, 37, 1536}) {
    auto g = random_vec(n, 4, 4.0f), u = random_vec(n, 5);
    g[0] = -200.0f;  // exp(200) is inf in float: silu must be ~0, not NaN
    g[n - 1] = 150.0f;
    std::vector<float> out(n);
    ck::silu_mul(out.data(), g.data(), u.data(), n);
    for (int i = 0; i < n; ++i) {
      const double ref = double(g[i]) / (1.0 + std::exp(-double(g[i]))) * u[i];
      REQUIRE(out[i] == Approx(ref).epsilon(1e-5).margin(1e-6));
    }
  }
}

TEST_CASE("gelu_tanh_mul matches g/2 (1 + tanh(sqrt(2/pi) (g + 0.044715 g^3))) * u, also far in the tails", "[ops]") {
  const int n = 37;
  auto g = random_vec(n, 6, 4.0f), u = random_vec(n, 7);
  g[0] = -200.0f;
  g[n - 1] = 150.0f;
  std::vector<float> out(n);
  ck::gelu_tanh_mul(out.data(), g.data(), u.data(), n);
  for (int i = 0; i < n; ++i) {
    const double x = g[i];
    const double ref = 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x))) * u[i];
    REQUIRE(out[i] == Approx(ref).epsilon(1e-5).margin(1e-6));
  }
}

TEST_CASE("add is elementwise", "[ops]") {
  std::vector<float> x{1, 2, 3}, y{10, 20, 30};
  ck::add(x.data(), y.data(), 3);
  REQUIRE(x == std::vector<float>{11, 22, 33});
}

// attend_tokens on every SIMD target against softmax(scale q.k) v in double,
// with keys stored in tiles in a cache longer than the keys used: every
// head count, blocks of 1-4 tokens (causal: token t sees t more keys), with
// and without a sliding window, keys and values as floats or halves (the
// reference multiplies the halves' exact values).
TEST_CASE("attend_tokens matches softmax(scale q.K) V for every group size, block, cache type and target",
          "[ops][attention]") {
  for (const std::string& target : ck::available_simd_targets()) {
    ck::force_simd_target(target);
    INFO("SIMD target " << target);
    for (int types = 0; types < 4; ++types) {
      const bool key_f16 = types & 1, value_f16 = types & 2;
      INFO("keys " << (key_f16 ? "f16" : "f32") << ", values " << (value_f16 ? "f16" : "f32"));
      for (int head_dim : {8, 13, 64, 128}) {
        for (int64_t n_keys : {1, 5, 16, 17, 100, 300}) {
          for (int tokens = 1; tokens <= ck::kMaxAttendTokens; ++tokens) {
            for (int64_t window : {int64_t{0}, int64_t{7}}) {
              const int heads = 1 + (head_dim + n_keys + tokens) % ck::kMaxAttendHeads;  // 1..8 across the loops
              const int64_t n_ctx = n_keys + tokens + 7;
              const int64_t q_stride = int64_t{heads} * head_dim + 3, out_stride = int64_t{heads} * head_dim + 1;
              const Cache kt(random_vec(size_t(head_dim) * n_ctx, 11), n_ctx, head_dim, key_f16);
              const Cache v(random_vec(size_t(n_ctx) * head_dim, 12), value_f16);
              auto q = random_vec(size_t(tokens) * q_stride, 13, 2.0f);
              std::vector<float> scratch(size_t(ck::attend_scratch_floats(n_ctx, head_dim)));
              std::vector<float> out(size_t(tokens) * out_stride, -7.0f);
              const float scale = 0.3f;
              ck::attend_tokens(q.data(), q_stride, heads, tokens, {kt.bytes.data(), key_f16},
                                {v.bytes.data(), value_f16}, head_dim, n_keys, window, scale, scratch.data(),
                                out.data(), out_stride);
              INFO("head_dim " << head_dim << ", keys " << n_keys << ", tokens " << tokens << ", heads " << heads
                               << ", window " << window);
              for (int t = 0; t < tokens; ++t) {
                const int64_t end = n_keys + t, begin = window > 0 ? std::max<int64_t>(0, end - window) : 0;
                for (int h = 0; h < heads; ++h) {
                  const float* qh = q.data() + t * q_stride + h * head_dim;
                  std::vector<double> p(size_t(end - begin));
                  double max = -1e300, sum = 0;
                  for (int64_t j = begin; j < end; ++j) {
                    double dot = 0;
                    for (int d = 0; d < head_dim; ++d) dot += double(qh[d]) * kt.at(ck::key_index(j, d, head_dim));
                    p[j - begin] = scale * dot;
                    max = std::max(max, p[j - begin]);
                  }
                  for (auto& x : p) sum += (x = std::exp(x - max));
                  for (int i = 0; i < head_dim; ++i) {
                    double ref = 0;
                    for (int64_t j = begin; j < end; ++j) ref += p[j - begin] / sum * v.at(j * head_dim + i);
                    // fp32 sums of n terms err by up to n * 2^-24 times the sum of
                    // their magnitudes (here at most max |v| = 1), plus the softmax's.
                    const double margin = 1e-5 + double(end - begin) * 0x1p-24;
                    REQUIRE(out[t * out_stride + h * head_dim + i] == Approx(ref).epsilon(1e-5).margin(margin));
                  }
                }
                REQUIRE(out[t * out_stride + heads * head_dim] == -7.0f);  // the stride's gap untouched
              }
            }
          }
        }
      }
    }
  }
  ck::force_simd_target("");
}

// Attention split into shares of the keys (decode's split-K), each share's
// output normalized over its own keys, then merged, against attention over
// all keys at once: causal blocks, a window, shares that start off a tile,
// and an empty share.
TEST_CASE("attention over shares of the keys, merged, equals attention over all keys", "[ops][attention]") {
  for (const std::string& target : ck::available_simd_targets()) {
    ck::force_simd_target(target);
    INFO("SIMD target " << target);
    for (bool f16 : {false, true}) {
      for (int head_dim : {13, 64}) {
        for (int64_t n_keys : {40, 300}) {
          for (int tokens = 1; tokens <= ck::kMaxAttendTokens; ++tokens) {
            for (int64_t window : {int64_t{0}, int64_t{50}}) {
              const int heads = 3, rows = heads * tokens;
              const int64_t n_ctx = n_keys + tokens, stride = int64_t{heads} * head_dim;
              const Cache kt(random_vec(size_t(head_dim) * n_ctx, 21), n_ctx, head_dim, f16);
              const Cache v(random_vec(size_t(n_ctx) * head_dim, 22), f16);
              const auto q = random_vec(size_t(rows) * head_dim, 23, 2.0f);
              std::vector<float> scratch(size_t(ck::attend_scratch_floats(n_ctx, head_dim)));
              std::vector<float> whole(size_t(rows) * head_dim);
              ck::attend_tokens(q.data(), stride, heads, tokens, {kt.bytes.data(), f16}, {v.bytes.data(), f16},
                                head_dim, n_keys, window, 0.3f, scratch.data(), whole.data(), stride);
              for (const std::vector<int64_t>& bounds :
                   {std::vector<int64_t>{0, n_keys / 2, n_ctx}, {0, 7, 16, 16, n_keys - 1, n_ctx}}) {
                const int shares = static_cast<int>(bounds.size()) - 1;
                std::vector<float> outs(size_t(shares) * rows * head_dim), stats(size_t(shares) * rows * 2);
                for (int p = 0; p < shares; ++p) {
                  ck::attend_tokens(q.data(), stride, heads, tokens, {kt.bytes.data(), f16}, {v.bytes.data(), f16},
                                    head_dim, n_keys, window, 0.3f, scratch.data(),
                                    outs.data() + size_t(p) * rows * head_dim, stride,
                                    {bounds[p], bounds[p + 1], stats.data() + size_t(p) * rows * 2});
                }
                std::vector<float> merged(whole.size());
                ck::merge_key_shares(outs.data(), stats.data(), shares, rows, head_dim, merged.data());
                INFO("head_dim " << head_dim << ", keys " << n_keys << ", tokens " << tokens << ", window " << window
                                 << ", shares " << shares << (f16 ? ", f16" : ", f32"));
                for (size_t i = 0; i < whole.size(); ++i) REQUIRE(merged[i] == Approx(whole[i]).epsilon(1e-5).margin(1e-6));
              }
            }
          }
        }
      }
    }
  }
  ck::force_simd_target("");
}

// Halves round to nearest even (the cache's store), as ggml's conversion does.
TEST_CASE("store_kv rounds to IEEE halves and writes with a stride", "[ops][attention]") {
  const float x[] = {1.0f, 1.0f + 0x1p-11f, 1.0f + 0x1p-10f + 0x1p-11f, 65520.0f, -0.0f};
  uint16_t out[2 * 5] = {};
  ck::store_kv(x, 5, out, true, 2);
  CHECK(out[0] == 0x3C00);
  CHECK(out[2] == 0x3C00);  // halfway: to the even 1.0
  CHECK(out[4] == 0x3C02);  // halfway: to the even 1 + 2^-9
  CHECK(out[6] == 0x7C00);  // past the largest half: infinity
  CHECK(out[8] == 0x8000);
  CHECK(out[1] == 0);       // between the strided elements: untouched
}

// The vector conversion (F16C on AVX2 and AVX-512) against the exact scalar
// one, on every target: ties, the overflow edge, subnormals, signed zero,
// infinities and random values, at both strides, with a tail past the last
// whole vector.
TEST_CASE("store_kv's halves equal the scalar rounding on every target", "[ops][attention]") {
  std::vector<float> x = {1.0f + 0x1p-11f, 1.0f + 0x1p-10f + 0x1p-11f, 65504.0f, 65519.99f, 65520.0f, -65520.0f,
                          0x1p-24f, 0x1p-25f, 0x1.8p-25f, 0x1p-14f - 0x1p-25f, -0.0f, 1e-30f, INFINITY, -INFINITY,
                          3.0f * 0x1p-26f, 0x1.ffep-15f};
  for (float v : random_vec(300, 31, 40.0f)) x.push_back(v);
  for (float v : random_vec(53, 32, 1e-5f)) x.push_back(v);
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<uint16_t> want(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) want[size_t(i)] = ck::fp32_to_fp16(x[size_t(i)]);
  for (const std::string& target : ck::available_simd_targets()) {
    ck::force_simd_target(target);
    INFO("SIMD target " << target);
    for (int64_t stride : {int64_t{1}, ck::kKeyTile}) {
      std::vector<uint16_t> out(size_t(n * stride), 0x1234);
      ck::store_kv(x.data(), n, out.data(), true, stride);
      for (int64_t i = 0; i < n * stride; ++i) {
        INFO("stride " << stride << ", element " << i / stride << " = " << x[size_t(i / stride)]);
        REQUIRE(out[size_t(i)] == (i % stride == 0 ? want[size_t(i / stride)] : 0x1234));
      }
    }
  }
  ck::force_simd_target("");
}

TEST_CASE("rope rotates the right pairs by pos * scale * base^(-2i/d) / divisor_i, times the magnitude", "[ops]") {
  const int head_dim = 8, n_heads = 2;
  const float divisors[] = {1.0f, 2.5f, 8.0f, 3.0f};
  for (const ck::RopeSpec& spec : {ck::RopeSpec{}, ck::RopeSpec{500000.0f, 0.25f, divisors, 1.2f}}) {
    for (bool neox : {false, true}) {
      for (int rope_dim : {8, 4}) {  // 4: partial rotation, dims 4..7 untouched
        ck::RopeTable table(100, rope_dim, spec);
        const int pos = 37;
        auto x = random_vec(head_dim * n_heads, 9);
        auto y = x;
        ck::rope(y.data(), n_heads, head_dim, table, pos, neox);
        for (int h = 0; h < n_heads; ++h) {
          const float* a = x.data() + h * head_dim;
          const float* b = y.data() + h * head_dim;
          for (int i = 0; i < rope_dim / 2; ++i) {
            const double divisor = spec.divisors != nullptr ? spec.divisors[i] : 1.0;
            const double th = pos * spec.scale * std::pow(double{spec.base}, -2.0 * i / rope_dim) / divisor;
            const double c = spec.magnitude * std::cos(th), s = spec.magnitude * std::sin(th);
            const int i0 = neox ? i : 2 * i, i1 = neox ? i + rope_dim / 2 : 2 * i + 1;
            REQUIRE(b[i0] == Approx(a[i0] * c - a[i1] * s).margin(1e-5));
            REQUIRE(b[i1] == Approx(a[i0] * s + a[i1] * c).margin(1e-5));
          }
          for (int i = rope_dim; i < head_dim; ++i) REQUIRE(b[i] == a[i]);
        }
      }
    }
  }
}

TEST_CASE("rope refuses positions outside its table", "[ops]") {
  ck::RopeTable table(4, 8, {});
  std::vector<float> x(8);
  REQUIRE_THROWS_WITH(ck::rope(x.data(), 1, 8, table, 4, false), Catch::Contains("position 4"));
  REQUIRE_THROWS(ck::RopeTable(4, 7, {}));
}
