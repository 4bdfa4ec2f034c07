#include "apps/common/flag_aliases.h"

namespace ck::app {

AliasedArgs::AliasedArgs(int argc, char** argv, std::initializer_list<FlagAlias> aliases) : args_(argv, argv + argc) {
  for (std::string& a : args_) {
    for (const auto& [from, to] : aliases) {
      if (a == from) {
        a = to;
      } else if (a.size() > from.size() && a.compare(0, from.size(), from) == 0 && a[from.size()] == '=') {
        a = std::string(to) + a.substr(from.size());  // -pg=512,128
      }
    }
  }
  for (std::string& a : args_) ptrs_.push_back(a.data());
  ptrs_.push_back(nullptr);
}

}  // namespace ck::app
