#include "runtime/model.h"

#include <spdlog/spdlog.h>

#include <map>
#include <stdexcept>

#include "kernels/dtype.h"
#include "kernels/simd_target.h"
#include "loader/convert.h"
#include "loader/huge_page_mend.h"
#include "runtime/features.h"
#include "runtime/memory.h"
#include "runtime/weights.h"

namespace ck {

struct Model::Impl {
  std::filesystem::path path;
  BumpFile file;
  Weights weights;
  tok::Tokenizer tokenizer;
};

Model::Model() = default;
Model::~Model() = default;

std::unique_ptr<Model> Model::load(const std::filesystem::path& path, const LoadOptions& opts) {
  const auto report = [&opts](std::string_view step) -> std::function<void(uint64_t, uint64_t)> {
    if (!opts.progress) return {};
    return [&opts, step](uint64_t done, uint64_t total) { opts.progress(step, done, total); };
  };
  const std::filesystem::path bump = prepare_model(path, report("converting"), opts.bump_dir);
  BumpFile file = BumpFile::open(bump, {.verify = opts.verify});
  const ModelConfig& c = file.config();
  refuse_unsupported_features(file.metadata(), c.arch, file.source());
  // The weights read in now where they fit in memory beside what is there:
  // the forward pass would read them all at its first token anyway.
  if (opts.settle_pages) {
    const auto available = mem_available_bytes();
    const HugePageMend mend = mend_huge_pages(
        file.mapped(), available && file.file_size() <= *available ? Uncached::kReadIn : Uncached::kLeave,
        report("reading"));
    spdlog::debug("{}: {} 2 MiB stretches, {} of them cached and {} read in, {} in 2 MiB pages, {} read back, {} after",
                  bump.string(), mend.chunks, mend.cached, mend.read_in, mend.huge_before, mend.reread,
                  mend.huge_after);
  }
  Weights weights = weights_from_bump(file);
  tok::Tokenizer tokenizer(file.vocab());
  if (tokenizer.n_vocab() > c.vocab_size) {
    throw std::runtime_error(file.source() + ": the tokenizer has " + std::to_string(tokenizer.n_vocab()) +
                             " tokens but the embedding only " + std::to_string(c.vocab_size) + " rows");
  }
  // --log-level debug in the apps: what was loaded and which kernels run it.
  spdlog::debug("{}: {} {} layers, dim {}, trained context {}, vocabulary {}; kernels: SIMD target {}",
                bump.string(), c.arch, c.n_layers, c.dim, c.context_len, tokenizer.n_vocab(), active_simd_target());
  std::unique_ptr<Model> m(new Model());
  m->impl_ = std::make_unique<Impl>(Impl{bump, std::move(file), std::move(weights), std::move(tokenizer)});
  return m;
}

const ModelConfig& Model::config() const { return impl_->file.config(); }
const tok::Tokenizer& Model::tokenizer() const { return impl_->tokenizer; }
const BumpFile& Model::file() const { return impl_->file; }
const Weights& Model::weights() const { return impl_->weights; }
const std::filesystem::path& Model::path() const { return impl_->path; }
size_t Model::weight_bytes() const { return impl_->file.weight_bytes(); }

size_t Model::decode_bytes_per_token() const {
  const Weights& w = impl_->weights;
  size_t bytes = w.output.bytes + w.output_norm.bytes + w.token_embd.bytes / w.token_embd.rows;
  for (const LayerView& L : w.layers) {
    for (const TensorView* t : {&L.attn_norm, &L.ffn_norm, &L.wq, &L.bq, &L.wk, &L.bk, &L.wv, &L.bv, &L.wo,
                                &L.w_gate_up, &L.w_down}) {
      bytes += t->bytes;
    }
  }
  return bytes;
}

int64_t Model::n_params() const {
  int64_t n = 0;
  for (const BumpFile::Slot& s : impl_->file.slots()) n += s.view.rows * s.view.cols;
  return n;
}

std::string Model::dtype_mix() const {
  std::map<std::string, int> count;
  for (const BumpFile::Slot& s : impl_->file.slots()) {
    if (!s.view.empty()) ++count[std::string(traits(s.view.dtype).name)];
  }
  std::string out;
  for (const auto& [name, n] : count) out += (out.empty() ? "" : ", ") + name + " " + std::to_string(n);
  return out;
}

}  // namespace ck
