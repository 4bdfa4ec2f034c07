// llama.cpp's multi-letter short flags (-pg, -sys, -sysf, ...) for CLI11,
// which only takes one-letter short names: they are respelled as the long
// option before parsing.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ck::app {

using FlagAlias = std::pair<std::string_view, std::string_view>;  // {"-pg", "--pg"}

// Keeps the argument strings; argv() points into them for run_app.
class AliasedArgs {
 public:
  AliasedArgs(int argc, char** argv, std::initializer_list<FlagAlias> aliases);
  int argc() const { return static_cast<int>(ptrs_.size()) - 1; }
  char** argv() { return ptrs_.data(); }

 private:
  std::vector<std::string> args_;
  std::vector<char*> ptrs_;
};

}  // namespace ck::app
