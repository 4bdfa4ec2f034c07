// The row-grouped layouts (kernels/row_groups.h), byte by byte: each row's
// header fields and quant words where the header says, and every row
// gathered back.
#include "kernels/row_groups.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/blocks.h"
#include "kernels/dtype.h"

namespace ck {

TEST_CASE(
    "row groups: every byte of Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K and Q6_K lands where "
    "the layout says, and every row comes back",
    "[row_groups]") {
  struct Form {
    DType grouped;
    int block_bytes, header_bytes;  // B and H as row_groups.h describes them
    int block_weights = kQK;        // N
    int header_at = 0;              // where the header lies in the plain block
  };
  for (const Form f : {Form{DType::Q8_0_R16, 34, 2}, Form{DType::Q4_0_R16, 18, 2}, Form{DType::Q4_1_R16, 20, 4},
                       Form{DType::Q5_0_R16, 22, 2}, Form{DType::Q5_1_R16, 24, 4},
                       Form{DType::Q4_K_R16, 144, 4, kQK_K}, Form{DType::Q6_K_R16, 210, 2, kQK_K, 208}}) {
    INFO(traits(f.grouped).name);
    std::mt19937 rng(8);
    const int64_t rows = 48, cols = 5 * f.block_weights, nb = 5;
    const size_t rb = row_bytes(traits(f.grouped), cols);
    REQUIRE(rb == static_cast<size_t>(nb * f.block_bytes));
    std::vector<uint8_t> plain(rb * rows), grouped(plain.size());
    for (auto& b : plain) b = static_cast<uint8_t>(rng());
    to_row_groups(f.grouped, plain.data(), rows, cols, grouped.data());
    for (int64_t r = 0; r < rows; ++r) {
      const uint8_t* group = grouped.data() + (r / 16) * 16 * rb;
      const int64_t i = r % 16;
      for (int64_t k = 0; k < nb; ++k) {
        const uint8_t* b = plain.data() + r * rb + k * f.block_bytes;
        const uint8_t* column = group + k * 16 * f.block_bytes;
        INFO("row " << r << ", block " << k);
        const int words_at = f.header_at == 0 ? f.header_bytes : 0;
        for (int h = 0; h < f.header_bytes; ++h) CHECK(column[32 * (h / 2) + 2 * i + h % 2] == b[f.header_at + h]);
        for (int q = 0; q < f.block_bytes - f.header_bytes; ++q) {
          CHECK(column[16 * f.header_bytes + 64 * (q / 4) + 4 * i + q % 4] == b[words_at + q]);
        }
      }
      std::vector<uint8_t> row(rb);
      gather_row(f.grouped, grouped.data(), cols, r, row.data());
      CHECK(std::memcmp(row.data(), plain.data() + r * rb, rb) == 0);
    }
  }
}

}  // namespace ck
