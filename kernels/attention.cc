// Dispatch of attend_group into the per-target code of attention-inl.h.
#include "kernels/attention.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/attention.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/attention-inl.h"

#if HWY_ONCE
namespace ck {
namespace attn {
HWY_EXPORT(AttendGroup);
}  // namespace attn

void attend_group(const float* q, int64_t q_stride, int nq, const float* kt, int64_t kt_stride, const float* v,
                  int64_t n_keys, int head_dim, float scale, float* scores, float* out, int64_t out_stride) {
  HWY_DYNAMIC_DISPATCH(attn::AttendGroup)(q, q_stride, nq, kt, kt_stride, v, n_keys, head_dim, scale, scores, out,
                                          out_stride);
}

}  // namespace ck
#endif  // HWY_ONCE
