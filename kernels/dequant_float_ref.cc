// Reference dequantizers of the plain float types.
#include <cstring>

#include "kernels/dequantize_ref.h"
#include "kernels/fp16.h"

namespace ck::ref {

void dequantize_f32(const void* src, float* out, int64_t n) {
  std::memcpy(out, src, static_cast<size_t>(n) * sizeof(float));
}

void dequantize_f16(const void* src, float* out, int64_t n) {
  const auto* h = static_cast<const uint16_t*>(src);
  for (int64_t i = 0; i < n; ++i) out[i] = fp16_to_fp32(h[i]);
}

void dequantize_bf16(const void* src, float* out, int64_t n) {
  const auto* b = static_cast<const uint16_t*>(src);
  for (int64_t i = 0; i < n; ++i) out[i] = bf16_to_fp32(b[i]);
}

}  // namespace ck::ref
