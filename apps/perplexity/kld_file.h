// The --kl-divergence-base file: what a reference model predicted at every
// scored position, so a second model (e.g. a quantization of it) can be
// compared without running both at once.
//
// Decision: keep the top-k log-probabilities (k = 32 by default) plus the
// exact log-probability of the actual next token, instead of llama.cpp's full
// uint16-quantized distribution. For SmolLM2 (49152 tokens) over WikiText-2 at
// -c 512 that is ~40 MB instead of ~15 GB. The KL divergence is then computed
// over k+1 bins (the top-k tokens and "everything else"), which is a lower bound
// of the full KL divergence (merging outcomes never increases it) and equal to
// it when the reference puts negligible mass outside its top k; PPL, Δp and
// same-top are exact.
//
// Layout (little endian):
//   char[8] "CKKLD001"; u32 n_ctx, n_vocab, n_chunk, top_k;
//   i32 tokens[n_ctx * n_chunk]   (the evaluated text, BOS not substituted)
//   per chunk, per scored position (n_ctx - 1 - n_ctx/2 of them):
//     f32 logp_target; i32 ids[top_k]; f32 logp[top_k]   (largest first)
#pragma once
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <span>
#include <vector>

namespace ck::app {

struct BaseRow {
  float logp_target = 0;      // log p(actual next token)
  std::vector<int32_t> ids;   // top-k token ids, most probable first
  std::vector<float> logp;    // their log-probabilities
};

// The reference summary of one position: log-softmax of `logits`, its top k
// and the target's log-probability.
BaseRow summarize_logits(std::span<const float> logits, int32_t target, int top_k);

struct KldHeader {
  uint32_t n_ctx = 0, n_vocab = 0, n_chunk = 0, top_k = 0;  // top_k 0: llama.cpp's file (llama_kld_file.h)
  uint32_t n_scored() const { return n_ctx - 1 - n_ctx / 2; }
};

// Throws naming the file unless every token id is below n_vocab.
void check_token_ids(std::span<const int32_t> tokens, uint32_t n_vocab, const std::filesystem::path& path);

// The end of writing a base file: flushes `out`, checks that the writes
// succeeded and that `rows` is the `promised` count (a logic error of the
// writer `who` otherwise), and closes it.
void close_kld_rows(std::ofstream& out, const std::filesystem::path& path, uint64_t rows, uint64_t promised,
                    const char* who);

// What follows a base file's header: checks the file's size against
// `expected` bytes, then reads the n_ctx x n_chunk tokens and checks their ids.
std::vector<int32_t> read_kld_tokens(std::ifstream& in, const std::filesystem::path& path, const KldHeader& header,
                                     uint64_t expected);

class KldBaseWriter {
 public:
  KldBaseWriter(const std::filesystem::path& path, const KldHeader& header, std::span<const int32_t> tokens);
  void add(const BaseRow& row);
  void close();  // flushes and checks that every promised row was written

 private:
  std::filesystem::path path_;
  KldHeader header_;
  std::ofstream out_;
  uint64_t rows_ = 0;
};

class KldBaseReader {
 public:
  // Validates the magic, the header and that the file size matches it.
  explicit KldBaseReader(const std::filesystem::path& path);
  const KldHeader& header() const { return header_; }
  const std::vector<int32_t>& tokens() const { return tokens_; }
  void next(BaseRow& row);  // the rows in file order

 private:
  std::filesystem::path path_;
  KldHeader header_;
  std::vector<int32_t> tokens_;
  std::ifstream in_;
};

}  // namespace ck::app
