// The weights as the forward pass sees them: views into the mapped bump
// arena (no copies), checked once against the config so that forward() can
// trust every shape and dtype.
#pragma once
#include <vector>

#include "loader/bump_file.h"
#include "loader/model_config.h"

namespace ck {

struct Weights {
  TensorView token_embd;          // (vocab, dim), any dtype with a dequantizer: one row per token
  TensorView output_norm;         // (dim) F32
  TensorView output;              // (vocab, dim); the embedding when tied
  TensorView rope_freqs;          // (rope_dim / 2) F32 when config.rope_freqs, else empty
  TensorView rope_factors_long, rope_factors_short;  // (rope_dim / 2) F32 when config.longrope, else empty
  std::vector<LayerView> layers;  // n_layers blocks:
  //   attn_norm, ffn_norm (dim) F32
  //   wq (q_dim, dim), wk/wv (kv_dim, dim), wo (dim, q_dim)
  //   bq (q_dim), bk/bv (kv_dim) F32 when config.qkv_bias, else empty
  //   w_gate_up (2 * ffn_dim, dim): gate rows then up rows; w_down (dim, ffn_dim)
  //   q_norm, k_norm (head_dim) F32 when config.qk_norm, else empty
  //   post_attn_norm, post_ffn_norm (dim) F32 when config.post_norms, else empty
};

// Views of `file`'s tensors, validated against file.config(): throws naming
// the tensor and the expected shape or dtype, and refuses biases the runtime
// does not apply (bo, b1, b2).
Weights weights_from_bump(const BumpFile& file);

}  // namespace ck
