// A probe of the core's peak rate of byte multiply-adds, the yardstick of
// the prefill GEMM (as the read bandwidth is decode's): the integer GEMM's
// innermost instruction sequence with nothing else in the loop.
#pragma once

namespace ck {

// Byte multiply-adds per second (1e9) of `threads` OpenMP threads each
// running the selected SIMD target's byte dot product on registers alone:
// vpdpbusd (AVX3_DL), or pmaddubsw with the int16 add that accumulates its
// pair sums (AVX3, AVX2, SSE4, SSSE3), eight independent chains; the best of
// a few passes of a few tens of ms. 0 on the portable targets (no byte dot
// product: the GEMM multiplies lane by lane there).
double measure_int8_peak_gmacs(int threads);

// The instruction the probe timed, for reports ("vpdpbusd zmm").
const char* int8_peak_instruction();

}  // namespace ck
