#include "loader/ggml_type_name.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "kernels/dtype.h"

namespace ck {
namespace {

// ggml.h's enum ggml_type; empty strings are ids removed from ggml.
constexpr std::array<std::string_view, 40> kNames = {
    "F32",     "F16",    "Q4_0",    "Q4_1",   "",       "",       "Q5_0",    "Q5_1",   "Q8_0",  "Q8_1",
    "Q2_K",    "Q3_K",   "Q4_K",    "Q5_K",   "Q6_K",   "Q8_K",   "IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S",
    "IQ4_NL",  "IQ3_S",  "IQ2_S",   "IQ4_XS", "I8",     "I16",    "I32",     "I64",    "F64",   "IQ1_M",
    "BF16",    "",       "",        "",       "TQ1_0",  "TQ2_0",  "",        "",       "",      "MXFP4",
};

}  // namespace

std::string ggml_type_name(uint32_t ggml_type) {
  return ggml_type < kNames.size() ? std::string(kNames[ggml_type]) : std::string();
}

std::string readable_ggml_type_names() {
  std::vector<uint32_t> ids;
  for (int code = 0; code < kDTypeCount; ++code) {
    const auto dt = dtype_from_code(static_cast<uint8_t>(code));
    if (dt && traits(*dt).ggml_type != GgmlType::None) {  // not the bump-only layouts
      ids.push_back(static_cast<uint32_t>(traits(*dt).ggml_type));
    }
  }
  std::sort(ids.begin(), ids.end());
  std::string out;
  for (uint32_t id : ids) out += (out.empty() ? "" : ", ") + ggml_type_name(id);
  return out;
}

}  // namespace ck
