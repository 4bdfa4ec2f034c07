#include "tests/fuzz/walk.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <spdlog/spdlog.h>

#include "kernels/dtype.h"
#include "tokenizer/tokenizer.h"

namespace ck::fuzz {

void quiet_logs() { spdlog::set_level(spdlog::level::off); }

void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

void touch(std::span<const uint8_t> bytes) {
  if (bytes.empty()) return;
  volatile uint8_t sink = bytes.front();
  sink = bytes.back();
  (void)sink;
}

void walk_metadata(const Metadata& meta) {
  for (const MetaEntry& e : meta.entries()) {
    require(meta.find(e.key) == &e, "Metadata::find returns the entry it listed");
    (void)meta.describe(e);
    switch (e.type) {
      case GgufType::U8: case GgufType::U16: case GgufType::U32: case GgufType::U64:
        (void)meta.get_u64(e.key);
        break;
      case GgufType::I8: case GgufType::I16: case GgufType::I32: case GgufType::I64:
        (void)meta.get_i64(e.key);
        break;
      case GgufType::F32: case GgufType::F64:
        (void)meta.get_f64(e.key);
        break;
      case GgufType::Bool:
        (void)meta.get_bool(e.key);
        break;
      case GgufType::String:
        (void)meta.get_string(e.key);
        break;
      case GgufType::Array: {
        const auto info = meta.get_array_info(e.key);
        require(info.has_value(), "an array entry has array info");
        // Only the element types a getter exists for; nested arrays are walked by describe().
        switch (info->element_type) {
          case GgufType::String: (void)meta.get_string_array(e.key); break;
          case GgufType::F32: case GgufType::F64: (void)meta.get_f32_array(e.key); break;
          case GgufType::Bool: case GgufType::Array: break;
          default:
            try {
              (void)meta.get_i32_array(e.key);
            } catch (const std::runtime_error&) {
              // A value that does not fit in int32 is a clean error by design.
            }
            break;
        }
        break;
      }
    }
  }
}

void walk_vocab(const tok::VocabData& vocab) {
  const tok::Tokenizer tokenizer(vocab);
  // Letters, digits, a contraction, whitespace runs, CJK, an emoji, a control
  // token spelling and an invalid byte: every branch of the pre-tokenizers.
  static const std::string kText = "Hello world's 12345  \n\t caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80 <|im_start|></s>\xFF";
  for (bool parse_special : {false, true}) {
    const auto ids = tokenizer.encode(kText, true, parse_special);
    for (int32_t id : ids) require(id >= 0 && id < tokenizer.n_vocab(), "encode returns ids inside the vocabulary");
    (void)tokenizer.decode(ids, parse_special);
  }
}

void walk_bump(const BumpFile& bump, std::span<const uint8_t> file) {
  const uint8_t* begin = file.data();
  const uint8_t* end = file.data() + file.size();
  auto check_view = [&](const TensorView& v) {
    if (v.empty()) {
      require(v.bytes == 0, "an empty view has no bytes");
      return;
    }
    const auto* p = static_cast<const uint8_t*>(v.data);
    require(p >= begin && v.bytes <= static_cast<size_t>(end - p), "a tensor view lies inside the file");
    const DTypeTraits& t = traits(v.dtype);
    require(v.cols > 0 && v.rows > 0 && v.cols % t.block_size == 0, "a view has whole blocks per row");
    require(v.bytes == static_cast<size_t>(v.rows) * row_bytes(t, v.cols), "a view's bytes are rows * row bytes");
    touch({p, v.bytes});
  };
  for (const BumpFile::Slot& s : bump.slots()) {
    require(s.offset <= file.size(), "a slot offset lies inside the file");
    check_view(s.view);
  }
  const ModelConfig& c = bump.config();
  require(bump.layers().size() == static_cast<size_t>(c.n_layers), "one LayerView per layer");
  for (const LayerView& l : bump.layers()) {
    for (const TensorView* v : {&l.attn_norm, &l.ffn_norm, &l.wq, &l.bq, &l.wk, &l.bk, &l.wv, &l.bv, &l.wo, &l.bo,
                                &l.w_gate_up, &l.b1, &l.w_down, &l.b2}) {
      check_view(*v);
    }
    // The shapes the forward pass relies on without checking them again.
    require(l.wq.rows == c.q_dim() && l.wq.cols == c.dim, "wq is q_dim x dim");
    require(l.wk.rows == c.kv_dim() && l.wv.rows == c.kv_dim(), "wk and wv are kv_dim x dim");
    require(l.wo.rows == c.dim && l.wo.cols == c.q_dim(), "wo is dim x q_dim");
    require(l.w_gate_up.rows == 2 * static_cast<int64_t>(c.ffn_dim), "w_gate_up has 2 * ffn_dim rows");
    require(l.w_down.rows == c.dim && l.w_down.cols == c.ffn_dim, "w_down is dim x ffn_dim");
    require(l.attn_norm.rows * l.attn_norm.cols == c.dim, "attn_norm has dim values");
  }
  check_view(bump.token_embd());
  check_view(bump.output_norm());
  check_view(bump.output());
  require(bump.token_embd().rows == c.vocab_size && bump.token_embd().cols == c.dim, "token_embd is vocab x dim");
  require(bump.output().rows == c.vocab_size && bump.output().cols == c.dim, "output is vocab x dim");
  require(c.n_heads > 0 && c.n_kv_heads > 0 && c.n_heads % c.n_kv_heads == 0, "GQA ratio is whole");
  require(c.rope_dim > 0 && c.rope_dim <= c.head_dim && c.rope_dim % 2 == 0, "rope_dim is even and fits the head");
  (void)bump.weight_bytes();
  for (const char* name : {"token_embd.weight", "output.weight", "blk.0.ffn_gate.weight", "blk.0.ffn_up.weight",
                           "blk.0.attn_q.bias", "nonexistent"}) {
    if (const auto v = bump.find(name)) check_view(*v);
  }
  walk_metadata(bump.metadata());
}

}  // namespace ck::fuzz
