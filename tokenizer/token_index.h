// Token text -> id lookup over the vocabulary strings (which it does not
// own: they must outlive the index and stay where they are). Looked up for
// every candidate merge of SPM, so an open-addressing table of ids, not
// std::unordered_map's node chains.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ck::tok {

class TokenIndex {
 public:
  // Throws when a text appears twice (llama.cpp refuses such vocabularies
  // too: which id would the text encode to?). Empty texts are not indexed.
  explicit TokenIndex(const std::vector<std::string>& tokens);

  // The id of the token spelled `text`, or -1.
  int32_t find(std::string_view text) const {
    for (size_t slot = hash(text) & mask_;; slot = (slot + 1) & mask_) {
      const int32_t id = slots_[slot];
      if (id < 0 || (*tokens_)[id] == text) return id;
    }
  }

 private:
  // FNV-1a: token texts are short, and it needs no tables.
  static size_t hash(std::string_view text) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (char c : text) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001B3ull;
    return static_cast<size_t>(h ^ (h >> 32));
  }

  const std::vector<std::string>* tokens_;
  std::vector<int32_t> slots_;  // token ids; -1 = empty
  size_t mask_;
};

}  // namespace ck::tok
