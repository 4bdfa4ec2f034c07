// The hyper-parameters the runtime needs, read from GGUF-style metadata
// ({arch}.* keys, plus ck.* keys in bump files) and validated once, here.
#pragma once
#include <cstdint>
#include <string>

#include "loader/metadata.h"

namespace ck {

struct ModelConfig {
  std::string arch;        // general.architecture: "llama" or "qwen2"
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
  bool rope_neox = false;  // pairs (i, i + rope_dim/2) instead of (2i, 2i+1): qwen2
  float rms_eps = 1e-5f;   // {arch}.attention.layer_norm_rms_epsilon
  bool qkv_bias = false;   // attention q/k/v have real biases (qwen2); else the bias slots are zero-length
  bool tied_output = false;  // output projection = token embedding

  int32_t q_dim() const { return n_heads * head_dim; }
  int32_t kv_dim() const { return n_kv_heads * head_dim; }
};

// Throws naming `path` and the key for a missing, mistyped or inconsistent
// value, and for an architecture other than llama and qwen2. rope_neox,
// qkv_bias and tied_output come from the ck.* keys when present (bump files),
// else from the architecture (qkv_bias, tied_output: false; the converter
// sets the ck.* keys from the tensor table before calling this).
ModelConfig config_from_metadata(const Metadata& meta, const std::string& path);

}  // namespace ck
