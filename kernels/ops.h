// The model-agnostic ops of a transformer forward pass, besides the matrix
// products of gemv.h and of attention (attention.h): RMSNorm, softmax,
// SiLU-gated product, RoPE, residual add. Single-threaded: the
// caller parallelizes over heads or tokens. The row-wise loops run through
// Highway's runtime dispatch (ops-inl.h); the rest is O(dim) per token.
#pragma once
#include <cstdint>
#include <vector>

namespace ck {

// out[i] = x[i] / sqrt(mean(x^2) + eps) * weight[i]. out may alias x.
void rmsnorm(float* out, const float* x, const float* weight, int64_t n, float eps);

// x[i] = exp(x[i] - max x), in place, n >= 1: a softmax's numerators (the
// max shift keeps exp from overflowing). Returns that maximum and the sum
// of the numerators: the caller divides by it where it is cheaper
// (attention: once per output value instead of once per key), and the
// pair merges softmaxes of parts of a row (attention's key shares).
struct SoftmaxSums {
  float max, sum;
};
SoftmaxSums softmax_numerators(float* x, int64_t n);

// out[i] = silu(gate[i]) * up[i], silu(g) = g / (1 + exp(-g)). out may alias gate.
void silu_mul(float* out, const float* gate, const float* up, int64_t n);

// out[i] = gelu(gate[i]) * up[i] with GELU's tanh approximation,
// gelu(g) = g/2 (1 + tanh(sqrt(2/pi) (g + 0.044715 g^3))) (GeGLU). out may alias gate.
void gelu_tanh_mul(float* out, const float* gate, const float* up, int64_t n);

// x[i] += y[i]
void add(float* x, const float* y, int64_t n);

// Rotary position embedding with precomputed cos/sin tables.
// Pair i (i < rope_dim/2) of position p is rotated by the angle
// p * scale * base^(-2i/rope_dim) / divisors[i], and cos and sin are
// multiplied by magnitude.
struct RopeSpec {
  float base = 10000.0f;
  float scale = 1.0f;               // linear RoPE scaling: 1 / factor
  const float* divisors = nullptr;  // rope_dim/2 per-frequency factors (Llama 3.1 rope_freqs, LongRoPE); null: all 1
  float magnitude = 1.0f;           // LongRoPE's attention factor
};

class RopeTable {
 public:
  RopeTable(int64_t n_positions, int rope_dim, const RopeSpec& spec);
  int rope_dim() const { return rope_dim_; }
  int64_t n_positions() const { return n_positions_; }
  const float* cos(int64_t pos) const { return cos_.data() + pos * (rope_dim_ / 2); }
  const float* sin(int64_t pos) const { return sin_.data() + pos * (rope_dim_ / 2); }

 private:
  int64_t n_positions_;
  int rope_dim_;
  std::vector<float> cos_, sin_;  // [n_positions][rope_dim / 2]
};

// Rotates the first rope_dim dims of each of n_heads heads (head_dim apart) of
// x at position pos. neox = false pairs dims (2i, 2i+1) (llama files);
// neox = true pairs (i, i + rope_dim/2) (qwen2 and others). Dims past
// rope_dim are left alone.
void rope(float* x, int n_heads, int head_dim, const RopeTable& table, int64_t pos, bool neox);

}  // namespace ck
