// KeepInRegister, per Highway target: re-included once per target by the
// -inl.h files that use it (the integer GEMM, the grouped-row GEMVs).
//
// Why: GCC reassociates a chain of integer vector adds (a block's or a
// sub-block's products summed into one int16 or int32 vector) into a tree
// that first computes every product, and with 16 vector registers most of
// them go to the stack, two memory operations each (the AVX2 GEMM; the
// AVX2 Q4_K_R16 GEMV ran 8-20 % slower in cache for it, docs/kernels.md
// "Session 54"). An empty asm that reads and writes the running sum in a
// register, after each add, is a point no add moves across; it emits no
// instruction.

#if defined(CK_KERNELS_KEEP_IN_REGISTER_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CK_KERNELS_KEEP_IN_REGISTER_INL_H_
#undef CK_KERNELS_KEEP_IN_REGISTER_INL_H_
#else
#define CK_KERNELS_KEEP_IN_REGISTER_INL_H_
#endif

#include <hwy/highway.h>

#include "kernels/hwy_portable.h"

HWY_BEFORE_NAMESPACE();
namespace ck::HWY_NAMESPACE {

// (The portable targets' vectors are arrays: nothing to pin.)
template <class V>
HWY_INLINE void KeepInRegister(V& v) {
#if CK_HWY_PORTABLE_TARGET
  (void)v;
#elif HWY_TARGET <= HWY_AVX3
  asm("" : "+v"(v.raw));
#else
  asm("" : "+x"(v.raw));
#endif
}

}  // namespace ck::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CK_KERNELS_KEEP_IN_REGISTER_INL_H_
