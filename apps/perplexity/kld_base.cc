#include "apps/perplexity/kld_base.h"

#include "apps/perplexity/kld_stats.h"
#include "apps/perplexity/llama_kld_file.h"

namespace ck::app {
namespace {

class TopKWriter final : public ReferenceWriter {
 public:
  TopKWriter(const std::filesystem::path& path, const KldHeader& header, std::span<const int32_t> tokens)
      : file_(path, header, tokens), top_k_(static_cast<int>(header.top_k)) {}
  void add(std::span<const float> logits, int32_t target) override {
    file_.add(summarize_logits(logits, target, top_k_));
  }
  void close() override { file_.close(); }

 private:
  KldBaseWriter file_;
  int top_k_;
};

class TopKReader final : public ReferenceReader {
 public:
  explicit TopKReader(const std::filesystem::path& path) : file_(path) {}
  const KldHeader& header() const override { return file_.header(); }
  const std::vector<int32_t>& tokens() const override { return file_.tokens(); }
  PositionKld compare_next(std::span<const float> logits, int32_t target) override {
    file_.next(row_);
    return compare_position(logits, row_, target);
  }

 private:
  KldBaseReader file_;
  BaseRow row_;
};

class LlamaWriter final : public ReferenceWriter {
 public:
  LlamaWriter(const std::filesystem::path& path, const KldHeader& header, std::span<const int32_t> tokens)
      : file_(path, header, tokens) {}
  void add(std::span<const float> logits, int32_t) override { file_.add(logits); }
  void close() override { file_.close(); }

 private:
  LlamaKldWriter file_;
};

class LlamaReader final : public ReferenceReader {
 public:
  explicit LlamaReader(const std::filesystem::path& path) : file_(path) {}
  const KldHeader& header() const override { return file_.header(); }
  const std::vector<int32_t>& tokens() const override { return file_.tokens(); }
  PositionKld compare_next(std::span<const float> logits, int32_t target) override {
    return compare_llama_row(logits, file_.next(), target);
  }

 private:
  LlamaKldReader file_;
};

}  // namespace

std::unique_ptr<ReferenceWriter> create_reference(const std::filesystem::path& path, const KldHeader& header,
                                                  std::span<const int32_t> tokens) {
  if (header.top_k == 0) return std::make_unique<LlamaWriter>(path, header, tokens);
  return std::make_unique<TopKWriter>(path, header, tokens);
}

std::unique_ptr<ReferenceReader> open_reference(const std::filesystem::path& path) {
  if (is_llama_kld_file(path)) return std::make_unique<LlamaReader>(path);
  return std::make_unique<TopKReader>(path);
}

std::string describe_reference(const KldHeader& header) {
  return header.top_k == 0 ? "llama.cpp's full distribution" : "ck's top-" + std::to_string(header.top_k);
}

}  // namespace ck::app
