#include "apps/perplexity/kld_file.h"

#include "apps/perplexity/binary_io.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>

namespace ck::app {
namespace {

constexpr char kMagic[8] = {'C', 'K', 'K', 'L', 'D', '0', '0', '1'};
constexpr uint64_t kHeaderBytes = sizeof kMagic + 4 * sizeof(uint32_t);

uint64_t row_bytes(const KldHeader& h) { return sizeof(float) + uint64_t{h.top_k} * (sizeof(int32_t) + sizeof(float)); }

uint64_t expected_size(const KldHeader& h) {
  return kHeaderBytes + uint64_t{h.n_ctx} * h.n_chunk * sizeof(int32_t) +
         uint64_t{h.n_chunk} * h.n_scored() * row_bytes(h);
}

}  // namespace

void check_token_ids(std::span<const int32_t> tokens, uint32_t n_vocab, const std::filesystem::path& path) {
  for (int32_t t : tokens) {
    if (t < 0 || static_cast<uint32_t>(t) >= n_vocab) {
      throw std::runtime_error(path.string() + ": token id " + std::to_string(t) + " outside the vocabulary");
    }
  }
}

BaseRow summarize_logits(std::span<const float> logits, int32_t target, int top_k) {
  if (target < 0 || static_cast<size_t>(target) >= logits.size()) {
    throw std::out_of_range("summarize_logits: target " + std::to_string(target) + " outside the vocabulary");
  }
  const float max_logit = *std::max_element(logits.begin(), logits.end());
  double sum_exp = 0;
  for (float v : logits) sum_exp += std::exp(v - max_logit);
  const double lse = max_logit + std::log(sum_exp);

  const size_t k = std::min<size_t>(static_cast<size_t>(top_k), logits.size());
  std::vector<int32_t> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](int32_t a, int32_t b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); });
  BaseRow row;
  row.logp_target = static_cast<float>(logits[target] - lse);
  row.ids.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k));
  for (int32_t id : row.ids) row.logp.push_back(static_cast<float>(logits[id] - lse));
  return row;
}

KldBaseWriter::KldBaseWriter(const std::filesystem::path& path, const KldHeader& header,
                             std::span<const int32_t> tokens)
    : path_(path), header_(header), out_(path, std::ios::binary | std::ios::trunc) {
  if (!out_) throw std::runtime_error(path.string() + ": cannot open for writing");
  if (header.top_k == 0) throw std::invalid_argument("--kl-top-k must be at least 1");
  if (tokens.size() != uint64_t{header.n_ctx} * header.n_chunk) {
    throw std::logic_error("KldBaseWriter: token count does not match n_ctx * n_chunk");
  }
  out_.write(kMagic, sizeof kMagic);
  const uint32_t fields[4] = {header.n_ctx, header.n_vocab, header.n_chunk, header.top_k};
  put(out_, fields, 4);
  put(out_, tokens.data(), tokens.size());
}

void KldBaseWriter::add(const BaseRow& row) {
  if (row.ids.size() != header_.top_k || row.logp.size() != header_.top_k) {
    throw std::logic_error("KldBaseWriter: row has " + std::to_string(row.ids.size()) + " entries, expected " +
                           std::to_string(header_.top_k));
  }
  put(out_, &row.logp_target, 1);
  put(out_, row.ids.data(), row.ids.size());
  put(out_, row.logp.data(), row.logp.size());
  ++rows_;
}

std::vector<int32_t> read_kld_tokens(std::ifstream& in, const std::filesystem::path& path, const KldHeader& header,
                                     uint64_t expected) {
  const uint64_t size = std::filesystem::file_size(path);
  if (size != expected) {
    throw std::runtime_error(path.string() + ": file is " + std::to_string(size) + " bytes, its header says " +
                             std::to_string(expected));
  }
  std::vector<int32_t> tokens(uint64_t{header.n_ctx} * header.n_chunk);
  get(in, tokens.data(), tokens.size(), path, "the tokens");
  check_token_ids(tokens, header.n_vocab, path);
  return tokens;
}

void close_kld_rows(std::ofstream& out, const std::filesystem::path& path, uint64_t rows, uint64_t promised,
                    const char* who) {
  out.flush();
  if (!out) throw std::runtime_error(path.string() + ": write failed (disk full?)");
  if (rows != promised) {
    throw std::logic_error(std::string(who) + ": wrote " + std::to_string(rows) + " rows of " +
                           std::to_string(promised));
  }
  out.close();
}

void KldBaseWriter::close() {
  close_kld_rows(out_, path_, rows_, uint64_t{header_.n_chunk} * header_.n_scored(), "KldBaseWriter");
}

KldBaseReader::KldBaseReader(const std::filesystem::path& path) : path_(path), in_(path, std::ios::binary) {
  if (!in_) throw std::runtime_error(path.string() + ": cannot open");
  char magic[8];
  get(in_, magic, sizeof magic, path, "the magic");
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) {
    throw std::runtime_error(path.string() + ": not a KL-divergence base file (its magic is neither llama.cpp's _logits_ nor ck's CKKLD001)");
  }
  uint32_t fields[4];
  get(in_, fields, 4, path, "the header");
  header_ = {fields[0], fields[1], fields[2], fields[3]};
  if (header_.n_ctx < 4 || header_.n_vocab == 0 || header_.n_chunk == 0 || header_.top_k == 0 ||
      header_.top_k > header_.n_vocab) {
    throw std::runtime_error(path.string() + ": bad header (n_ctx " + std::to_string(header_.n_ctx) + ", n_vocab " +
                             std::to_string(header_.n_vocab) + ", n_chunk " + std::to_string(header_.n_chunk) +
                             ", top_k " + std::to_string(header_.top_k) + ")");
  }
  tokens_ = read_kld_tokens(in_, path, header_, expected_size(header_));
}

void KldBaseReader::next(BaseRow& row) {
  row.ids.resize(header_.top_k);
  row.logp.resize(header_.top_k);
  get(in_, &row.logp_target, 1, path_, "a row");
  get(in_, row.ids.data(), row.ids.size(), path_, "a row");
  get(in_, row.logp.data(), row.logp.size(), path_, "a row");
  for (int32_t id : row.ids) {
    if (id < 0 || static_cast<uint32_t>(id) >= header_.n_vocab) {
      throw std::runtime_error(path_.string() + ": top-k token id " + std::to_string(id) + " outside the vocabulary");
    }
  }
}

}  // namespace ck::app
