// The unit-lanes layout (kernels/unit_lanes.h): each weight lands where the
// header says, and the permutation is undone exactly.
#include "kernels/unit_lanes.h"

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstring>
#include <type_traits>
#include <random>
#include <vector>

namespace {

template <class Block>
std::vector<Block> random_blocks(int64_t n, uint32_t seed) {
  std::vector<Block> blocks(n);
  std::mt19937 rng(seed);
  for (Block& b : blocks) {
    auto* bytes = reinterpret_cast<uint8_t*>(&b);
    for (size_t i = 0; i < sizeof(Block); ++i) bytes[i] = static_cast<uint8_t>(rng());
    b.d = 0x3C00;     // 1.0: finite scales, so that dequantized values compare
    b.dmin = 0x3800;  // 0.5
  }
  return blocks;
}

// The 4- (or 5-) bit value of unit j, position p, read by the header's rule.
template <class Block>
int lanes_value(const Block& b, int j, int p) {
  const int h = p / 16, i = (p % 16) / 4, byte = p % 4;
  int q = (b.qs[32 * i + 4 * j + byte] >> (4 * h)) & 0xF;
  if constexpr (std::is_same_v<Block, ck::BlockQ5_K>) q |= ((b.qh[4 * j + byte] >> (2 * i + h)) & 1) << 4;
  return q;
}
template <class Block>
int ggml_value(const Block& b, int j, int p) {
  int q = (b.qs[32 * (j / 2) + p] >> (4 * (j % 2))) & 0xF;
  if constexpr (std::is_same_v<Block, ck::BlockQ5_K>) q |= ((b.qh[p] >> j) & 1) << 4;
  return q;
}

template <class Block>
void check_layout() {
  const auto ggml = random_blocks<Block>(3, 7);
  auto lanes = ggml;
  ck::to_unit_lanes(lanes.data(), 3);
  for (int k = 0; k < 3; ++k) {
    // d, dmin and the scales are not moved.
    CHECK(std::memcmp(&lanes[k], &ggml[k], offsetof(Block, scales) + sizeof(ggml[k].scales)) == 0);
    int wrong = 0;
    for (int j = 0; j < 8; ++j)
      for (int p = 0; p < 32; ++p) wrong += lanes_value(lanes[k], j, p) != ggml_value(ggml[k], j, p);
    CHECK(wrong == 0);
  }
  ck::from_unit_lanes(lanes.data(), 3);
  CHECK(std::memcmp(lanes.data(), ggml.data(), sizeof(Block) * 3) == 0);
}

}  // namespace

TEST_CASE("unit lanes: every Q4_K / Q5_K weight lands where the layout says, and comes back", "[unit_lanes]") {
  SECTION("Q4_K") { check_layout<ck::BlockQ4_K>(); }
  SECTION("Q5_K") { check_layout<ck::BlockQ5_K>(); }
}

TEST_CASE("unit lanes: activations go in the order of the weights' vectors", "[unit_lanes]") {
  std::vector<int8_t> x(512), out(512);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int8_t>(i * 37 + 11);
  ck::unit_lanes_activations(x.data(), out.data(), 512);
  int wrong = 0;
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 8; ++j)
      for (int p = 0; p < 32; ++p) {
        const int h = p / 16, i = (p % 16) / 4, b = p % 4;
        wrong += out[256 * k + 32 * (4 * h + i) + 4 * j + b] != x[256 * k + 32 * j + p];
      }
  CHECK(wrong == 0);
}

TEST_CASE("Q5_0_L / Q5_1_L: every fifth bit lands at bit j / 4 of qh[j % 4], and comes back", "[unit_lanes]") {
  auto check = [](auto block_tag) {
    using Block = decltype(block_tag);
    std::vector<Block> ggml(3);
    std::mt19937 rng(11);
    for (Block& b : ggml) {
      auto* bytes = reinterpret_cast<uint8_t*>(&b);
      for (size_t i = 0; i < sizeof(Block); ++i) bytes[i] = static_cast<uint8_t>(rng());
    }
    auto lanes = ggml;
    ck::to_unit_lanes(lanes.data(), 3);
    for (int k = 0; k < 3; ++k) {
      // Everything but qh stays.
      CHECK(std::memcmp(&lanes[k], &ggml[k], offsetof(Block, qh)) == 0);
      CHECK(std::memcmp(lanes[k].qs, ggml[k].qs, sizeof ggml[k].qs) == 0);
      int wrong = 0;
      for (int j = 0; j < 32; ++j) wrong += ((lanes[k].qh[j % 4] >> (j / 4)) & 1) != ((ggml[k].qh[j / 8] >> (j % 8)) & 1);
      CHECK(wrong == 0);
    }
    ck::from_unit_lanes(lanes.data(), 3);
    CHECK(std::memcmp(lanes.data(), ggml.data(), sizeof(Block) * 3) == 0);
  };
  SECTION("Q5_0") { check(ck::BlockQ5_0{}); }
  SECTION("Q5_1") { check(ck::BlockQ5_1{}); }
}
