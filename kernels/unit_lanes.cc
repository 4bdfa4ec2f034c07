#include "kernels/unit_lanes.h"

#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/row_groups.h"

namespace ck {
namespace {

// Unit j's weight p as a (byte, shift) of the two layouts' qs.
struct Nibble {
  int byte, shift;
};
Nibble ggml_nibble(int j, int p) { return {32 * (j / 2) + p, 4 * (j % 2)}; }
Nibble lanes_nibble(int j, int p) { return {32 * ((p % 16) / 4) + 4 * j + p % 4, 4 * (p / 16)}; }
// Bit of Q5_K's qh: (byte, bit).
Nibble ggml_high_bit(int j, int p) { return {p, j}; }
Nibble lanes_high_bit(int j, int p) { return {4 * j + p % 4, 2 * ((p % 16) / 4) + p / 16}; }
// Q6_K's low four bits (ql) and top two (qh); its lanes form keeps the low
// four where Q4_K_L keeps its nibbles.
Nibble ggml_q6_low(int j, int p) { return {64 * (j / 4) + 32 * (j % 2) + p, 4 * ((j % 4) / 2)}; }
Nibble ggml_q6_high(int j, int p) { return {32 * (j / 4) + p, 2 * (j % 4)}; }
Nibble lanes_q6_high(int j, int p) {
  const int i = (p % 16) / 4;
  return {32 * (i / 2) + 4 * j + p % 4, 2 * (i % 2) + 4 * (p / 16)};
}

// dst gets, for every unit j and weight p, the width-bit field of src at
// from(j, p), placed at to(j, p).
template <size_t kBytes, class From, class To>
void move_fields(const uint8_t (&src)[kBytes], uint8_t (&dst)[kBytes], int width, From from, To to) {
  uint8_t out[kBytes] = {};
  const int mask = (1 << width) - 1;
  for (int j = 0; j < 8; ++j) {
    for (int p = 0; p < 32; ++p) {
      const Nibble f = from(j, p), t = to(j, p);
      out[t.byte] = static_cast<uint8_t>(out[t.byte] | ((src[f.byte] >> f.shift) & mask) << t.shift);
    }
  }
  std::memcpy(dst, out, kBytes);
}

using Field = Nibble (*)(int, int);

template <bool kToLanes>
void permute_q6(BlockQ6_K* blocks, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    BlockQ6_K& b = blocks[k];
    move_fields(b.ql, b.ql, 4, kToLanes ? ggml_q6_low : lanes_nibble, kToLanes ? lanes_nibble : ggml_q6_low);
    move_fields(b.qh, b.qh, 2, kToLanes ? ggml_q6_high : lanes_q6_high, kToLanes ? lanes_q6_high : ggml_q6_high);
    int8_t scales[16];
    for (int s = 0; s < 16; ++s) {
      const int lanes = 8 * (s % 2) + s / 2;  // the even sub-blocks' scales, then the odd ones'
      scales[kToLanes ? lanes : s] = b.scales[kToLanes ? s : lanes];
    }
    std::memcpy(b.scales, scales, sizeof scales);
  }
}

template <class Block, bool kToLanes>
void permute(Block* blocks, int64_t n) {
  const Field nibble_from = kToLanes ? ggml_nibble : lanes_nibble, nibble_to = kToLanes ? lanes_nibble : ggml_nibble;
  const Field bit_from = kToLanes ? ggml_high_bit : lanes_high_bit, bit_to = kToLanes ? lanes_high_bit : ggml_high_bit;
  for (int64_t k = 0; k < n; ++k) {
    move_fields(blocks[k].qs, blocks[k].qs, 4, nibble_from, nibble_to);
    if constexpr (std::is_same_v<Block, BlockQ5_K>) move_fields(blocks[k].qh, blocks[k].qh, 1, bit_from, bit_to);
  }
}

// Q5_0 / Q5_1: weight j's fifth bit from bit j of the u32 qh to bit
// q5_lanes_bit(j), or back.
template <class Block, bool kToLanes>
void transpose_high_bits(Block* blocks, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    uint32_t from, to = 0;
    std::memcpy(&from, blocks[k].qh, 4);
    for (int j = 0; j < 32; ++j) {
      const int lanes = q5_lanes_bit(j);
      to |= ((from >> (kToLanes ? j : lanes)) & 1u) << (kToLanes ? lanes : j);
    }
    std::memcpy(blocks[k].qh, &to, 4);
  }
}

}  // namespace

