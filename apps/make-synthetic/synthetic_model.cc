#include "apps/make-synthetic/synthetic_model.h"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/make-synthetic/gguf_writer.h"
#include "kernels/quantize.h"
#include "loader/gguf_reader.h"

namespace ck {
namespace {

// SplitMix64: a fast, well-mixed stream per (seed, tensor, row).
uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Approximately normal values of standard deviation `std`: the sum of four
// 16-bit uniforms (Irwin-Hall), centred and scaled: each has variance
// 65536^2 / 12, so the sum has standard deviation 65536 / sqrt(3).
void fill_random_row(uint64_t seed, float std, float* out, int64_t n) {
  uint64_t state = seed;
  const float scale = std * std::sqrt(3.0f) / 65536.0f;
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = splitmix64(state);
    const int64_t sum = static_cast<int64_t>(r & 0xFFFF) + static_cast<int64_t>((r >> 16) & 0xFFFF) +
                        static_cast<int64_t>((r >> 32) & 0xFFFF) + static_cast<int64_t>(r >> 48);
    out[i] = (static_cast<float>(sum) - 4 * 32767.5f) * scale;
  }
}

// llama.cpp's use_more_bits(): the first and last eighth of the layers and
// every third one in between.
bool use_more_bits(int64_t layer, int64_t n_layers) {
  return layer < n_layers / 8 || layer >= 7 * n_layers / 8 || (layer - n_layers / 8) % 3 == 2;
}

struct TensorPlan {
  GgufTensorSpec spec;
  bool is_norm;
};

std::vector<TensorPlan> plan_tensors(const SyntheticShape& s, int64_t vocab, QuantMix mix) {
  const int64_t kv_dim = s.dim / s.n_heads * s.n_kv_heads;
  std::vector<TensorPlan> plan;
  auto matrix = [&](const std::string& name, std::string_view role, int64_t layer, int64_t cols, int64_t rows) {
    plan.push_back({{name, {cols, rows}, matrix_type(mix, role, layer, s.n_layers)}, false});
  };
  auto norm = [&](const std::string& name) { plan.push_back({{name, {s.dim}, DType::F32}, true}); };
  matrix("token_embd.weight", "token_embd", -1, s.dim, vocab);
  for (int64_t l = 0; l < s.n_layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    norm(p + "attn_norm.weight");
    matrix(p + "attn_q.weight", "attn_q", l, s.dim, s.dim);
    matrix(p + "attn_k.weight", "attn_k", l, s.dim, kv_dim);
    matrix(p + "attn_v.weight", "attn_v", l, s.dim, kv_dim);
    matrix(p + "attn_output.weight", "attn_output", l, s.dim, s.dim);
    norm(p + "ffn_norm.weight");
    matrix(p + "ffn_gate.weight", "ffn_gate", l, s.dim, s.ffn_dim);
    matrix(p + "ffn_up.weight", "ffn_up", l, s.dim, s.ffn_dim);
    matrix(p + "ffn_down.weight", "ffn_down", l, s.ffn_dim, s.dim);
  }
  norm("output_norm.weight");
  matrix("output.weight", "output", -1, s.dim, vocab);
  return plan;
}

void set_f32(Metadata& md, const std::string& key, float v) {
  std::string raw(sizeof(v), '\0');
  std::memcpy(raw.data(), &v, sizeof(v));
  md.add({key, GgufType::F32, raw}, 0);
}

Metadata make_metadata(const Metadata& vocab_md, const SyntheticOptions& o, int64_t vocab) {
  const SyntheticShape& s = o.shape;
  Metadata md;
  auto u32 = [](int64_t v) { return static_cast<uint32_t>(v); };
  md.set_string("general.architecture", "llama");
  md.set_string("general.name", "ck synthetic llama (random weights)");
  // llama.cpp's LLAMA_FTYPE codes: MOSTLY_Q8_0 = 7, MOSTLY_Q4_K_M = 15, MOSTLY_Q6_K = 18.
  md.set_u32("general.file_type", o.mix == QuantMix::Q8_0 ? 7u : o.mix == QuantMix::Q4_K_M ? 15u : 18u);
  md.set_u32("llama.context_length", u32(s.context_len));
  md.set_u32("llama.embedding_length", u32(s.dim));
  md.set_u32("llama.block_count", u32(s.n_layers));
  md.set_u32("llama.feed_forward_length", u32(s.ffn_dim));
  md.set_u32("llama.rope.dimension_count", u32(s.dim / s.n_heads));
  md.set_u32("llama.attention.head_count", u32(s.n_heads));
  md.set_u32("llama.attention.head_count_kv", u32(s.n_kv_heads));
  set_f32(md, "llama.attention.layer_norm_rms_epsilon", s.rms_eps);
  set_f32(md, "llama.rope.freq_base", s.rope_base);
  md.set_u32("llama.vocab_size", u32(vocab));
  for (const MetaEntry& e : vocab_md.entries()) {
    if (e.key.starts_with("tokenizer.")) md.add(e, 0);
  }
  return md;
}

void validate(const SyntheticShape& s) {
  auto fail = [](const std::string& what) { throw std::runtime_error("synthetic model shape: " + what); };
  if (s.dim <= 0 || s.n_layers <= 0 || s.n_heads <= 0 || s.n_kv_heads <= 0 || s.ffn_dim <= 0 || s.context_len <= 0) {
    fail("every dimension must be positive");
  }
  if (s.dim % s.n_heads != 0 || s.n_heads % s.n_kv_heads != 0) fail("heads must divide dim and kv heads divide heads");
  if (s.dim % 256 != 0 || s.ffn_dim % 256 != 0 || (s.dim / s.n_heads * s.n_kv_heads) % 256 != 0) {
    fail("dim, ffn_dim and the KV width must be multiples of 256 (the K-quant block)");
  }
}

}  // namespace

