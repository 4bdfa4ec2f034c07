// Token text -> id lookup over the vocabulary strings (which it does not
// own: they must outlive the index and stay where they are).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ck::tok {

class TokenIndex {
 public:
  // Throws when a text appears twice (llama.cpp refuses such vocabularies
  // too: which id would the text encode to?). Empty texts are not indexed.
  explicit TokenIndex(const std::vector<std::string>& tokens);

  // The id of the token spelled `text`, or -1.
  int32_t find(std::string_view text) const {
    auto it = map_.find(text);
    return it == map_.end() ? -1 : it->second;
  }

 private:
  std::unordered_map<std::string_view, int32_t> map_;
};

}  // namespace ck::tok
