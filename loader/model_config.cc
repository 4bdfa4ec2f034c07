#include "loader/model_config.h"

#include <cmath>
#include <stdexcept>

namespace ck {

namespace {

// Larger values are corrupt files, not models; they would size allocations.
constexpr uint64_t kMaxDim = 1 << 20;
constexpr uint64_t kMaxLayers = 4096;
constexpr uint64_t kMaxVocab = 1 << 24;
constexpr uint64_t kMaxContext = 1 << 24;

[[noreturn]] void fail(const std::string& path, const std::string& message) {
  throw std::runtime_error(path + ": " + message);
}

int32_t required(const Metadata& meta, const std::string& path, const std::string& key, uint64_t max) {
  auto v = meta.get_u64(key);
  if (!v) fail(path, "metadata key '" + key + "' is missing");
  if (*v == 0 || *v > max) {
    fail(path, "metadata key '" + key + "' is " + std::to_string(*v) + ", expected 1.." + std::to_string(max));
  }
  return static_cast<int32_t>(*v);
}

int32_t optional_or(const Metadata& meta, const std::string& path, const std::string& key, uint64_t max,
                    int32_t fallback) {
  return meta.contains(key) ? required(meta, path, key, max) : fallback;
}

// What each architecture does differently, as llama.cpp's graph builders do
// it (src/models/*.cpp of the version the oracle runs). Options that the
// tensor table shows (biases, Q/K norms, rope_freqs) are not here.
struct ArchOptions {
  const char* name;
  bool rope_neox;        // llama.cpp's LLAMA_ROPE_TYPE_NEOX
  bool post_norms;       // post_attention_norm, post_ffw_norm
  bool embed_scaled;     // x = embedding * sqrt(dim)
  FfnActivation ffn_act;
  int32_t swa_period;    // local:global layer pattern when attention.sliding_window is set; 0: no local layers
};
constexpr ArchOptions kArchs[] = {
    {"llama", false, false, false, FfnActivation::SiLU, 0},
    {"qwen2", true, false, false, FfnActivation::SiLU, 0},
    {"qwen3", true, false, false, FfnActivation::SiLU, 0},
    {"gemma3", true, true, true, FfnActivation::GeluTanh, 6},
    // Phi-3 files carry attention.sliding_window (2047 for the 4k models), but
    // llama.cpp runs phi3 without it (llama_model_phi3: "Phi SWA is currently
    // disabled"), and so does ck, to give the same logits.
    {"phi3", true, false, false, FfnActivation::SiLU, 0},
};

const ArchOptions* find_arch(const std::string& name) {
  for (const ArchOptions& a : kArchs) {
    if (name == a.name) return &a;
  }
  return nullptr;
}

std::string arch_names() {
  std::string out;
  for (const ArchOptions& a : kArchs) out += (out.empty() ? "" : ", ") + std::string(a.name);
  return out;
}

// RoPE scaling: none, or linear (positions divided by the factor); yarn is
// refused in runtime/features.cc. As in llama.cpp, a file without
// rope.scaling.type scales linearly by rope.scaling.factor (or the older
// rope.scale_linear) when it has one.
float linear_rope_scale(const Metadata& meta, const std::string& path, const std::string& p) {
  if (meta.get_string(p + "rope.scaling.type").value_or("linear") != "linear") return 1.0f;
  const std::string key = meta.contains(p + "rope.scaling.factor") ? p + "rope.scaling.factor" : p + "rope.scale_linear";
  const float factor = meta.get_f32(key).value_or(0.0f);
  if (factor == 0.0f) return 1.0f;
  if (!(factor > 0.0f)) fail(path, "metadata key '" + key + "' must be positive");
  return 1.0f / factor;
}

}  // namespace

ModelConfig config_from_metadata(const Metadata& meta, const std::string& path) {
  ModelConfig c;
  auto arch = meta.get_string("general.architecture");
  if (!arch) fail(path, "metadata key 'general.architecture' is missing");
  c.arch = *arch;
  const ArchOptions* opts = find_arch(c.arch);
  if (opts == nullptr) fail(path, "unsupported architecture '" + c.arch + "' (supported: " + arch_names() + ")");
  const std::string p = c.arch + ".";
  c.n_layers = required(meta, path, p + "block_count", kMaxLayers);
  c.dim = required(meta, path, p + "embedding_length", kMaxDim);
  c.n_heads = required(meta, path, p + "attention.head_count", kMaxDim);
  c.n_kv_heads = optional_or(meta, path, p + "attention.head_count_kv", kMaxDim, c.n_heads);
  c.ffn_dim = required(meta, path, p + "feed_forward_length", kMaxDim);
  c.context_len = required(meta, path, p + "context_length", kMaxContext);
  if (meta.contains(p + "vocab_size")) {
    c.vocab_size = required(meta, path, p + "vocab_size", kMaxVocab);
  } else if (auto tokens = meta.get_array_info("tokenizer.ggml.tokens")) {
    if (tokens->count == 0 || tokens->count > kMaxVocab) {
      fail(path, "metadata key 'tokenizer.ggml.tokens' has " + std::to_string(tokens->count) + " entries, expected 1.." +
                     std::to_string(kMaxVocab));
    }
    c.vocab_size = static_cast<int32_t>(tokens->count);
  } else {
    fail(path, "neither '" + p + "vocab_size' nor 'tokenizer.ggml.tokens' is present (vocabulary size unknown)");
  }

  if (c.n_heads % c.n_kv_heads != 0) {
    fail(path, "head_count " + std::to_string(c.n_heads) + " is not a multiple of head_count_kv " +
                   std::to_string(c.n_kv_heads) + " (grouped-query attention needs it)");
  }
  const bool explicit_head_dim = meta.contains(p + "attention.key_length");
  if (!explicit_head_dim && c.dim % c.n_heads != 0) {
    fail(path, "embedding_length " + std::to_string(c.dim) + " is not a multiple of head_count " +
                   std::to_string(c.n_heads));
  }
  c.head_dim = optional_or(meta, path, p + "attention.key_length", kMaxDim, c.dim / c.n_heads);
  if (static_cast<uint64_t>(c.n_heads) * static_cast<uint64_t>(c.head_dim) > kMaxDim) {
    fail(path, "head_count x key_length = " + std::to_string(static_cast<uint64_t>(c.n_heads) * c.head_dim) +
                   " exceeds " + std::to_string(kMaxDim));
  }
  const int32_t value_len = optional_or(meta, path, p + "attention.value_length", kMaxDim, c.head_dim);
  if (value_len != c.head_dim) {
    fail(path, "attention.value_length " + std::to_string(value_len) + " differs from key_length " +
                   std::to_string(c.head_dim) + " (not supported)");
  }
  c.rope_dim = optional_or(meta, path, p + "rope.dimension_count", kMaxDim, c.head_dim);
  if (c.rope_dim > c.head_dim || c.rope_dim % 2 != 0) {
    fail(path, "rope.dimension_count " + std::to_string(c.rope_dim) + " must be even and at most the head size " +
                   std::to_string(c.head_dim));
  }
  c.rope_base = meta.get_f32(p + "rope.freq_base").value_or(10000.0f);
  if (!(c.rope_base > 0.0f)) fail(path, "metadata key '" + p + "rope.freq_base' must be positive");
  auto eps = meta.get_f32(p + "attention.layer_norm_rms_epsilon");
  if (!eps) fail(path, "metadata key '" + p + "attention.layer_norm_rms_epsilon' is missing");
  if (!(*eps > 0.0f && *eps < 1.0f)) fail(path, "metadata key '" + p + "attention.layer_norm_rms_epsilon' must be in (0, 1)");
  c.rms_eps = *eps;

  c.rope_neox = meta.get_bool("ck.rope_neox").value_or(opts->rope_neox);
  c.rope_scale = linear_rope_scale(meta, path, p);
  c.post_norms = opts->post_norms;
  c.embed_scale = opts->embed_scaled ? std::sqrt(static_cast<float>(c.dim)) : 1.0f;
  c.ffn_act = opts->ffn_act;
  c.attn_scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
  // Gemma 3 27B scales by its query_pre_attn_scalar, dim / n_heads, which no
  // GGUF key carries; llama.cpp recognizes the model by its 62 layers.
  if (c.arch == "gemma3" && c.n_layers == 62) c.attn_scale = 1.0f / std::sqrt(static_cast<float>(c.dim / c.n_heads));
  if (opts->swa_period > 0 && meta.contains(p + "attention.sliding_window")) {
    c.sliding_window = required(meta, path, p + "attention.sliding_window", kMaxContext);
    c.swa_period = optional_or(meta, path, p + "attention.sliding_window_pattern", kMaxLayers, opts->swa_period);
    c.rope_base_local = meta.get_f32(p + "rope.freq_base_swa").value_or(10000.0f);
    if (!(c.rope_base_local > 0.0f)) fail(path, "metadata key '" + p + "rope.freq_base_swa' must be positive");
  }
  c.qkv_bias = meta.get_bool("ck.qkv_bias").value_or(false);
  c.qk_norm = meta.get_bool("ck.qk_norm").value_or(false);
  c.rope_freqs = meta.get_bool("ck.rope_freqs").value_or(false);
  c.longrope = meta.get_bool("ck.longrope").value_or(false);
  c.rope_orig_ctx = optional_or(meta, path, p + "rope.scaling.original_context_length", kMaxContext, c.context_len);
  c.rope_magnitude = meta.get_f32(p + "rope.scaling.attn_factor").value_or(1.0f);
  if (!(c.rope_magnitude > 0.0f)) fail(path, "metadata key '" + p + "rope.scaling.attn_factor' must be positive");
  c.tied_output = meta.get_bool("ck.tied_output").value_or(false);
  c.fused_qkv = meta.get_bool("ck.fused_qkv").value_or(false);
  c.fused_gate_up = meta.get_bool("ck.fused_gate_up").value_or(false);
  return c;
}

}  // namespace ck