std::optional<QuantMix> quant_mix_from_name(std::string_view name) {
  if (name == "Q4_K_M") return QuantMix::Q4_K_M;
  if (name == "Q6_K") return QuantMix::Q6_K;
  if (name == "Q8_0") return QuantMix::Q8_0;
  return std::nullopt;
}

DType matrix_type(QuantMix mix, std::string_view role, int64_t layer, int64_t n_layers) {
  switch (mix) {
    case QuantMix::Q6_K:
      return DType::Q6_K;
    case QuantMix::Q8_0:
      return DType::Q8_0;
    case QuantMix::Q4_K_M:
      if (role == "output") return DType::Q6_K;
      if ((role == "attn_v" || role == "ffn_down") && use_more_bits(layer, n_layers)) return DType::Q6_K;
      return DType::Q4_K;
  }
  return DType::Q4_K;
}

SyntheticStats write_synthetic_model(const std::filesystem::path& vocab_gguf, const std::filesystem::path& out,
                                     const SyntheticOptions& options) {
  validate(options.shape);
  const GgufFile vocab_file = GgufFile::open(vocab_gguf);
  const auto tokens = vocab_file.metadata().get_array_info("tokenizer.ggml.tokens");
  if (!tokens || tokens->count == 0) {
    throw std::runtime_error(vocab_gguf.string() + ": no tokenizer.ggml.tokens array to take the vocabulary from");
  }
  const auto vocab = static_cast<int64_t>(tokens->count);
  const std::vector<TensorPlan> plan = plan_tensors(options.shape, vocab, options.mix);
  std::vector<GgufTensorSpec> specs;
  for (const TensorPlan& t : plan) specs.push_back(t.spec);
  GgufWriter writer(out, make_metadata(vocab_file.metadata(), options, vocab), specs);

  SyntheticStats stats;
  std::vector<uint8_t> data;
  for (size_t ti = 0; ti < plan.size(); ++ti) {
    const GgufTensorSpec& spec = plan[ti].spec;
    const int64_t cols = spec.ne[0];
    const int64_t rows = spec.ne.size() > 1 ? spec.ne[1] : 1;
    const size_t rb = row_bytes(traits(spec.type), cols);
    data.resize(spec.nbytes());
    if (plan[ti].is_norm) {
      const std::vector<float> ones(static_cast<size_t>(cols), 1.0f);
      std::memcpy(data.data(), ones.data(), data.size());
    } else {
#pragma omp parallel
      {
        std::vector<float> row(static_cast<size_t>(cols));
#pragma omp for schedule(static)
        for (int64_t r = 0; r < rows; ++r) {
          uint64_t seed = options.seed * 0x100000001B3ull + ti;
          seed = splitmix64(seed) ^ static_cast<uint64_t>(r);
          fill_random_row(seed, options.weight_std, row.data(), cols);
          quantize(spec.type, row.data(), data.data() + static_cast<size_t>(r) * rb, cols);
        }
      }
    }
    writer.write_tensor(data);
    stats.n_params += cols * rows;
    stats.data_bytes += data.size();
  }
  writer.commit();
  return stats;
}

}  // namespace ck
