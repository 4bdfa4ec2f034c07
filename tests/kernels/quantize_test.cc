// Quantizer quality and edge cases. (Bit-exactness of what they write, as
// read by gguf-py, is in dequantize_test.cc.)
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>

#include "kernels/dtype.h"
#include "kernels/quantize.h"

namespace ck {
namespace {

std::vector<float> round_trip(DType dt, const std::vector<float>& x) {
  std::vector<uint8_t> q(row_bytes(traits(dt), static_cast<int64_t>(x.size())));
  quantize(dt, x.data(), q.data(), static_cast<int64_t>(x.size()));
  std::vector<float> y(x.size());
  traits(dt).dequantize(q.data(), y.data(), static_cast<int64_t>(y.size()));
  return y;
}

double rmse(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
  return std::sqrt(s / static_cast<double>(a.size()));
}

}  // namespace

// Bounds from uniform-quantizer theory (RMSE = step / sqrt(12)) for unit
// Gaussian data, with the block ranges a Gaussian gives: Q8_0 step
// E[max|x| of 32] / 127 = 2.4 / 127 -> 0.0055; Q6_K step E[max|x| of 16] / 32
// = 2.1 / 32 -> 0.019; Q5_K step E[max - min of 32] / 31 = 4.1 / 31 -> 0.038;
// Q4_K step E[max - min of 32] / 15 = 4.1 / 15 -> 0.079.
// The scale searches of the K-quants land a little below plain rounding; a
// quantizer that mis-packs or mis-scales is far off.
TEST_CASE("quantizers reach the RMSE of their bit budget on Gaussian data", "[quantize]") {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(1 << 16);
  for (auto& v : x) v = normal(rng);
  const double q8 = rmse(x, round_trip(DType::Q8_0, x));
  const double q6 = rmse(x, round_trip(DType::Q6_K, x));
  const double q5 = rmse(x, round_trip(DType::Q5_K, x));
  const double q4 = rmse(x, round_trip(DType::Q4_K, x));
  INFO("RMSE Q8_0 " << q8 << ", Q6_K " << q6 << ", Q5_K " << q5 << ", Q4_K " << q4);
  CHECK(q8 < 0.0058);
  CHECK(q6 < 0.019);
  CHECK(q5 < 0.038);
  CHECK(q4 < 0.079);
  CHECK(q8 < q6);
  CHECK(q6 < q5);
  CHECK(q5 < q4);
}

TEST_CASE("quantizers handle zero and constant blocks exactly", "[quantize]") {
  for (DType dt : {DType::Q8_0, DType::Q4_K, DType::Q6_K}) {
    INFO(traits(dt).name);
    const std::vector<float> zeros(512, 0.0f);
    CHECK(round_trip(dt, zeros) == zeros);
  }
  // A Q8_0 block whose values are multiples of amax / 127 comes back exactly
  // when that scale is an fp16 value.
  std::vector<float> ints(32);
  for (int i = 0; i < 32; ++i) ints[static_cast<size_t>(i)] = static_cast<float>(i * 4 - 64) * 0.25f;
  ints[0] = -127 * 0.25f;
  CHECK(round_trip(DType::Q8_0, ints) == ints);
}

TEST_CASE("quantize rejects bad input", "[quantize]") {
  std::vector<float> x(256, 1.0f);
  std::vector<uint8_t> out(1024);
  CHECK_THROWS_WITH(quantize(DType::Q4_K, x.data(), out.data(), 100), Catch::Contains("multiple of 256"));
  CHECK_THROWS_WITH(quantize(DType::Q2_K, x.data(), out.data(), 256), Catch::Contains("no quantizer for Q2_K"));
  x[7] = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH(quantize(DType::Q8_0, x.data(), out.data(), 256), Catch::Contains("not finite"));
}

}  // namespace ck
