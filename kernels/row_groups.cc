#include "kernels/row_groups.h"

#include <cstring>
#include <vector>

#include "kernels/blocks.h"

namespace ck {
namespace {

// Where block k of row i (of its group) keeps its scale and quad j.
size_t scale_at(int64_t k, int64_t i) { return static_cast<size_t>(k * kRowGroupBlock + 2 * i); }
size_t quad_at(int64_t k, int64_t i, int j) {
  return static_cast<size_t>(k * kRowGroupBlock + kRowGroupScales + kRowGroupQuad * j + 4 * i);
}

}  // namespace

void to_row_groups(const uint8_t* plain, int64_t rows, int64_t cols, uint8_t* out) {
  const int64_t nb = cols / kQK;
  const size_t group_bytes = static_cast<size_t>(nb) * kRowGroupBlock;
  for (int64_t r = 0; r < rows; ++r) {
    uint8_t* group = out + static_cast<size_t>(r / kRowGroup) * group_bytes;
    const int64_t i = r % kRowGroup;
    for (int64_t k = 0; k < nb; ++k) {
      const uint8_t* b = plain + static_cast<size_t>(r * nb + k) * sizeof(BlockQ8_0);
      std::memcpy(group + scale_at(k, i), b, 2);
      for (int j = 0; j < 8; ++j) std::memcpy(group + quad_at(k, i, j), b + 2 + 4 * j, 4);
    }
  }
}

void gather_row(const uint8_t* grouped, int64_t cols, int64_t r, uint8_t* out) {
  const int64_t nb = cols / kQK;
  const uint8_t* group = grouped + static_cast<size_t>(r / kRowGroup) * static_cast<size_t>(nb) * kRowGroupBlock;
  const int64_t i = r % kRowGroup;
  for (int64_t k = 0; k < nb; ++k) {
    uint8_t* b = out + static_cast<size_t>(k) * sizeof(BlockQ8_0);
    std::memcpy(b, group + scale_at(k, i), 2);
    for (int j = 0; j < 8; ++j) std::memcpy(b + 2 + 4 * j, group + quad_at(k, i, j), 4);
  }
}

const uint8_t* gathered_row(const uint8_t* grouped, int64_t cols, int64_t r) {
  thread_local std::vector<uint8_t> row;
  row.resize(static_cast<size_t>(cols / kQK) * sizeof(BlockQ8_0));
  gather_row(grouped, cols, r, row.data());
  return row.data();
}

}  // namespace ck
