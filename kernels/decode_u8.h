// Block-quantized rows as unsigned bytes plus an affine map per block:
// w[i] = a[b] * u[i] + c[b] for i in block b of u8_block (16 or 32) weights.
// This is the weight form of the integer GEMM (kernels/gemm_int8-inl.h):
// sum w*x = a * sum(u * xq) * xs + c * (sum of the rounded x), so one
// unsigned-by-signed byte dot product (vpdpbusd, pmaddubsw) serves every
// dtype. u <= 63 for every dtype but Q8_0, IQ4_NL and IQ4_XS, whose u = q +
// 128 (c = -128 a; q the signed byte or codebook value).
#pragma once
#include <cstdint>

namespace ck {

// n is a multiple of the dtype's block size; a and c get n / u8_block entries.
using DecodeU8Fn = void (*)(const void* blocks, int64_t n, uint8_t* u, float* a, float* c);

void decode_u8_q4_0(const void* blocks, int64_t n, uint8_t* u, float* a, float* c);
void decode_u8_q4_1(const void* blocks, int64_t n, uint8_t* u, float* a, float* c);
void decode_u8_q5_0(const void* blocks, int64_t n, uint8_t* u, float* a, float* c);
void decode_u8_q5_1(const void* blocks, int64_t n, uint8_t* u, float* a, float* c);
// Q5_0_L / Q5_1_L (unit_lanes.h): u in the weights' own order, as Q5_0 / Q5_1.
void decode_u8_q5_0l(const void* blocks, int64_t n, uint8_t* u, float* a, float* c);
void decode_u8_q5_1l(const void* blocks, int64_t n, uint8_t* u, float* a, float* c);
void decode_u8_q8_0(const void* blocks, int64_t n, uint8_t* u, float* a, float* c);
void decode_u8_iq4_nl(const void* blocks, int64_t n, uint8_t* u, float* a, float* c);
void decode_u8_iq4_xs(const void* blocks, int64_t n, uint8_t* u, float* a, float* c);
void decode_u8_q2_k(const void* blocks, int64_t n, uint8_t* u, float* a, float* c);
void decode_u8_q3_k(const void* blocks, int64_t n, uint8_t* u, float* a, float* c);
void decode_u8_q4_k(const void* blocks, int64_t n, uint8_t* u, float* a, float* c);
void decode_u8_q5_k(const void* blocks, int64_t n, uint8_t* u, float* a, float* c);
// Q4_K_L / Q5_K_L / Q6_K_L (unit_lanes.h): u in the weights' own order, as
// Q4_K / Q5_K / Q6_K.
void decode_u8_q4_kl(const void* blocks, int64_t n, uint8_t* u, float* a, float* c);
void decode_u8_q5_kl(const void* blocks, int64_t n, uint8_t* u, float* a, float* c);
void decode_u8_q6_kl(const void* blocks, int64_t n, uint8_t* u, float* a, float* c);
void decode_u8_q6_k(const void* blocks, int64_t n, uint8_t* u, float* a, float* c);

}  // namespace ck
