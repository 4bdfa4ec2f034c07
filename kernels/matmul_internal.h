// What gemv.cc and gemm.cc share and nobody else needs.
#pragma once
#include <cstdint>

#include "kernels/dtype.h"
#include "kernels/team.h"

namespace ck {

// Throws std::runtime_error (naming `fn`) unless dt has a kernel and cols is
// a positive multiple of its block size.
void check_matrix_args(DType dt, int64_t rows, int64_t cols, const char* fn);

// Below this many multiply-adds a product is done by the calling thread:
// waking the team costs more than the work (stories260K-sized matrices).
inline constexpr int64_t kMinParallelWeights = 1 << 15;

// The team size of a standalone product of `work` multiply-adds.
int threads_for(int64_t work);

// The GEMM of F32, F16 and BF16 weights (fp32 arithmetic on decoded tiles);
// the quantized dtypes go through the integer GEMM of gemm.cc.
// Called by every thread of the team; ends with a barrier.
void gemm_float(Team& team, DType dt, const void* W, int64_t rows, int64_t cols, const float* X, int64_t n, float* Y);

// One row x (cols, a multiple of `width`) rounded to int8 per `width`
// values (32 as the integer GEMM rounds it, or 256 for the K-quants'
// decode; gemm_int8-inl.h, QuantizeRowInt8): q, the scales and the sums of
// the rounded values per 16 and per 32; `residual` (if not null) gets the
// rounding error of the spiky blocks (kInt8SpikeRatio, per 256
// kInt8SpikeRatioSuperBlock) and zeros elsewhere.
// Returns whether any block was spiky.
bool quantize_row_int8(const float* x, int64_t cols, int64_t width, int8_t* q, float* scale, float* sum16,
                       float* sum32, float* residual);

}  // namespace ck
