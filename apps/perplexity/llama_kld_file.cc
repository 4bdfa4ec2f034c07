#include "apps/perplexity/llama_kld_file.h"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "apps/perplexity/binary_io.h"

namespace ck::app {
namespace {

constexpr char kMagic[8] = {'_', 'l', 'o', 'g', 'i', 't', 's', '_'};
constexpr uint64_t kHeaderBytes = sizeof kMagic + 3 * sizeof(int32_t);
// The reference's log-probabilities are kept down to 16 below its largest.
constexpr float kRange = 16.0f;

uint64_t values_per_row(uint32_t n_vocab) { return 2 * ((uint64_t{n_vocab} + 1) / 2) + 4; }

uint64_t expected_size(const KldHeader& h) {
  return kHeaderBytes + uint64_t{h.n_ctx} * h.n_chunk * sizeof(int32_t) +
         uint64_t{h.n_chunk} * h.n_scored() * values_per_row(h.n_vocab) * sizeof(uint16_t);
}

// Round to nearest by the 1.5 * 2^23 trick, as llama.cpp (ties to even).
int nearest_int(float v) {
  const float shifted = v + 12582912.0f;
  int32_t bits;
  std::memcpy(&bits, &shifted, sizeof bits);
  return (bits & 0x007fffff) - 0x00400000;
}

// The two floats at the start of an encoded row.
void row_scale(std::span<const uint16_t> row, float& scale, float& min_log_prob) {
  std::memcpy(&scale, row.data(), sizeof(float));
  std::memcpy(&min_log_prob, row.data() + 2, sizeof(float));
}

}  // namespace

std::vector<uint16_t> encode_llama_row(std::span<const float> logits) {
  std::vector<uint16_t> row(values_per_row(static_cast<uint32_t>(logits.size())), 0);
  float max_logit = logits[0], min_logit = logits[0];
  for (float v : logits) {
    max_logit = std::max(max_logit, v);
    min_logit = std::min(min_logit, v);
  }
  min_logit = std::max(min_logit, max_logit - kRange);
  double sum_exp = 0.0;
  for (float v : logits) sum_exp += std::exp(v - max_logit);
  const auto log_sum_exp = static_cast<float>(std::log(sum_exp));
  const float min_log_prob = min_logit - max_logit - log_sum_exp;
  const float scale = (max_logit - min_logit) / 65535.0f;
  std::memcpy(row.data(), &scale, sizeof(float));
  std::memcpy(row.data() + 2, &min_log_prob, sizeof(float));
  if (scale != 0.0f) {
    const float inv_scale = 1.0f / scale;
    for (size_t i = 0; i < logits.size(); ++i) {
      row[4 + i] = logits[i] > min_logit ? static_cast<uint16_t>(nearest_int(inv_scale * (logits[i] - min_logit))) : 0;
    }
  }
  return row;
}

PositionKld compare_llama_row(std::span<const float> logits, std::span<const uint16_t> row, int32_t target) {
  if (target < 0 || static_cast<size_t>(target) >= logits.size() || row.size() != values_per_row(logits.size())) {
    throw std::out_of_range("compare_llama_row: target " + std::to_string(target) + " or row of " +
                            std::to_string(row.size()) + " values does not fit a vocabulary of " +
                            std::to_string(logits.size()));
  }
  float max_logit = logits[0];
  size_t imax = 0;
  for (size_t i = 1; i < logits.size(); ++i) {
    if (logits[i] > max_logit) {
      max_logit = logits[i];
      imax = i;
    }
  }
  double sum_exp = 0.0;
  for (float v : logits) sum_exp += std::exp(v - max_logit);
  const auto log_sum_exp = static_cast<float>(std::log(sum_exp));
  float scale, min_log_prob;
  row_scale(row, scale, min_log_prob);
  const std::span<const uint16_t> q = row.subspan(4, logits.size());

  const float nll = max_logit + log_sum_exp - logits[target];
  const float nll_base = -(scale * q[target] + min_log_prob);
  const float log_norm = max_logit + log_sum_exp;
  double kld = 0.0;
  size_t imax_base = 0;
  float p_log_base_max = 0.0f;
  for (size_t i = 0; i < logits.size(); ++i) {
    const float p_log_base = scale * q[i] + min_log_prob;
    if (i == 0 || p_log_base > p_log_base_max) {
      p_log_base_max = p_log_base;
      imax_base = i;
    }
    if (p_log_base > -kRange) kld += std::exp(p_log_base) * (p_log_base - logits[i] + log_norm);
  }
  const float p_diff = std::exp(-nll) - std::exp(-nll_base);
  return {kld, nll, nll_base, p_diff, imax == imax_base};
}

LlamaKldWriter::LlamaKldWriter(const std::filesystem::path& path, const KldHeader& header,
                               std::span<const int32_t> tokens)
    : path_(path), header_(header), out_(path, std::ios::binary | std::ios::trunc) {
  if (!out_) throw std::runtime_error(path.string() + ": cannot open for writing");
  if (tokens.size() != uint64_t{header.n_ctx} * header.n_chunk) {
    throw std::logic_error("LlamaKldWriter: token count does not match n_ctx * n_chunk");
  }
  out_.write(kMagic, sizeof kMagic);
  const int32_t fields[3] = {static_cast<int32_t>(header.n_ctx), static_cast<int32_t>(header.n_vocab),
                             static_cast<int32_t>(header.n_chunk)};
  put(out_, fields, 3);
  put(out_, tokens.data(), tokens.size());
}

void LlamaKldWriter::add(std::span<const float> logits) {
  if (logits.size() != header_.n_vocab) {
    throw std::logic_error("LlamaKldWriter: " + std::to_string(logits.size()) + " logits, vocabulary " +
                           std::to_string(header_.n_vocab));
  }
  const std::vector<uint16_t> row = encode_llama_row(logits);
  put(out_, row.data(), row.size());
  ++rows_;
}

void LlamaKldWriter::close() {
  close_kld_rows(out_, path_, rows_, uint64_t{header_.n_chunk} * header_.n_scored(), "LlamaKldWriter");
}

bool is_llama_kld_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[sizeof kMagic];
  return in.read(magic, sizeof magic) && std::memcmp(magic, kMagic, sizeof kMagic) == 0;
}

LlamaKldReader::LlamaKldReader(const std::filesystem::path& path) : path_(path), in_(path, std::ios::binary) {
  if (!in_) throw std::runtime_error(path.string() + ": cannot open");
  char magic[sizeof kMagic];
  get(in_, magic, sizeof magic, path, "the magic");
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) {
    throw std::runtime_error(path.string() + ": not a llama.cpp KL-divergence base file (magic is not _logits_)");
  }
  int32_t fields[3];
  get(in_, fields, 3, path, "the header");
  if (fields[0] < 4 || fields[1] <= 0 || fields[2] <= 0) {
    throw std::runtime_error(path.string() + ": bad header (n_ctx " + std::to_string(fields[0]) + ", n_vocab " +
                             std::to_string(fields[1]) + ", n_chunk " + std::to_string(fields[2]) + ")");
  }
  header_ = {static_cast<uint32_t>(fields[0]), static_cast<uint32_t>(fields[1]), static_cast<uint32_t>(fields[2]), 0};
  tokens_ = read_kld_tokens(in_, path, header_, expected_size(header_));
  row_.resize(values_per_row(header_.n_vocab));
}

std::span<const uint16_t> LlamaKldReader::next() {
  get(in_, row_.data(), row_.size(), path_, "a row");
  return row_;
}

}  // namespace ck::app
