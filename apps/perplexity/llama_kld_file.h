// llama.cpp's KL-divergence base file, the one `llama-perplexity
// --kl-divergence-base FILE` writes and `--kl-divergence` reads, so that ck
// and llama.cpp can each compare against the other's reference (docs/apps.md).
//
// Layout (little endian; facts from llama.cpp's tools/perplexity):
//   char[8] "_logits_"; i32 n_ctx; i32 n_vocab; i32 n_chunk;
//   i32 tokens[n_ctx * n_chunk]   (the evaluated text, BOS not substituted)
//   per chunk, per scored position (n_ctx - 1 - n_ctx/2 of them), nv =
//   2 * ((n_vocab + 1) / 2) + 4 uint16 values: f32 scale and f32 min_log_prob
//   (the first four), then one u16 q per token (and one padding value when
//   n_vocab is odd), with log p(token) = scale * q + min_log_prob.
// The logits are clamped 16 below the largest (q = 0 there), scale = (max -
// min) / 65535, q rounded to nearest.
#pragma once
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <span>
#include <vector>

#include "apps/perplexity/kld_file.h"
#include "apps/perplexity/position_kld.h"

namespace ck::app {

// One position in llama.cpp's encoding: nv uint16 values as written.
std::vector<uint16_t> encode_llama_row(std::span<const float> logits);

// llama-perplexity's comparison of the model's `logits` with an encoded
// reference row: the same float operations in the same order (KL summed over
// the tokens whose reference log-probability exceeds -16, the reference's
// top token the first of its largest q).
PositionKld compare_llama_row(std::span<const float> logits, std::span<const uint16_t> row, int32_t target);

// Writes rows as they come; close() checks that every promised row was
// written. KldHeader::top_k is unused (0).
class LlamaKldWriter {
 public:
  LlamaKldWriter(const std::filesystem::path& path, const KldHeader& header, std::span<const int32_t> tokens);
  void add(std::span<const float> logits);
  void close();

 private:
  std::filesystem::path path_;
  KldHeader header_;
  std::ofstream out_;
  uint64_t rows_ = 0;
};

class LlamaKldReader {
 public:
  // Validates the magic, the header, the file size and the token ids.
  explicit LlamaKldReader(const std::filesystem::path& path);
  const KldHeader& header() const { return header_; }
  const std::vector<int32_t>& tokens() const { return tokens_; }
  // The next row in file order (nv values).
  std::span<const uint16_t> next();

 private:
  std::filesystem::path path_;
  KldHeader header_;
  std::vector<int32_t> tokens_;
  std::vector<uint16_t> row_;
  std::ifstream in_;
};

// Whether the file starts with llama.cpp's magic (else it is ck's own top-k
// file, or neither).
bool is_llama_kld_file(const std::filesystem::path& path);

}  // namespace ck::app
