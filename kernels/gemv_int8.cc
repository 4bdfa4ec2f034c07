// The decode GEMV kernels of the 32-weight dtypes (gemv_int8-inl.h; the
// row-grouped ones: gemv_int8_rows16-inl.h), one set per Highway target, and
// their dispatch table (gemv_rows.h).
#include "kernels/gemv_rows.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gemv_int8.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/gemv-inl.h"
#include "kernels/gemv_int8-inl.h"
#include "kernels/gemv_int8_rows16-inl.h"

#define CK_GEMV_INT8_KERNELS(ENTRY)                                                                            \
  ENTRY(Q8_0, Int8Kernel<BlockQ8_0>) ENTRY(Q4_0, Int8Kernel<BlockQ4_0>) ENTRY(Q4_1, Int8Kernel<BlockQ4_1>)     \
  ENTRY(Q5_0, Int8Kernel<BlockQ5_0>) ENTRY(Q5_1, Int8Kernel<BlockQ5_1>) ENTRY(IQ4_NL, Int8Kernel<BlockIQ4_NL>) \
  ENTRY(Q5_0_L, Int8Kernel<BlockQ5_0L>) ENTRY(Q5_1_L, Int8Kernel<BlockQ5_1L>)                                 \
  ENTRY(Q8_0_R16, RowGroupKernel<BlockQ8_0>) ENTRY(Q4_0_R16, RowGroupKernel<BlockQ4_0>)                       \
  ENTRY(Q4_1_R16, RowGroupKernel<BlockQ4_1>) ENTRY(Q5_0_R16, RowGroupKernel<BlockQ5_0L>)                     \
  ENTRY(Q5_1_R16, RowGroupKernel<BlockQ5_1L>)

HWY_BEFORE_NAMESPACE();
namespace ck::qgemv::HWY_NAMESPACE {
CK_GEMV_INT8_KERNELS(CK_DEFINE_GEMV_ENTRY_POINT)
}  // namespace ck::qgemv::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ck::qgemv {
CK_DEFINE_GEMV_ROWS_FN(gemv_int8_rows_fn, CK_GEMV_INT8_KERNELS)
}  // namespace ck::qgemv
#endif  // HWY_ONCE
