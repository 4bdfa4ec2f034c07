#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "apps/common/flag_aliases.h"

TEST_CASE("AliasedArgs respells llama.cpp's multi-letter short flags", "[flags]") {
  std::vector<std::string> in = {"ck-bench", "-pg", "512,128", "-pg=64,16", "-p", "-pgx", "--pg"};
  std::vector<char*> argv;
  for (auto& s : in) argv.push_back(s.data());
  ck::app::AliasedArgs args(static_cast<int>(argv.size()), argv.data(), {{"-pg", "--pg"}, {"-sys", "--system-prompt"}});
  REQUIRE(args.argc() == 7);
  const std::vector<std::string> out(args.argv(), args.argv() + args.argc());
  CHECK(out == std::vector<std::string>{"ck-bench", "--pg", "512,128", "--pg=64,16", "-p", "-pgx", "--pg"});
  CHECK(args.argv()[7] == nullptr);
}
