// Reference dequantizers of the stored forms (unit_lanes.h): each block's
// permutation undone on a copy, then the plain dtype's reference.
#include "kernels/blocks.h"
#include "kernels/dequantize_ref.h"
#include "kernels/unit_lanes.h"

namespace ck::ref {
namespace {

template <class Block, int kWeights>
void dequantize_lanes(const void* src, float* out, int64_t n, void (*plain)(const void*, float*, int64_t)) {
  const auto* b = static_cast<const Block*>(src);
  for (int64_t k = 0; k < n / kWeights; ++k) {
    Block block = b[k];
    from_unit_lanes(&block, 1);
    plain(&block, out + k * kWeights, kWeights);
  }
}

}  // namespace

void dequantize_q4_kl(const void* src, float* out, int64_t n) {
  dequantize_lanes<BlockQ4_K, kQK_K>(src, out, n, dequantize_q4_k);
}
void dequantize_q5_kl(const void* src, float* out, int64_t n) {
  dequantize_lanes<BlockQ5_K, kQK_K>(src, out, n, dequantize_q5_k);
}
void dequantize_q6_kl(const void* src, float* out, int64_t n) {
  dequantize_lanes<BlockQ6_K, kQK_K>(src, out, n, dequantize_q6_k);
}
void dequantize_q5_0l(const void* src, float* out, int64_t n) {
  dequantize_lanes<BlockQ5_0, kQK>(src, out, n, dequantize_q5_0);
}
void dequantize_q5_1l(const void* src, float* out, int64_t n) {
  dequantize_lanes<BlockQ5_1, kQK>(src, out, n, dequantize_q5_1);
}

}  // namespace ck::ref
