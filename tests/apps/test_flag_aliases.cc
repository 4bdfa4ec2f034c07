// llama.cpp's spellings before CLI11 parses (apps/common/flag_aliases.h).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "apps/common/flag_aliases.h"
#include "apps/common/llama_flags.h"

namespace {

// An app with a few of ck-run's options.
struct TestApp {
  CLI::App app{"test", "ck-test"};
  std::string prompt, system;
  int n = 0, top_k = 0;
  std::vector<std::string> pg;
  bool chat = false;
  TestApp() {
    app.add_option("-p,--prompt", prompt);
    app.add_option("-n,--n-predict", n);
    app.add_option("--top-k", top_k);
    app.add_option("--system-prompt", system);
    app.add_option("--pg", pg);
    app.add_flag("--chat,--conversation", chat);
  }
};

ck::app::NormalizedArgs normalize(std::vector<std::string> args, const ck::app::FlagSpellings& sp) {
  TestApp t;
  args.insert(args.begin(), "ck-test");
  return ck::app::normalize_args(t.app, args, sp);
}

}  // namespace

TEST_CASE("llama.cpp's multi-letter single-dash flags are respelled as the long option", "[flags]") {
  const auto common = normalize({"-sys", "be brief", "-cnv", "-p", "x"}, ck::app::llama_common_flags());
  CHECK(common.args == std::vector<std::string>{"ck-test", "--system-prompt=be brief", "--conversation", "--prompt=x"});
  const auto bench = normalize({"-pg", "512,128", "-pg=64,16"}, ck::app::llama_bench_flags());
  CHECK(bench.args == std::vector<std::string>{"ck-test", "--pg=512,128", "--pg=64,16"});
}

TEST_CASE("a value is the option's value, also when it starts with a dash", "[flags]") {
  const auto r = normalize({"-p", "-hello", "--top-k", "-1", "-n", "-1"}, {});
  CHECK(r.args == std::vector<std::string>{"ck-test", "--prompt=-hello", "--top-k=-1", "--n-predict=-1"});
}

TEST_CASE("flags without meaning on a CPU are dropped with their value and a note", "[flags]") {
  const auto r = normalize({"-ngl", "99", "-fa", "-p", "x", "-fa", "on", "-ub", "256", "--no-mmap", "-n", "4"},
                           ck::app::llama_common_flags());
  CHECK(r.args == std::vector<std::string>{"ck-test", "--prompt=x", "--n-predict=4"});
  REQUIRE(r.notes.size() == 5);
  CHECK(r.notes[0] == "-ngl 99 ignored: ck runs on the CPU only");
  CHECK(r.notes[1].rfind("-fa ignored:", 0) == 0);
  CHECK(r.notes[2].rfind("-fa on ignored:", 0) == 0);
  CHECK(r.notes[3] == "-ub 256 ignored: ck has one batch size, -b");
  CHECK(r.notes[4].rfind("--no-mmap ignored:", 0) == 0);
}

TEST_CASE("an unknown flag is refused naming it, not split into a letter and a value", "[flags]") {
  for (const char* flag : {"-ngx", "-tk", "-no-such-flag", "--no-such-flag", "-x", "-n5"}) {
    INFO(flag);
    CHECK_THROWS_WITH(normalize({flag, "1"}, ck::app::llama_common_flags()),
                      Catch::Contains(std::string("unknown flag ") + flag));
  }
  // An alias whose target this app lacks is unknown too (-st: no --single-turn here).
  CHECK_THROWS_WITH(normalize({"-st"}, ck::app::llama_common_flags()), Catch::Contains("unknown flag -st"));
}

TEST_CASE("an empty value stays a value", "[flags]") {
  const auto r = normalize({"-p", "", "-n", "1"}, {});
  CHECK(r.args == std::vector<std::string>{"ck-test", "-p", "", "--n-predict=1"});
}

TEST_CASE("an attached value keeps its option: -p=x, --prompt=x", "[flags]") {
  const auto r = normalize({"-p=a=b", "--n-predict=3"}, {});
  CHECK(r.args == std::vector<std::string>{"ck-test", "--prompt=a=b", "--n-predict=3"});
}
