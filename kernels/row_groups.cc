#include "kernels/row_groups.h"

#include <cstring>
#include <vector>

namespace ck {
namespace {

// Calls piece(plain_offset, column_offset, bytes) for each piece of row i's
// block: its header fields and words, in the plain block and in the block
// column of its group (row_groups.h).
template <class Piece>
void for_each_piece(const RowGroupLayout& L, int64_t i, const Piece& piece) {
  for (int f = 0; f < L.fields(); ++f) piece(L.header_at + 2 * f, L.field_at(f, static_cast<int>(i)), 2);
  for (int j = 0; j < L.words(); ++j) piece(L.words_at() + 4 * j, L.word_at(j, static_cast<int>(i)), 4);
}

size_t group_bytes(const RowGroupLayout& L, int64_t cols) {
  return static_cast<size_t>(cols / L.block_weights) * L.column_bytes();
}

}  // namespace

void to_row_groups(DType grouped, const uint8_t* plain, int64_t rows, int64_t cols, uint8_t* out) {
  const RowGroupLayout L = row_group_layout(grouped);
  const int64_t nb = cols / L.block_weights;
  for (int64_t r = 0; r < rows; ++r) {
    uint8_t* group = out + static_cast<size_t>(r / kRowGroup) * group_bytes(L, cols);
    for (int64_t k = 0; k < nb; ++k) {
      const uint8_t* b = plain + static_cast<size_t>(r * nb + k) * L.block_bytes;
      uint8_t* column = group + static_cast<size_t>(k) * L.column_bytes();
      for_each_piece(L, r % kRowGroup, [&](int p, int c, size_t n) { std::memcpy(column + c, b + p, n); });
    }
  }
}

void gather_row(DType grouped, const uint8_t* W, int64_t cols, int64_t r, uint8_t* out) {
  const RowGroupLayout L = row_group_layout(grouped);
  const uint8_t* group = W + static_cast<size_t>(r / kRowGroup) * group_bytes(L, cols);
  for (int64_t k = 0; k < cols / L.block_weights; ++k) {
    uint8_t* b = out + static_cast<size_t>(k) * L.block_bytes;
    const uint8_t* column = group + static_cast<size_t>(k) * L.column_bytes();
    for_each_piece(L, r % kRowGroup, [&](int p, int c, size_t n) { std::memcpy(b + p, column + c, n); });
  }
}

const uint8_t* gathered_row(DType grouped, const uint8_t* W, int64_t cols, int64_t r) {
  thread_local std::vector<uint8_t> row;
  const RowGroupLayout L = row_group_layout(grouped);
  row.resize(static_cast<size_t>(cols / L.block_weights) * L.block_bytes);
  gather_row(grouped, W, cols, r, row.data());
  return row.data();
}

}  // namespace ck
