// Fused dequant matrix-vector (decode) and matrix-matrix (prefill) products
// that read the quantized weights in place. Native dtypes: F32, F16, BF16,
// Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS; anything
// else, or cols not a multiple of the block size, throws std::runtime_error. Activations and results are fp32;
// the products with block-quantized weights see the activations rounded to
// int8 per 32 values with a second pass on spiky blocks (x ~ q * max|x|/127,
// kInt8SpikeRatio), in gemv and gemm alike, except the K-quants' gemv
// (Q2_K..Q6_K), which rounds per 256 (DTypeTraits::gemv_x_block,
// kInt8SpikeRatioSuperBlock; docs/kernels.md).
#pragma once
#include <cstdint>
#include <span>

#include "kernels/dtype.h"
#include "kernels/team.h"

namespace ck {

// Blocks of 32 activations whose largest |x| exceeds this many times the
// RMS of their row get a second int8 pass (their rounding error,
// rounded again), so the massive activations of real models keep ~15-bit
// precision where int8 loses the most; docs/kernels.md has the measurements
// that chose 16 (KL divergence half of plain int8's, at 7 % of its time).
inline constexpr float kInt8SpikeRatio = 16.0f;
// The same for the decode GEMV's super-blocks of 256 activations (the
// K-quants, DTypeTraits::gemv_x_block): one spike now coarsens the scale of
// 255 other values, not 31. At 16 SmolLM2 Q4_K_M's decode had a mean KL
// divergence of 0.0030 against exact activations (per 32: 0.0020); at 8
// 0.0020 again, for 2-3 % of TinyLlama-shaped decode; at 4 0.0016, for 10 %
// (docs/kernels.md, session 12).
inline constexpr float kInt8SpikeRatioSuperBlock = 8.0f;

// y[r] = dot(row r of W, x) for r < rows. Row r starts at
// W + r * row_bytes(traits(dt), cols). Rows are split over the threads.
//
// Each product comes in two forms: the one without a Team checks its
// arguments and runs on a team of its own (omp_get_max_threads() threads,
// or the caller alone for a small product); the one with a Team is called
// by every thread of a running team (forward.cc), takes arguments already
// checked (at model load), and returns after a barrier, the results
// complete.
void gemv(DType dt, const void* W, int64_t rows, int64_t cols, const float* x, float* y);

// One matrix of a gemv_multi call, y[r] = dot(row r of W, x), or of a
// gemm_multi call, y[t * rows + r] = dot(row r of W, X + t * cols).
struct GemvOutput {
  DType dtype;
  const void* W;
  int64_t rows;
  float* y;
};

// Several matrices against the same x (Q, K and V, possibly of different
// dtypes and row counts) in one parallel region: each thread takes its share
// of every matrix, so the work is balanced by bytes whatever the mix.
void gemv_multi(std::span<const GemvOutput> outputs, int64_t cols, const float* x);

// Y[t * rows + r] = dot(row r of W, X + t * cols) for t < n, with gemv's
// kernels and rounding: each block of weights is read and decoded into
// registers once and multiplied with up to four of the vectors. For a few
// vectors (several sequences decoding together) this is faster than gemm,
// which first decodes whole tiles to bytes; every Y row equals gemv's for
// that vector bit for bit.
void gemv_batch(std::span<const GemvOutput> outputs, int64_t cols, const float* X, int64_t n);
// With a team: called by every thread, ends at a barrier that runs `last`.
void gemv_batch(Team& team, std::span<const GemvOutput> outputs, int64_t cols, const float* X, int64_t n,
                Team::Last last = {});

// gemm and gemm_multi of at most this many activation rows run gemv_batch
// (measured on SmolLM2 Q4_1, docs/server.md).
inline constexpr int64_t kGemvBatchMax = 8;

// Y[t * rows + r] = dot(row r of W, X + t * cols) for t < n (prefill). Each
// tile of rows is decoded once and used for all n activations. F32, F16 and
// BF16 weights multiply in fp32; the block-quantized ones multiply integers
// (kernels/gemm_int8-inl.h): X rounded to int8 per 32 values (x ~ q *
// max|x|/127), and a second int8 pass over the rounding error of every
// block whose largest |x| exceeds kInt8SpikeRatio times its row's RMS.
void gemm(DType dt, const void* W, int64_t rows, int64_t cols, const float* X, int64_t n, float* Y);

// Several matrices against the same n activation rows (Q, K and V) in one
// parallel region: X is quantized once for all of them and the tiles of
// every matrix are handed out from one list.
void gemm_multi(std::span<const GemvOutput> outputs, int64_t cols, const float* X, int64_t n);
// With a team: called by every thread, ends at a barrier that runs `last`.
void gemm_multi(Team& team, std::span<const GemvOutput> outputs, int64_t cols, const float* X, int64_t n,
                Team::Last last = {});

}  // namespace ck
