#include "tokenizer/special_split.h"

namespace ck::tok {

std::vector<Fragment> split_specials(std::string_view text, std::span<const int32_t> specials,
                                     const std::vector<std::string>& tokens) {
  std::vector<Fragment> fragments;
  if (text.empty()) return fragments;
  fragments.push_back({text, -1});
  std::vector<Fragment> next;
  for (const int32_t id : specials) {
    const std::string_view special = tokens[id];
    next.clear();
    for (const Fragment& fragment : fragments) {
      if (fragment.token >= 0) {
        next.push_back(fragment);
        continue;
      }
      std::string_view rest = fragment.text;
      for (size_t at; (at = rest.find(special)) != std::string_view::npos;) {
        if (at > 0) next.push_back({rest.substr(0, at), -1});
        next.push_back({{}, id});
        rest.remove_prefix(at + special.size());
      }
      if (!rest.empty()) next.push_back({rest, -1});
    }
    fragments.swap(next);
  }
  return fragments;
}

}  // namespace ck::tok
