// The dtype codes of the bump format and the traits table that drives every
// quant dispatch (block size, bytes, reference dequantize, native GEMV).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "kernels/decode_u8.h"

namespace ck {

// Codes written in the bump dtype table. 0, 1, 2, 6, 7 are fixed by the seed
// documents; the rest are ours. Only the native ones (traits(t).native: all
// of them since converter version 4) appear in a bump file; a type added
// without kernels would be transcoded at conversion.
enum class DType : uint8_t {
  F32 = 0, BF16 = 1, F16 = 2,
  Q4_0 = 3, Q4_1 = 4, Q5_0 = 5,
  Q4_K = 6, Q6_K = 7,
  Q8_0 = 8, Q5_1 = 9, Q2_K = 10, Q3_K = 11, Q5_K = 12, IQ4_NL = 13, IQ4_XS = 14,
  Q4_K_L = 15, Q5_K_L = 16,  // Q4_K / Q5_K with the units in the lanes (unit_lanes.h)
  Q6_K_L = 17,               // Q6_K with the sub-blocks in the lanes (unit_lanes.h)
  Q5_0_L = 18, Q5_1_L = 19,  // Q5_0 / Q5_1 with qh transposed (unit_lanes.h)
  Q8_0_R16 = 20, Q4_0_R16 = 21, Q4_1_R16 = 22,  // rows interleaved in groups of 16 (row_groups.h)
  Q5_0_R16 = 23, Q5_1_R16 = 24,                 // rows of Q5_0_L / Q5_1_L, the same
  Q4_K_R16 = 25, Q6_K_R16 = 26,                 // Q4_K's / Q6_K's rows (ggml's blocks), the same
};
inline constexpr int kDTypeCount = 27;

// ggml's type ids (GGUF tensor infos).
enum class GgmlType : uint32_t {
  F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q8_1 = 9,
  Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, Q8_K = 15, IQ4_NL = 20, IQ4_XS = 23, BF16 = 30,
  None = 0xFFFFFFFF,  // a bump dtype with no ggml type of its own
};

// Reference dequantization of n values (n a multiple of block_size).
using DequantizeFn = void (*)(const void* blocks, float* out, int64_t n);

struct DTypeTraits {
  DType dtype;
  GgmlType ggml_type;
  std::string_view name;     // "Q4_K", as ggml spells it
  int block_size;            // weights per block
  int block_bytes;           // bytes per block
  DequantizeFn dequantize;   // scalar reference, bit-exact with gguf-py
  bool native;               // has a fused GEMV kernel; otherwise transcoded at conversion
  // The integer GEMM's weight form (decode_u8.h; of a row-grouped dtype,
  // of a row as gather_row gives it): weights per (a, c) pair,
  // the largest u it produces (how many byte products may add up in int16
  // without overflow), and the decoder; 0 / null where the GEMM multiplies
  // in fp32 (F32, F16, BF16) or the dtype is not native.
  int u8_block;
  int u8_max;
  DecodeU8Fn decode_u8;
  // k where c = k * a in every block (Q4_0's -8, Q5_0's -16, Q6_K's -32,
  // Q8_0's and IQ4_NL's / IQ4_XS's -128), which lets the GEMM fold the c term into its x sums; NaN
  // where c is free (a minimum: Q4_1, Q5_1, Q4_K, Q5_K).
  float u8_offset;
  // u - 128 is the weight's signed q (Q8_0; IQ4_NL's and IQ4_XS's codebook value): the
  // pmaddubsw targets keep q signed instead of adding 128 (u8_max 255 would
  // leave no room for int16 sums): AVX3 moves the sign onto x, AVX2 and SSE
  // multiply int16 words (gemm_int8-inl.h).
  bool u8_signed;
  // Activations per int8 scale in the decode GEMV (gemv.cc): 32 as prefill
  // rounds them, or a whole super-block (256) for the K-quants whose
  // sub-block scales are integers, so that a super-block's byte products
  // add up in int32 and meet one float scale (gemv_int8_kquant-inl.h);
  // 0 where the GEMV multiplies in fp32.
  int gemv_x_block;
  // Rows interleaved per group (Q8_0_R16 and the like: 16; row_groups.h), 1 for the
  // dtypes whose rows are contiguous: a matrix has a multiple of it rows,
  // and the kernels take its rows a group at a time.
  int row_group = 1;
};

// The one table. Indexed by dtype code.
const DTypeTraits& traits(DType t);
std::optional<DType> dtype_from_code(uint8_t code);
std::optional<DType> dtype_from_ggml(uint32_t ggml_type);
// "F32, BF16, ...": the native dtypes in code order, for error messages.
std::string native_dtype_names();

// Row r of a matrix W of dtype t with `cols` columns, dequantized: whatever
// the layout (a row-grouped dtype's row gathered first).
void dequantize_row(DType t, const void* W, int64_t cols, int64_t r, float* out);

// Bytes of one row of n values; n must be a multiple of the block size.
inline size_t row_bytes(const DTypeTraits& t, int64_t n) {
  return static_cast<size_t>(n / t.block_size) * static_cast<size_t>(t.block_bytes);
}

}  // namespace ck
