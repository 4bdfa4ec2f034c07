// Q8_0_R16's layout (kernels/row_groups.h), byte by byte: each row's scale
// and quants where the header says, and every row gathered back.
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/blocks.h"
#include "kernels/dtype.h"
#include "kernels/row_groups.h"

namespace ck {

TEST_CASE("row groups: every Q8_0 byte lands where the layout says, and every row comes back", "[row_groups]") {
  std::mt19937 rng(8);
  const int64_t rows = 48, cols = 5 * kQK, nb = cols / kQK;
  const size_t rb = row_bytes(traits(DType::Q8_0), cols);
  std::vector<uint8_t> plain(rb * rows), grouped(plain.size());
  for (auto& b : plain) b = static_cast<uint8_t>(rng());
  to_row_groups(plain.data(), rows, cols, grouped.data());
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* group = grouped.data() + (r / 16) * 16 * rb;
    const int64_t i = r % 16;
    for (int64_t k = 0; k < nb; ++k) {
      const uint8_t* b = plain.data() + r * rb + k * 34;
      const uint8_t* column = group + k * 544;
      INFO("row " << r << ", block " << k);
      CHECK(std::memcmp(column + 2 * i, b, 2) == 0);
      for (int w = 0; w < kQK; ++w) CHECK(column[32 + 64 * (w / 4) + 4 * i + w % 4] == b[2 + w]);
    }
    std::vector<uint8_t> row(rb);
    gather_row(grouped.data(), cols, r, row.data());
    CHECK(std::memcmp(row.data(), plain.data() + r * rb, rb) == 0);
  }
}

}  // namespace ck
