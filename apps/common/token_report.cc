#include "apps/common/token_report.h"

#include <cstdio>

namespace ck::app {
namespace {

std::string quoted_piece(const tok::Tokenizer& tokenizer, int32_t id) {
  return "'" + tokenizer.token_to_piece(id, /*render_special=*/true) + "'";
}

}  // namespace

std::string token_probs_line(const tok::Tokenizer& tokenizer, int32_t chosen, Sampler& sampler, int n_probs) {
  std::string line = "probs: " + quoted_piece(tokenizer, chosen) + " (" + std::to_string(chosen) + ")";
  char p[32];
  for (const sampling::Candidate& c : sampler.last_distribution(static_cast<size_t>(n_probs))) {
    std::snprintf(p, sizeof p, " %.4f", static_cast<double>(c.p));
    line += " | " + quoted_piece(tokenizer, c.id) + p;
  }
  return line + "\n";
}

std::string token_list_line(const tok::Tokenizer& tokenizer, int32_t id) {
  char number[16];
  std::snprintf(number, sizeof number, "%6d", id);
  return std::string(number) + " -> " + quoted_piece(tokenizer, id) + "\n";
}

std::string verbose_prompt_text(const tok::Tokenizer& tokenizer, const std::string& prompt,
                                std::span<const int32_t> tokens) {
  std::string out = "prompt: '" + prompt + "'\nnumber of tokens in prompt = " + std::to_string(tokens.size()) + "\n";
  for (int32_t t : tokens) out += token_list_line(tokenizer, t);
  return out;
}

}  // namespace ck::app
