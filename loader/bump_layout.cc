#include "loader/bump_layout.h"

#include <cstring>

namespace ck {

BumpHeader make_bump_header(const ModelConfig& c) {
  BumpHeader h{};
  std::memcpy(h.magic, kBumpMagic, sizeof h.magic);
  h.version = kBumpVersion;
  h.model_type = kBumpModelType;
  h.num_layers = static_cast<uint32_t>(c.n_layers);
  h.vocab_size = static_cast<uint32_t>(c.vocab_size);
  h.embed_dim = static_cast<uint32_t>(c.dim);
  h.context_len = static_cast<uint32_t>(c.context_len);
  h.num_heads = static_cast<uint32_t>(c.n_heads);
  h.head_dim = static_cast<uint32_t>(c.head_dim);
  h.aligned_embed_dim = align_up(static_cast<uint64_t>(c.dim), 16);
  h.aligned_head_dim = align_up(static_cast<uint64_t>(c.head_dim), 16);
  h.aligned_context = align_up(static_cast<uint64_t>(c.context_len), 16);
  return h;
}

std::vector<SlotSpec> bump_slots(const ModelConfig& c) {
  const int64_t dim = c.dim, q = c.q_dim(), kv = c.kv_dim(), ffn = c.ffn_dim;
  auto matrix = [](std::string name, int64_t rows, int64_t cols, int layer, std::vector<std::string> src) {
    return SlotSpec{std::move(name), SlotKind::Matrix, rows, cols, layer, std::move(src)};
  };
  auto vector = [](std::string name, int64_t n, int layer) {
    return SlotSpec{name, SlotKind::Vector, 1, n, layer, {name}};
  };
  auto empty = [](std::string name, int64_t cols, int layer) {
    return SlotSpec{std::move(name), SlotKind::Empty, 0, cols, layer, {}};
  };
  auto vector_if = [&](bool present, std::string name, int64_t n, int layer) {
    return present ? vector(std::move(name), n, layer) : empty(std::move(name), n, layer);
  };
  // Rows [row0, row0 + rows) of a fused tensor of `total` rows.
  auto part = [](std::string name, int64_t rows, int64_t cols, int layer, std::string src, int64_t row0,
                 int64_t total) {
    return SlotSpec{std::move(name), SlotKind::Matrix, rows, cols, layer, {std::move(src)}, row0, total};
  };

  std::vector<SlotSpec> s;
  s.reserve(bump_slot_count(c));
  s.push_back(matrix("token_embd.weight", c.vocab_size, dim, -1, {"token_embd.weight"}));
  s.push_back(empty("position_embd.weight", dim, -1));  // RoPE models have none
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    s.push_back(vector(b + "attn_norm.weight", dim, l));
    s.push_back(vector(b + "ffn_norm.weight", dim, l));
    const std::string qkv = b + "attn_qkv.weight";
    const int64_t qkv_rows = q + 2 * kv;
    s.push_back(c.fused_qkv ? part(b + "attn_q.weight", q, dim, l, qkv, 0, qkv_rows)
                            : matrix(b + "attn_q.weight", q, dim, l, {b + "attn_q.weight"}));
    s.push_back(vector_if(c.qkv_bias, b + "attn_q.bias", q, l));
    s.push_back(c.fused_qkv ? part(b + "attn_k.weight", kv, dim, l, qkv, q, qkv_rows)
                            : matrix(b + "attn_k.weight", kv, dim, l, {b + "attn_k.weight"}));
    s.push_back(vector_if(c.qkv_bias, b + "attn_k.bias", kv, l));
    s.push_back(c.fused_qkv ? part(b + "attn_v.weight", kv, dim, l, qkv, q + kv, qkv_rows)
                            : matrix(b + "attn_v.weight", kv, dim, l, {b + "attn_v.weight"}));
    s.push_back(vector_if(c.qkv_bias, b + "attn_v.bias", kv, l));
    s.push_back(matrix(b + "attn_output.weight", dim, q, l, {b + "attn_output.weight"}));
    s.push_back(empty(b + "attn_output.bias", dim, l));
    s.push_back(matrix(b + "ffn_gate_up.weight", 2 * ffn, dim, l,
                       c.fused_gate_up ? std::vector<std::string>{b + "ffn_up.weight"}
                                       : std::vector<std::string>{b + "ffn_gate.weight", b + "ffn_up.weight"}));
    s.back().part_rows = ffn;
    s.push_back(empty(b + "ffn_gate_up.bias", 2 * ffn, l));
    s.push_back(matrix(b + "ffn_down.weight", dim, ffn, l, {b + "ffn_down.weight"}));
    s.push_back(empty(b + "ffn_down.bias", dim, l));
    s.push_back(vector_if(c.qk_norm, b + "attn_q_norm.weight", c.head_dim, l));
    s.push_back(vector_if(c.qk_norm, b + "attn_k_norm.weight", c.head_dim, l));
    s.push_back(vector_if(c.post_norms, b + "post_attention_norm.weight", dim, l));
    s.push_back(vector_if(c.post_norms, b + "post_ffw_norm.weight", dim, l));
  }
  s.push_back(vector("output_norm.weight", dim, -1));
  s.push_back(empty("output_norm.bias", dim, -1));
  if (c.tied_output) {
    s.push_back(empty("output.weight", dim, -1));
  } else {
    s.push_back(matrix("output.weight", c.vocab_size, dim, -1, {"output.weight"}));
  }
  s.push_back(vector_if(c.rope_freqs, "rope_freqs.weight", c.rope_dim / 2, -1));
  s.push_back(vector_if(c.longrope, "rope_factors_long.weight", c.rope_dim / 2, -1));
  s.push_back(vector_if(c.longrope, "rope_factors_short.weight", c.rope_dim / 2, -1));
  return s;
}

}  // namespace ck