void to_unit_lanes(BlockQ5_0* blocks, int64_t n) { transpose_high_bits<BlockQ5_0, true>(blocks, n); }
void to_unit_lanes(BlockQ5_1* blocks, int64_t n) { transpose_high_bits<BlockQ5_1, true>(blocks, n); }
void from_unit_lanes(BlockQ5_0* blocks, int64_t n) { transpose_high_bits<BlockQ5_0, false>(blocks, n); }
void from_unit_lanes(BlockQ5_1* blocks, int64_t n) { transpose_high_bits<BlockQ5_1, false>(blocks, n); }
void to_unit_lanes(BlockQ4_K* blocks, int64_t n) { permute<BlockQ4_K, true>(blocks, n); }
void to_unit_lanes(BlockQ5_K* blocks, int64_t n) { permute<BlockQ5_K, true>(blocks, n); }
void from_unit_lanes(BlockQ4_K* blocks, int64_t n) { permute<BlockQ4_K, false>(blocks, n); }
void from_unit_lanes(BlockQ5_K* blocks, int64_t n) { permute<BlockQ5_K, false>(blocks, n); }
void to_unit_lanes(BlockQ6_K* blocks, int64_t n) { permute_q6<true>(blocks, n); }
void from_unit_lanes(BlockQ6_K* blocks, int64_t n) { permute_q6<false>(blocks, n); }

DType stored_form(DType t, int64_t rows) {
  switch (t) {
    case DType::Q8_0: return rows % kRowGroup == 0 ? DType::Q8_0_R16 : t;
    case DType::Q4_0: return rows % kRowGroup == 0 ? DType::Q4_0_R16 : t;
    case DType::Q4_1: return rows % kRowGroup == 0 ? DType::Q4_1_R16 : t;
    case DType::Q4_K: return rows % kRowGroup == 0 ? DType::Q4_K_R16 : DType::Q4_K_L;
    case DType::Q5_K: return DType::Q5_K_L;
    case DType::Q6_K: return rows % kRowGroup == 0 ? DType::Q6_K_R16 : DType::Q6_K_L;
    case DType::Q5_0: return rows % kRowGroup == 0 ? DType::Q5_0_R16 : DType::Q5_0_L;
    case DType::Q5_1: return rows % kRowGroup == 0 ? DType::Q5_1_R16 : DType::Q5_1_L;
    default: return t;
  }
}

DType plain_form(DType t) {
  switch (t) {
    case DType::Q4_K_L: return DType::Q4_K;
    case DType::Q5_K_L: return DType::Q5_K;
    case DType::Q6_K_L: return DType::Q6_K;
    case DType::Q5_0_L: return DType::Q5_0;
    case DType::Q5_1_L: return DType::Q5_1;
    case DType::Q8_0_R16:
    case DType::Q4_0_R16:
    case DType::Q4_1_R16:
    case DType::Q5_0_R16:
    case DType::Q5_1_R16:
    case DType::Q4_K_R16:
    case DType::Q6_K_R16: return plain_form(row_group_layout(t).plain);
    default: return t;
  }
}

void to_stored_form(DType t, uint8_t* blocks, int64_t n) {
  if (t == DType::Q4_K) to_unit_lanes(reinterpret_cast<BlockQ4_K*>(blocks), n);
  if (t == DType::Q5_K) to_unit_lanes(reinterpret_cast<BlockQ5_K*>(blocks), n);
  if (t == DType::Q6_K) to_unit_lanes(reinterpret_cast<BlockQ6_K*>(blocks), n);
  if (t == DType::Q5_0) to_unit_lanes(reinterpret_cast<BlockQ5_0*>(blocks), n);
  if (t == DType::Q5_1) to_unit_lanes(reinterpret_cast<BlockQ5_1*>(blocks), n);
}

void to_stored_rows(DType stored, uint8_t* bytes, int64_t rows, int64_t cols) {
  const DType plain = plain_form(stored);
  if (plain == stored) return;
  const DTypeTraits& t = traits(plain);
  const bool grouped = traits(stored).row_group > 1;
  // The blocks' own form: a grouped dtype's rows are Q5_0_L / Q5_1_L, or
  // ggml's blocks as they are (Q8_0, Q4_0, Q4_1, Q4_K, Q6_K).
  if ((grouped ? row_group_layout(stored).plain : stored) != plain) {
    to_stored_form(plain, bytes, rows * (cols / t.block_size));
  }
  if (grouped) {
    const std::vector<uint8_t> blocks(bytes, bytes + row_bytes(t, cols) * static_cast<size_t>(rows));
    to_row_groups(stored, blocks.data(), rows, cols, bytes);
  }
}

void unit_lanes_activations(const int8_t* x, int8_t* out, int64_t n) {
  for (int64_t k = 0; k < n; k += kQK_K) {
    for (int h = 0; h < 2; ++h)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 8; ++j) std::memcpy(out + k + 32 * (4 * h + i) + 4 * j, x + k + 32 * j + 16 * h + 4 * i, 4);
  }
}

}  // namespace ck
