#include "runtime/weights.h"

#include <stdexcept>
#include <string>

#include "kernels/dtype.h"

namespace ck {
namespace {

std::string shape_str(int64_t rows, int64_t cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

void fail(const BumpFile& f, const std::string& name, const std::string& what) {
  throw std::runtime_error(f.source() + ": tensor " + name + ": " + what);
}

// A matrix the kernels multiply by: shape (rows, cols) and a native dtype.
// A row-grouped dtype (Q8_0_R16, Q4_1_R16, ...) needs whole groups in the matrix and in
// each part of part_rows rows that the forward pass reads on its own.
void check_row_groups(const BumpFile& f, const std::string& name, const TensorView& t, int64_t part_rows) {
  const int g = traits(t.dtype).row_group;
  if (t.rows % g != 0 || part_rows % g != 0) {
    fail(f, name, "dtype " + std::string(traits(t.dtype).name) + " needs a multiple of " + std::to_string(g) +
                      " rows" + (part_rows != t.rows ? " in each part" : "") + ", has " +
                      std::to_string(part_rows != t.rows ? part_rows : t.rows));
  }
}

void check_matrix(const BumpFile& f, const std::string& name, const TensorView& t, int64_t rows, int64_t cols,
                  int64_t part_rows = 0) {
  if (t.rows != rows || t.cols != cols) {
    fail(f, name, "shape " + shape_str(t.rows, t.cols) + ", expected " + shape_str(rows, cols));
  }
  if (!traits(t.dtype).native) fail(f, name, "dtype " + std::string(traits(t.dtype).name) + " has no kernel");
  if (t.data == nullptr) fail(f, name, "no data");
  check_row_groups(f, name, t, part_rows > 0 ? part_rows : rows);
}

// A vector read directly as floats.
void check_vector(const BumpFile& f, const std::string& name, const TensorView& t, int64_t n) {
  if (t.dtype != DType::F32) fail(f, name, "dtype " + std::string(traits(t.dtype).name) + ", expected F32");
  if (t.rows * t.cols != n || t.data == nullptr) {
    fail(f, name, "shape " + shape_str(t.rows, t.cols) + ", expected " + std::to_string(n) + " values");
  }
}

void check_absent(const BumpFile& f, const std::string& name, const TensorView& t) {
  if (!t.empty()) fail(f, name, "present, but the " + f.config().arch + " forward pass has no such tensor");
}

// A vector the config says the model has, or an empty slot.
void check_optional(const BumpFile& f, bool present, const std::string& name, const TensorView& t, int64_t n) {
  if (present) {
    check_vector(f, name, t, n);
  } else {
    check_absent(f, name, t);
  }
}

}  // namespace

Weights weights_from_bump(const BumpFile& f) {
  const ModelConfig& c = f.config();
  Weights w{f.token_embd(), f.output_norm(), f.output(), f.rope_freqs(), f.rope_factors_long(),
            f.rope_factors_short(), f.layers()};
  if (w.token_embd.rows != c.vocab_size || w.token_embd.cols != c.dim || w.token_embd.data == nullptr) {
    fail(f, "token_embd", "shape " + shape_str(w.token_embd.rows, w.token_embd.cols) + ", expected " +
                              shape_str(c.vocab_size, c.dim));
  }
  if (traits(w.token_embd.dtype).dequantize == nullptr) fail(f, "token_embd", "dtype has no dequantizer");
  check_row_groups(f, "token_embd", w.token_embd, w.token_embd.rows);
  check_vector(f, "output_norm", w.output_norm, c.dim);
  check_matrix(f, "output", w.output, c.vocab_size, c.dim);
  check_optional(f, c.rope_freqs, "rope_freqs", w.rope_freqs, c.rope_dim / 2);
  check_optional(f, c.longrope, "rope_factors_long", w.rope_factors_long, c.rope_dim / 2);
  check_optional(f, c.longrope, "rope_factors_short", w.rope_factors_short, c.rope_dim / 2);
  if (static_cast<int64_t>(w.layers.size()) != c.n_layers) {
    throw std::runtime_error(f.source() + ": " + std::to_string(w.layers.size()) + " layers, config says " +
                             std::to_string(c.n_layers));
  }
  for (size_t l = 0; l < w.layers.size(); ++l) {
    const LayerView& L = w.layers[l];
    const std::string p = "blk." + std::to_string(l) + ".";
    check_vector(f, p + "attn_norm", L.attn_norm, c.dim);
    check_vector(f, p + "ffn_norm", L.ffn_norm, c.dim);
    check_matrix(f, p + "attn_q", L.wq, c.q_dim(), c.dim);
    check_matrix(f, p + "attn_k", L.wk, c.kv_dim(), c.dim);
    check_matrix(f, p + "attn_v", L.wv, c.kv_dim(), c.dim);
    check_matrix(f, p + "attn_output", L.wo, c.dim, c.q_dim());
    check_matrix(f, p + "ffn_gate_up", L.w_gate_up, 2 * int64_t{c.ffn_dim}, c.dim, c.ffn_dim);
    check_matrix(f, p + "ffn_down", L.w_down, c.dim, c.ffn_dim);
    check_optional(f, c.qkv_bias, p + "attn_q.bias", L.bq, c.q_dim());
    check_optional(f, c.qkv_bias, p + "attn_k.bias", L.bk, c.kv_dim());
    check_optional(f, c.qkv_bias, p + "attn_v.bias", L.bv, c.kv_dim());
    check_optional(f, c.qk_norm, p + "attn_q_norm", L.q_norm, c.head_dim);
    check_optional(f, c.qk_norm, p + "attn_k_norm", L.k_norm, c.head_dim);
    check_optional(f, c.post_norms, p + "post_attention_norm", L.post_attn_norm, c.dim);
    check_optional(f, c.post_norms, p + "post_ffw_norm", L.post_ffn_norm, c.dim);
    check_absent(f, p + "attn_output.bias", L.bo);
    check_absent(f, p + "ffn_gate_up.bias", L.b1);
    check_absent(f, p + "ffn_down.bias", L.b2);
  }
  return w;
}

}  // namespace ck
