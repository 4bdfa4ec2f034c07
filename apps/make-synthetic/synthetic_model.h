// Synthetic llama models: the tensors of a llama-architecture GGUF filled
// with random weights (so that benchmarks can run at real model sizes
// without downloading them), quantized in one of llama.cpp's mixes.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

#include "kernels/dtype.h"

namespace ck {

// Defaults: TinyLlama-1.1B.
struct SyntheticShape {
  int64_t dim = 2048;
  int64_t n_layers = 22;
  int64_t n_heads = 32;
  int64_t n_kv_heads = 4;
  int64_t ffn_dim = 5632;
  int64_t context_len = 2048;
  float rope_base = 10000.0f;
  float rms_eps = 1e-5f;
};

// Q4_K_M: llama.cpp's mix (Q6_K for output, and for attn_v and ffn_down in
// the layers its use_more_bits() picks; Q4_K elsewhere, token_embd included).
// Q6_K / Q8_0: every matrix in that type. Norms are F32 in all.
enum class QuantMix { Q4_K_M, Q6_K, Q8_0 };
std::optional<QuantMix> quant_mix_from_name(std::string_view name);

// The type of a matrix: `role` is the GGUF name without "blk.N." and
// ".weight" (token_embd, attn_q, ..., ffn_down, output); layer is -1 for
// the non-layer tensors.
DType matrix_type(QuantMix mix, std::string_view role, int64_t layer, int64_t n_layers);

struct SyntheticOptions {
  SyntheticShape shape;
  QuantMix mix = QuantMix::Q4_K_M;
  uint64_t seed = 1;
  float weight_std = 0.02f;  // GPT-style init: activations stay O(1) through the norms
};

struct SyntheticStats {
  int64_t n_params = 0;
  uint64_t data_bytes = 0;
};

// Writes `out` (atomically) with the tokenizer.* metadata of `vocab_gguf`;
// the vocabulary size is that tokenizer's. Rows are generated and quantized
// in parallel over the OpenMP threads; the result does not depend on their number.
SyntheticStats write_synthetic_model(const std::filesystem::path& vocab_gguf, const std::filesystem::path& out,
                                     const SyntheticOptions& options);

}  // namespace ck
