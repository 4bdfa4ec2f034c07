#include "apps/convert/inspect.h"

#include <cinttypes>
#include <map>
#include <string>

#include "loader/sha256.h"

namespace ck::convert {

namespace {

// Totals per dtype, in table order.
class DTypeTotals {
 public:
  void add(DType t, uint64_t bytes) {
    auto& [count, total] = totals_[static_cast<int>(t)];
    ++count;
    total += bytes;
  }
  void print(std::FILE* out) const {
    uint64_t all = 0;
    for (const auto& [code, v] : totals_) all += v.second;
    std::fprintf(out, "\nbytes per dtype:\n");
    for (const auto& [code, v] : totals_) {
      std::fprintf(out, "  %-5s %5zu tensors %14" PRIu64 " bytes %6.2f%%\n",
                   std::string(traits(static_cast<DType>(code)).name).c_str(), v.first, v.second,
                   all ? 100.0 * static_cast<double>(v.second) / static_cast<double>(all) : 0.0);
    }
    std::fprintf(out, "  total %5s         %14" PRIu64 " bytes (%.2f MB)\n", "", all, all / 1e6);
  }

 private:
  std::map<int, std::pair<size_t, uint64_t>> totals_;
};

void print_metadata(const Metadata& meta, std::FILE* out) {
  std::fprintf(out, "\nmetadata (%zu keys):\n", meta.entries().size());
  for (const MetaEntry& e : meta.entries()) {
    std::fprintf(out, "  %-45s %-6s = %s\n", e.key.c_str(), std::string(gguf_type_name(e.type)).c_str(),
                 meta.describe(e).c_str());
  }
}

std::string shape_of(const std::vector<int64_t>& ne) {
  std::string s;
  for (size_t i = 0; i < ne.size(); ++i) s += (i ? " x " : "") + std::to_string(ne[i]);
  return s;
}

}  // namespace

void inspect_gguf(const GgufFile& f, std::FILE* out) {
  std::fprintf(out, "file:      %s (%zu bytes)\n", f.source().c_str(), f.file_size());
  std::fprintf(out, "format:    GGUF version %u, alignment %" PRIu64 ", data section at byte %" PRIu64 "\n",
               f.version(), f.alignment(), f.data_offset());
  print_metadata(f.metadata(), out);
  std::fprintf(out, "\ntensors (%zu; shape is ne[0] x ne[1] ..., ne[0] = row length):\n", f.tensors().size());
  std::fprintf(out, "  %-36s %-5s %-22s %12s %12s\n", "name", "dtype", "shape", "bytes", "offset");
  DTypeTotals totals;
  for (const GgufTensorInfo& t : f.tensors()) {
    std::fprintf(out, "  %-36s %-5s %-22s %12" PRIu64 " %12" PRIu64 "\n", t.name.c_str(),
                 std::string(traits(t.type).name).c_str(), shape_of(t.ne).c_str(), t.nbytes, t.offset);
    totals.add(t.type, t.nbytes);
  }
  totals.print(out);
}

void inspect_bump(const BumpFile& f, std::FILE* out) {
  const BumpHeader& h = f.header();
  const ModelConfig& c = f.config();
  std::fprintf(out, "file:      %s (%zu bytes)\n", f.source().c_str(), f.file_size());
  std::fprintf(out, "format:    bump (BUMPWGT3) version %u, model_type %u\n", h.version, h.model_type);
  std::fprintf(out, "header:    num_layers %u, vocab_size %u, embed_dim %u, context_len %u, num_heads %u, head_dim %u\n",
               h.num_layers, h.vocab_size, h.embed_dim, h.context_len, h.num_heads, h.head_dim);
  std::fprintf(out, "           aligned embed/head/context %" PRIu64 "/%" PRIu64 "/%" PRIu64 "\n", h.aligned_embed_dim,
               h.aligned_head_dim, h.aligned_context);
  std::fprintf(out, "           sha256 %s (not checked; use --verify)\n", to_hex(h.sha256).c_str());
  std::fprintf(out, "           extension at byte %" PRIu64 ", %" PRIu64 " bytes\n", h.ext_offset, h.ext_size);
  std::fprintf(out,
               "config:    %s, %d layers, dim %d, %d heads / %d kv heads, head_dim %d, ffn %d, vocab %d, context %d\n"
               "           rope dim %d base %g %s scale %g%s, rms_eps %g, qkv_bias %s, tied_output %s\n"
               "           qk_norm %s, post_norms %s, embed_scale %g, ffn %s, attn_scale %g\n",
               c.arch.c_str(), c.n_layers, c.dim, c.n_heads, c.n_kv_heads, c.head_dim, c.ffn_dim, c.vocab_size,
               c.context_len, c.rope_dim, c.rope_base, c.rope_neox ? "neox" : "normal", c.rope_scale,
               c.rope_freqs ? " with rope_freqs" : "", c.rms_eps, c.qkv_bias ? "yes" : "no",
               c.tied_output ? "yes" : "no", c.qk_norm ? "yes" : "no", c.post_norms ? "yes" : "no", c.embed_scale,
               c.ffn_act == FfnActivation::GeluTanh ? "GeGLU (tanh)" : "SwiGLU", c.attn_scale);
  if (c.longrope) {
    std::fprintf(out, "           LongRoPE factors (long past context %d), attn factor %g\n", c.rope_orig_ctx,
                 c.rope_magnitude);
  }
  if (c.swa_period > 0) {
    std::fprintf(out, "           sliding window %d on layers l %% %d < %d, their rope base %g\n", c.sliding_window,
                 c.swa_period, c.swa_period - 1, c.rope_base_local);
  }
  print_metadata(f.metadata(), out);
  std::fprintf(out, "\ntensor slots (%zu, in file order; shape is rows x cols):\n", f.slots().size());
  std::fprintf(out, "  %4s %-36s %-5s %-14s %12s %12s\n", "slot", "name", "dtype", "shape", "bytes", "offset");
  DTypeTotals totals;
  for (size_t i = 0; i < f.slots().size(); ++i) {
    const BumpFile::Slot& s = f.slots()[i];
    const std::string shape = std::to_string(s.view.rows) + " x " + std::to_string(s.view.cols);
    std::fprintf(out, "  %4zu %-36s %-5s %-14s %12zu %12" PRIu64 "\n", i, s.name.c_str(),
                 std::string(traits(s.view.dtype).name).c_str(), shape.c_str(), s.view.bytes, s.offset);
    if (!s.view.empty()) totals.add(s.view.dtype, s.view.bytes);
  }
  totals.print(out);
}

}  // namespace ck::convert
