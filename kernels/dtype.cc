// The dtype traits table: one row per bump dtype code.
#include "kernels/dtype.h"

#include <array>
#include <limits>

#include "kernels/dequantize_ref.h"
#include "kernels/row_groups.h"

namespace ck {
namespace {

using G = GgmlType;
constexpr float kFree = std::numeric_limits<float>::quiet_NaN();  // u8_offset where c is a minimum
constexpr std::array<DTypeTraits, kDTypeCount> kTable = {{
    {DType::F32, G::F32, "F32", 1, 4, ref::dequantize_f32, true, 0, 0, nullptr, kFree, false, 0},
    {DType::BF16, G::BF16, "BF16", 1, 2, ref::dequantize_bf16, true, 0, 0, nullptr, kFree, false, 0},
    {DType::F16, G::F16, "F16", 1, 2, ref::dequantize_f16, true, 0, 0, nullptr, kFree, false, 0},
    {DType::Q4_0, G::Q4_0, "Q4_0", 32, 18, ref::dequantize_q4_0, true, 32, 15, decode_u8_q4_0, -8.0f, false, 32},
    {DType::Q4_1, G::Q4_1, "Q4_1", 32, 20, ref::dequantize_q4_1, true, 32, 15, decode_u8_q4_1, kFree, false, 32},
    {DType::Q5_0, G::Q5_0, "Q5_0", 32, 22, ref::dequantize_q5_0, true, 32, 31, decode_u8_q5_0, -16.0f, false, 32},
    {DType::Q4_K, G::Q4_K, "Q4_K", 256, 144, ref::dequantize_q4_k, true, 32, 15, decode_u8_q4_k, kFree, false, 256},
    {DType::Q6_K, G::Q6_K, "Q6_K", 256, 210, ref::dequantize_q6_k, true, 16, 63, decode_u8_q6_k, -32.0f, false, 256},
    {DType::Q8_0, G::Q8_0, "Q8_0", 32, 34, ref::dequantize_q8_0, true, 32, 255, decode_u8_q8_0, -128.0f, true, 32},
    {DType::Q5_1, G::Q5_1, "Q5_1", 32, 24, ref::dequantize_q5_1, true, 32, 31, decode_u8_q5_1, kFree, false, 32},
    {DType::Q2_K, G::Q2_K, "Q2_K", 256, 84, ref::dequantize_q2_k, true, 16, 3, decode_u8_q2_k, kFree, false, 256},
    {DType::Q3_K, G::Q3_K, "Q3_K", 256, 110, ref::dequantize_q3_k, true, 16, 7, decode_u8_q3_k, -4.0f, false, 256},
    {DType::Q5_K, G::Q5_K, "Q5_K", 256, 176, ref::dequantize_q5_k, true, 32, 31, decode_u8_q5_k, kFree, false, 256},
    {DType::IQ4_NL, G::IQ4_NL, "IQ4_NL", 32, 18, ref::dequantize_iq4_nl, true, 32, 241, decode_u8_iq4_nl, -128.0f, true, 32},
    {DType::IQ4_XS, G::IQ4_XS, "IQ4_XS", 256, 136, ref::dequantize_iq4_xs, true, 32, 241, decode_u8_iq4_xs, -128.0f, true, 32},
    {DType::Q4_K_L, G::None, "Q4_K_L", 256, 144, ref::dequantize_q4_kl, true, 32, 15, decode_u8_q4_kl, kFree, false, 256},
    {DType::Q5_K_L, G::None, "Q5_K_L", 256, 176, ref::dequantize_q5_kl, true, 32, 31, decode_u8_q5_kl, kFree, false, 256},
    {DType::Q6_K_L, G::None, "Q6_K_L", 256, 210, ref::dequantize_q6_kl, true, 16, 63, decode_u8_q6_kl, -32.0f, false, 256},
    {DType::Q5_0_L, G::None, "Q5_0_L", 32, 22, ref::dequantize_q5_0l, true, 32, 31, decode_u8_q5_0l, -16.0f, false, 32},
    {DType::Q5_1_L, G::None, "Q5_1_L", 32, 24, ref::dequantize_q5_1l, true, 32, 31, decode_u8_q5_1l, kFree, false, 32},
    {DType::Q8_0_R16, G::None, "Q8_0_R16", 32, 34, ref::dequantize_q8_0, true, 32, 255, decode_u8_q8_0, -128.0f, true, 32, kRowGroup},
    {DType::Q4_0_R16, G::None, "Q4_0_R16", 32, 18, ref::dequantize_q4_0, true, 32, 15, decode_u8_q4_0, -8.0f, false, 32, kRowGroup},
    {DType::Q4_1_R16, G::None, "Q4_1_R16", 32, 20, ref::dequantize_q4_1, true, 32, 15, decode_u8_q4_1, kFree, false, 32, kRowGroup},
    {DType::Q5_0_R16, G::None, "Q5_0_R16", 32, 22, ref::dequantize_q5_0l, true, 32, 31, decode_u8_q5_0l, -16.0f, false, 32, kRowGroup},
    {DType::Q5_1_R16, G::None, "Q5_1_R16", 32, 24, ref::dequantize_q5_1l, true, 32, 31, decode_u8_q5_1l, kFree, false, 32, kRowGroup},
    {DType::Q4_K_R16, G::None, "Q4_K_R16", 256, 144, ref::dequantize_q4_k, true, 32, 15, decode_u8_q4_k, kFree, false, 256, kRowGroup},
    {DType::Q6_K_R16, G::None, "Q6_K_R16", 256, 210, ref::dequantize_q6_k, true, 16, 63, decode_u8_q6_k, -32.0f, false, 256, kRowGroup},
}};

constexpr bool table_is_indexed_by_code() {
  for (size_t i = 0; i < kTable.size(); ++i) {
    if (static_cast<size_t>(kTable[i].dtype) != i) return false;
  }
  return true;
}
static_assert(table_is_indexed_by_code(), "kTable row i must describe dtype code i");

}  // namespace

const DTypeTraits& traits(DType t) { return kTable[static_cast<size_t>(t)]; }

std::string native_dtype_names() {
  std::string names;
  for (const DTypeTraits& t : kTable) {
    if (t.native) names += (names.empty() ? "" : ", ") + std::string(t.name);
  }
  return names;
}

void dequantize_row(DType t, const void* W, int64_t cols, int64_t r, float* out) {
  const DTypeTraits& tr = traits(t);
  const auto* bytes = static_cast<const uint8_t*>(W);
  if (tr.row_group == 1) {
    tr.dequantize(bytes + static_cast<size_t>(r) * row_bytes(tr, cols), out, cols);
    return;
  }
  tr.dequantize(gathered_row(t, bytes, cols, r), out, cols);
}

std::optional<DType> dtype_from_code(uint8_t code) {
  if (code >= kTable.size()) return std::nullopt;
  return kTable[code].dtype;
}

std::optional<DType> dtype_from_ggml(uint32_t ggml_type) {
  for (const auto& row : kTable) {
    if (static_cast<uint32_t>(row.ggml_type) == ggml_type) return row.dtype;
  }
  return std::nullopt;
}

}  // namespace ck
