// The reference file of --kl-divergence-base in either format: llama.cpp's
// (the whole distribution as uint16, llama_kld_file.h; the default, so the
// two tools read each other's files) or ck's top-k (kld_file.h, with
// --kl-top-k: ~1/400 of the size for SmolLM2). Readers tell them apart by
// the magic.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "apps/perplexity/kld_file.h"
#include "apps/perplexity/position_kld.h"

namespace ck::app {

class ReferenceWriter {
 public:
  virtual ~ReferenceWriter() = default;
  // The reference's logits at the next scored position, predicting `target`.
  virtual void add(std::span<const float> logits, int32_t target) = 0;
  virtual void close() = 0;
};

class ReferenceReader {
 public:
  virtual ~ReferenceReader() = default;
  virtual const KldHeader& header() const = 0;  // top_k 0: llama.cpp's file
  virtual const std::vector<int32_t>& tokens() const = 0;
  // The model's `logits` at the next scored position against the reference's.
  virtual PositionKld compare_next(std::span<const float> logits, int32_t target) = 0;
};

// header.top_k 0 writes llama.cpp's format, else ck's top-k one.
std::unique_ptr<ReferenceWriter> create_reference(const std::filesystem::path& path, const KldHeader& header,
                                                  std::span<const int32_t> tokens);
std::unique_ptr<ReferenceReader> open_reference(const std::filesystem::path& path);

// "llama.cpp's full distribution" or "ck's top-32".
std::string describe_reference(const KldHeader& header);

}  // namespace ck::app
