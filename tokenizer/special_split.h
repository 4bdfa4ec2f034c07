// Cuts text at the special tokens written in it, before the BPE sees it.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ck::tok {

struct Fragment {
  std::string_view text;  // raw text to tokenize (when token < 0)
  int32_t token = -1;     // a special token found in the text
};

// llama.cpp's tokenizer_st_partition: for each special token in the given
// order (longest text first), every raw fragment is split at each of its
// occurrences, left to right. `specials` index `tokens`; none may be empty.
std::vector<Fragment> split_specials(std::string_view text, std::span<const int32_t> specials,
                                     const std::vector<std::string>& tokens);

}  // namespace ck::tok
