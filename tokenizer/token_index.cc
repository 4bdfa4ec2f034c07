#include "tokenizer/token_index.h"

#include <stdexcept>

namespace ck::tok {

TokenIndex::TokenIndex(const std::vector<std::string>& tokens) : tokens_(&tokens) {
  size_t capacity = 16;
  while (capacity < 2 * tokens.size()) capacity *= 2;  // load factor at most 1/2
  slots_.assign(capacity, -1);
  mask_ = capacity - 1;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].empty()) continue;
    size_t slot = hash(tokens[i]) & mask_;
    for (; slots_[slot] >= 0; slot = (slot + 1) & mask_) {
      if (tokens[slots_[slot]] == tokens[i]) {
        throw std::runtime_error("tokenizer.ggml.tokens: '" + tokens[i] + "' appears twice (ids " +
                                 std::to_string(slots_[slot]) + " and " + std::to_string(i) +
                                 "), expected unique token texts");
      }
    }
    slots_[slot] = static_cast<int32_t>(i);
  }
}

}  // namespace ck::tok
