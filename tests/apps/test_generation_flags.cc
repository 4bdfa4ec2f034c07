// ck-run's everyday llama.cpp flags of issue 13, end to end on stories260K
// (greedy: "Once upon a time, there was a little girl named Lily. She ...").
#include <catch2/catch.hpp>

#include <regex>

#include "app_test_support.h"
#include "subprocess.h"

using ck::test::occurrences;
using ck::test::run_app;
using ck::test::stories_model;

namespace {

ck::test::ProcessResult greedy(std::vector<std::string> extra, int n = 24) {
  std::vector<std::string> argv = {"ck-run", "-m", stories_model(), "-p", "Once upon a time", "-n",
                                   std::to_string(n), "--temp", "0"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run_app(argv);
}

}  // namespace

TEST_CASE("ck-run -r stops at the reverse prompt, which is printed", "[ck-run][flags][issue13]") {
  const auto plain = greedy({}, 40);
  REQUIRE(plain.exit_code == 0);
  REQUIRE(plain.out.find("Lily") != std::string::npos);
  const auto r = greedy({"-r", "Lily", "-r", "never seen"}, 40);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == plain.out.substr(0, plain.out.find("Lily") + 4));
  CHECK(r.err.find("stopped: reverse prompt (-r)") != std::string::npos);
  // Escapes apply to -r: "\x2e" is a full stop, unless --no-escape.
  CHECK(greedy({"-r", "\\x2e"}, 40).out == "Once upon a time, there was a little girl named Lily.");
  CHECK(greedy({"-r", "\\x2e", "--no-escape"}, 40).out == plain.out);
}

TEST_CASE("ck-run processes escapes in -p by default and --no-escape keeps them", "[ck-run][flags][issue13]") {
  const auto esc = run_app({"ck-run", "-m", stories_model(), "-p", "Once\\tupon a \\\"time\\\"", "-n", "1"});
  INFO(esc.err);
  CHECK(esc.exit_code == 0);
  CHECK(esc.out.rfind("Once\tupon a \"time\"", 0) == 0);
  const auto raw =
      run_app({"ck-run", "-m", stories_model(), "-p", "Once\\tupon a \\\"time\\\"", "-n", "1", "--no-escape"});
  CHECK(raw.out.rfind("Once\\tupon a \\\"time\\\"", 0) == 0);
  const auto e = run_app({"ck-run", "-m", stories_model(), "-p", "a\\nb", "-n", "1", "-e"});
  CHECK(e.out.rfind("a\nb", 0) == 0);
}

TEST_CASE("ck-run --logit-bias and --ignore-eos", "[ck-run][flags][issue13]") {
  const auto plain = greedy({}, 4);
  REQUIRE(plain.out.rfind("Once upon a time,", 0) == 0);  // ',' (432) comes first
  SECTION("-inf bans a token") {
    const auto r = greedy({"--logit-bias", "432-inf"}, 4);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.rfind("Once upon a time,", 0) != 0);
  }
  SECTION("a large bias on the end-of-sequence token ends at once; --ignore-eos bans it") {
    const auto eos = greedy({"-l", "2+100"}, 4);
    CHECK(eos.out == "Once upon a time");
    CHECK(eos.err.find("stopped: end-of-generation token") != std::string::npos);
    const auto ignored = greedy({"-l", "2+100", "--ignore-eos"}, 4);
    CHECK(ignored.err.find("stopped: -n limit") != std::string::npos);
    CHECK(ignored.err.find("/     4 tokens") != std::string::npos);
  }
  SECTION("a malformed bias or an unknown token: one error line") {
    for (const char* bias : {"432", "x+1", "432*2", "99999+1"}) {
      const auto r = greedy({"--logit-bias", bias}, 4);
      INFO(bias << ": " << r.err);
      CHECK(r.exit_code == 1);
      CHECK(r.err.find("ck-run: error: ") != std::string::npos);
      CHECK(occurrences(r.err, "error") == 1);
    }
  }
}

TEST_CASE("ck-run --n-probs and --verbose-prompt report on stderr", "[ck-run][flags][issue13]") {
  const auto r = greedy({"--n-probs", "3", "--verbose-prompt"}, 5);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == greedy({}, 5).out);  // stdout unchanged
  CHECK(r.err.find("prompt: 'Once upon a time'\nnumber of tokens in prompt = 5\n     1 -> '<s>'\n   403 -> ' Once'\n") !=
        std::string::npos);
  CHECK(occurrences(r.err, "probs: ") == 5);
  CHECK(r.err.find("probs: ',' (432) | ',' 0.") != std::string::npos);
  CHECK(std::regex_search(r.err, std::regex(R"(probs: .*( \| '[^']*' [01]\.\d{4}){3}\n)")));
}

