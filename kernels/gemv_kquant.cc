// The decode GEMV kernels of the K-quants and IQ4_XS
// (gemv_int8_kquant-inl.h; Q4_K, Q5_K and Q6_K on the AVX-512 targets:
// gemv_int8_kquant_avx512-inl.h; Q4_K_R16: gemv_int8_kquant_rows16-inl.h;
// Q6_K_R16: gemv_int8_q6k_rows16-inl.h),
// one set per Highway target, and their dispatch table (gemv_rows.h).
#include "kernels/gemv_rows.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gemv_kquant.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/gemv-inl.h"
#include "kernels/gemv_int8-inl.h"
#include "kernels/gemv_int8_kquant-inl.h"
#include "kernels/gemv_int8_kquant_avx512-inl.h"
#include "kernels/gemv_int8_rows16-inl.h"
#include "kernels/gemv_int8_kquant_rows16-inl.h"
#include "kernels/gemv_int8_q6k_rows16-inl.h"

#define CK_GEMV_KQUANT_KERNELS(ENTRY)                                                                           \
  ENTRY(Q4_K, Q45_KKernel<BlockQ4_K>) ENTRY(Q5_K, Q45_KKernel<BlockQ5_K>) ENTRY(Q6_K, Q6_KKernel)               \
  ENTRY(Q4_K_L, Q45_KLanesKernel<BlockQ4_KL>) ENTRY(Q5_K_L, Q45_KLanesKernel<BlockQ5_KL>)                     \
  ENTRY(Q6_K_L, Q6_KLanesKernel) ENTRY(Q4_K_R16, RowGroupKernel<BlockQ4_K>)                                      \
  ENTRY(Q6_K_R16, RowGroupKernel<BlockQ6_K>)                                                                    \
  ENTRY(Q2_K, Scaled16Kernel<BlockQ2_K>) ENTRY(Q3_K, Scaled16Kernel<BlockQ3_K>) ENTRY(IQ4_XS, IQ4_XSInt8Kernel)

HWY_BEFORE_NAMESPACE();
namespace ck::qgemv::HWY_NAMESPACE {
CK_GEMV_KQUANT_KERNELS(CK_DEFINE_GEMV_ENTRY_POINT)
}  // namespace ck::qgemv::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ck::qgemv {
CK_DEFINE_GEMV_ROWS_FN(gemv_kquant_rows_fn, CK_GEMV_KQUANT_KERNELS)
}  // namespace ck::qgemv
#endif  // HWY_ONCE
