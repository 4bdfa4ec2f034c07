// The hyper-parameters the runtime needs, read from GGUF-style metadata
// ({arch}.* keys, plus ck.* keys in bump files) and validated once, here.
// What differs between architectures is data: the fields below the
// "architecture options" line, which the one forward pass reads.
#pragma once
#include <cstdint>
#include <string>

#include "loader/metadata.h"

namespace ck {

// The gate activation of the gated feed-forward block.
enum class FfnActivation {
  SiLU,      // SwiGLU: llama, qwen2, qwen3, phi3
  GeluTanh,  // GeGLU with the tanh approximation of GELU: gemma3
};

struct ModelConfig {
  std::string arch;        // general.architecture: llama, qwen2, qwen3, gemma3, phi3
  int32_t n_layers = 0;    // {arch}.block_count
  int32_t vocab_size = 0;  // {arch}.vocab_size, else the token count
  int32_t dim = 0;         // {arch}.embedding_length
  int32_t n_heads = 0;     // {arch}.attention.head_count
  int32_t n_kv_heads = 0;  // {arch}.attention.head_count_kv (default n_heads)
  int32_t head_dim = 0;    // {arch}.attention.key_length (default dim / n_heads)
  int32_t ffn_dim = 0;     // {arch}.feed_forward_length
  int32_t context_len = 0; // {arch}.context_length (training context)
  int32_t rope_dim = 0;    // {arch}.rope.dimension_count (default head_dim); dims rotated per head
  float rope_base = 10000.0f;  // {arch}.rope.freq_base
  float rms_eps = 1e-5f;   // {arch}.attention.layer_norm_rms_epsilon

  // Architecture options.
  bool rope_neox = false;  // pairs (i, i + rope_dim/2) instead of (2i, 2i+1): all but llama
  float rope_scale = 1.0f; // positions are multiplied by this: 1 / {arch}.rope.scaling.factor of linear scaling
  bool rope_freqs = false; // rope_freqs.weight divides pair i's frequency (Llama 3.1+ rope_type llama3)
  // LongRoPE (phi3 128k models): rope_factors_long.weight divides the
  // frequencies when the session's context exceeds rope_orig_ctx, else
  // rope_factors_short.weight.
  bool longrope = false;
  int32_t rope_orig_ctx = 0;       // {arch}.rope.scaling.original_context_length (default context_len)
  float rope_magnitude = 1.0f;     // cos and sin are multiplied by this: {arch}.rope.scaling.attn_factor
  bool qkv_bias = false;   // attention q/k/v have real biases (qwen2); else the bias slots are zero-length
  bool qk_norm = false;    // per-head RMSNorm of q and k before RoPE (qwen3, gemma3)
  bool post_norms = false; // RMSNorm of the attention and FFN outputs before each residual add (gemma3)
  float embed_scale = 1.0f;  // the token embedding is multiplied by this (gemma3: sqrt(dim))
  FfnActivation ffn_act = FfnActivation::SiLU;
  float attn_scale = 0.0f;   // attention scores are q.k * attn_scale (1/sqrt(head_dim) unless the arch says otherwise)
  int32_t sliding_window = 0;  // local layers attend to the last sliding_window positions (gemma3)
  int32_t swa_period = 0;      // layer l is local when l % swa_period < swa_period - 1 (gemma3: 6)
  float rope_base_local = 10000.0f;  // local layers' RoPE base, unscaled ({arch}.rope.freq_base_swa)
  bool tied_output = false;  // output projection = token embedding
  // How the GGUF stores what the bump slots hold (the converter's concern only).
  bool fused_qkv = false;      // blk.N.attn_qkv: q, k, v rows in one tensor (phi3)
  bool fused_gate_up = false;  // blk.N.ffn_up holds the gate rows then the up rows (phi3)

  int32_t q_dim() const { return n_heads * head_dim; }
  int32_t kv_dim() const { return n_kv_heads * head_dim; }
  bool is_local(int layer) const { return swa_period > 0 && layer % swa_period < swa_period - 1; }
};

// Throws naming `path` and the key for a missing, mistyped or inconsistent
// value, and for an architecture ck does not run. The options of the
// "architecture options" block come from the architecture (a table in
// model_config.cc) and its metadata keys; those that only the tensor table
// shows (qkv_bias, qk_norm, rope_freqs, longrope, tied_output, fused_*) from the ck.*
// keys, which the converter sets from the GGUF's tensors before calling this.
ModelConfig config_from_metadata(const Metadata& meta, const std::string& path);

}  // namespace ck
