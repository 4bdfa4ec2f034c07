// Highway's portable fallback target: HWY_SCALAR under GCC before 12.3,
// whose EMU128 is miscompiled (hwy/detect_targets.h), and HWY_EMU128 under
// clang. Per-target code that uses x86 intrinsics or asm excludes both; the
// test is a macro so that it reads HWY_TARGET where it is used, once per
// target pass of the -inl.h files.
#ifndef CK_KERNELS_HWY_PORTABLE_H_
#define CK_KERNELS_HWY_PORTABLE_H_

#define CK_HWY_PORTABLE_TARGET (HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128)

#endif  // CK_KERNELS_HWY_PORTABLE_H_
