// Scalar reference dequantizers: the definition every fast kernel is tested
// against. Each is bit-exact with the gguf Python package's dequantize (same
// products, same rounding order), which is why their files are compiled with
// -ffp-contract=off. `n` is a multiple of the type's block size.
#pragma once
#include <cstdint>

namespace ck::ref {

void dequantize_f32(const void* src, float* out, int64_t n);
void dequantize_f16(const void* src, float* out, int64_t n);
void dequantize_bf16(const void* src, float* out, int64_t n);

void dequantize_q4_0(const void* src, float* out, int64_t n);
void dequantize_q4_1(const void* src, float* out, int64_t n);
void dequantize_q5_0(const void* src, float* out, int64_t n);
void dequantize_q5_1(const void* src, float* out, int64_t n);
// Q5_0_L / Q5_1_L (unit_lanes.h): qh transposed back, then Q5_0 / Q5_1.
void dequantize_q5_0l(const void* src, float* out, int64_t n);
void dequantize_q5_1l(const void* src, float* out, int64_t n);
void dequantize_q8_0(const void* src, float* out, int64_t n);
void dequantize_iq4_nl(const void* src, float* out, int64_t n);
void dequantize_iq4_xs(const void* src, float* out, int64_t n);

void dequantize_q2_k(const void* src, float* out, int64_t n);
void dequantize_q3_k(const void* src, float* out, int64_t n);
void dequantize_q4_k(const void* src, float* out, int64_t n);
void dequantize_q5_k(const void* src, float* out, int64_t n);
// Q4_K_L / Q5_K_L / Q6_K_L (unit_lanes.h): the permutation undone, then
// Q4_K / Q5_K / Q6_K.
void dequantize_q4_kl(const void* src, float* out, int64_t n);
void dequantize_q5_kl(const void* src, float* out, int64_t n);
void dequantize_q6_kl(const void* src, float* out, int64_t n);
void dequantize_q6_k(const void* src, float* out, int64_t n);

}  // namespace ck::ref