TEST_CASE("ck-run takes llama.cpp's sampler flags", "[ck-run][flags][issue13]") {
  const auto r = run_app({"ck-run", "-m", stories_model(), "-p", "Once upon a time", "-n", "16", "-s", "1",
                          "--presence-penalty", "0.5", "--frequency-penalty", "0.5", "--repeat-penalty", "1.1",
                          "--typical", "0.9", "--dry-multiplier", "0.8", "--dry-base", "1.75", "--dry-allowed-length",
                          "2", "--dry-penalty-last-n", "-1", "--dry-sequence-breaker", "\\n", "--xtc-probability",
                          "0.5", "--xtc-threshold", "0.1", "--samplers", "penalties;dry;top_k;typ_p;xtc;temperature"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  const auto m = run_app({"ck-run", "-m", stories_model(), "-p", "Once upon a time", "-n", "16", "-s", "1",
                          "--mirostat", "2", "--mirostat-lr", "0.2", "--mirostat-ent", "3", "--sampling-seq", "kt"});
  INFO(m.err);
  CHECK(m.exit_code == 0);
  const auto m1 = run_app({"ck-run", "-m", stories_model(), "-p", "Once upon a time", "-n", "16", "-s", "1",
                           "--mirostat", "1", "--mirostat-lr", "0.2", "--mirostat-ent", "3"});
  INFO(m1.err);
  CHECK(m1.exit_code == 0);
  SECTION("what it refuses, naming the flag") {
    const std::pair<std::vector<std::string>, std::string> bad[] = {
        {{"--samplers", "top_k;magic"}, "--samplers: unknown sampler 'magic'"},
        {{"--sampling-seq", "kq"}, "--sampling-seq: unknown sampler letter 'q'"},
        {{"--mirostat", "3"}, "mirostat must be 0 (off), 1 or 2, got 3"},
        {{"--typical", "0"}, "typical-p must be in (0, 1]"},
        {{"--n-probs", "-1"}, "--n-probs must be >= 0"},
    };
    for (const auto& [flags, message] : bad) {
      const auto r2 = greedy(flags, 2);
      INFO(flags[0] << ": " << r2.err);
      CHECK(r2.exit_code == 1);
      CHECK(r2.err.find(message) != std::string::npos);
    }
  }
}

TEST_CASE("ck-chat: -r hands the turn back, --in-prefix/--in-suffix wrap each message", "[chat][flags][issue13]") {
  // stories260K has no template: the conversation is plain text.
  const auto r = run_app({"ck-chat", "-m", stories_model(), "-r", "Lily", "-n", "40", "--temp", "0", "--in-prefix",
                          "<", "--in-suffix", "\\t", "--verbose-prompt"},
                         "Once upon a time\nThe dog\n");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(occurrences(r.err, "[ prompt:") == 2);  // both messages answered
  CHECK(r.out.find("Lily\n") != std::string::npos);
  CHECK(r.err.find("prompt: '<Once upon a time\t'\n") != std::string::npos);
  CHECK(r.err.find("<The dog\t'\n") != std::string::npos);
}

TEST_CASE("ck-run --bump-dir and CK_BUMP_DIR choose where the bump goes and ck-convert lists and cleans it",
          "[bump-dir][issue13]") {
  const std::string dir = ck::test::temp_path("ck_bump_dir");
  std::filesystem::remove_all(dir);
  const auto r = run_app({"ck-run", "-m", stories_model(), "-p", "Once", "-n", "1", "--bump-dir", dir});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("ck: converting " + stories_model() + " to " + dir + "/stories260K.") != std::string::npos);
  ck::test::ProcessOptions env;
  env.set_env = {{"CK_BUMP_DIR", dir}};
  // The other apps find it there (no second conversion).
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{"ck-run", "-m", stories_model(), "-p", "Once", "-n", "1"},
        {"ck-perplexity", "-m", stories_model(), "-f", ck::test::temp_file("ck_ppl.txt", std::string(600, 'a')), "-c",
         "128", "--chunks", "1"}}) {
    const auto again = run_app(argv, "", env);
    INFO(argv[0] << ": " << again.err);
    CHECK(again.exit_code == 0);
    CHECK(again.err.find("converting") == std::string::npos);
    CHECK(again.err.find(dir + "/stories260K.") != std::string::npos);
  }
  const auto list = run_app({"ck-convert", "--cache-list"}, "", env);
  INFO(list.err);
  CHECK(list.exit_code == 0);
  CHECK(list.out.find(dir + "/stories260K.") != std::string::npos);
  CHECK(list.out.find("1 bump, 1.2 MB in " + dir + "\n") != std::string::npos);
  const auto clean = run_app({"ck-convert", "--cache-clean", "--bump-dir", dir});
  CHECK(clean.exit_code == 0);
  CHECK(clean.out.find("removed 1 bump from " + dir) != std::string::npos);
  CHECK(std::filesystem::is_empty(dir));  // the .config.json went too
  std::filesystem::remove_all(dir);
}
