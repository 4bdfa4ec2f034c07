#include "tokenizer/token_index.h"

#include <stdexcept>

namespace ck::tok {

TokenIndex::TokenIndex(const std::vector<std::string>& tokens) {
  map_.reserve(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].empty()) continue;
    auto [it, inserted] = map_.emplace(tokens[i], static_cast<int32_t>(i));
    if (!inserted) {
      throw std::runtime_error("tokenizer.ggml.tokens: '" + tokens[i] + "' appears twice (ids " +
                               std::to_string(it->second) + " and " + std::to_string(i) +
                               "), expected unique token texts");
    }
  }
}

}  // namespace ck::tok
