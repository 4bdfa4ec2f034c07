// ck-tokenize end to end: it must show what ck-run tokenizes, so it reads
// -f and special tokens as ck-run does (issue 13).
#include <catch2/catch.hpp>

#include <filesystem>

#include "app_test_support.h"
#include "subprocess.h"

using ck::test::run_app;

namespace {
const std::string kPhi3 = std::string(CK_SHARED_DATA) + "/tokenizer-tests/ggml-vocab-phi-3.gguf";
}  // namespace

TEST_CASE("ck-tokenize -f drops the file's final newline, as ck-run -f does", "[tokenize][issue13]") {
  const auto by_p = run_app({"ck-tokenize", "-m", kPhi3, "-p", "The capital of France is", "--ids"});
  REQUIRE(by_p.exit_code == 0);
  const auto file = ck::test::temp_file("ck_tok.txt", "The capital of France is\n");
  const auto by_f = run_app({"ck-tokenize", "-m", kPhi3, "-f", file, "--ids"});
  INFO(by_f.err);
  CHECK(by_f.exit_code == 0);
  CHECK(by_f.out == by_p.out);
  std::filesystem::remove(file);
}

TEST_CASE("ck-tokenize parses special tokens written in the text by default", "[tokenize][issue13]") {
  const auto def = run_app({"ck-tokenize", "-m", kPhi3, "-p", "<|user|>Hi", "--ids", "--no-bos"});
  const auto plain =
      run_app({"ck-tokenize", "-m", kPhi3, "-p", "<|user|>Hi", "--ids", "--no-bos", "--no-parse-special"});
  INFO(def.err << plain.err);
  REQUIRE(def.exit_code == 0);
  REQUIRE(plain.exit_code == 0);
  CHECK(def.out.rfind("32010 ", 0) == 0);  // <|user|>, one token
  CHECK(plain.out.rfind("32010 ", 0) != 0);
  CHECK(plain.out.size() > def.out.size());

  INFO(ck::test::kFetchSmol);
  REQUIRE(ck::test::have_smollm2());
  const auto smol = run_app({"ck-tokenize", "-m", ck::test::smollm2_model(), "-p", "<|im_start|>user", "--ids"});
  INFO(smol.err);
  CHECK(smol.exit_code == 0);
  CHECK(smol.out.rfind("1 ", 0) == 0);  // <|im_start|> is id 1
}

TEST_CASE("ck-tokenize --stdin and --show-count, as llama-tokenize", "[tokenize][issue13]") {
  const auto by_p = run_app({"ck-tokenize", "-m", kPhi3, "-p", "Hello world", "--ids"});
  const auto by_stdin = run_app({"ck-tokenize", "-m", kPhi3, "--stdin", "--ids"}, "Hello world");
  INFO(by_stdin.err);
  REQUIRE(by_stdin.exit_code == 0);
  CHECK(by_stdin.out == by_p.out);
  // All of stdin, its final newline included (llama-tokenize keeps it too).
  const auto newline = run_app({"ck-tokenize", "-m", kPhi3, "--stdin", "--ids"}, "Hello world\n");
  CHECK(newline.out != by_p.out);
  const auto count = run_app({"ck-tokenize", "-m", kPhi3, "-p", "Hello world", "--show-count"});
  CHECK(count.out.find("\nTotal number of tokens: 3\n") != std::string::npos);  // <s> Hello world
  const auto both = run_app({"ck-tokenize", "-m", kPhi3, "-p", "x", "--stdin"}, "y");
  CHECK(both.exit_code == 1);
  CHECK(ck::test::is_one_error_line(both.err, "ck-tokenize"));
}

TEST_CASE("ck-tokenize processes escapes like ck-run, unless --no-escape", "[tokenize][issue13]") {
  const auto tab = run_app({"ck-tokenize", "-m", kPhi3, "-p", "a\\tb", "--ids", "--no-bos"});
  const auto real_tab = run_app({"ck-tokenize", "-m", kPhi3, "-p", "a\tb", "--ids", "--no-bos"});
  const auto literal = run_app({"ck-tokenize", "-m", kPhi3, "-p", "a\\tb", "--ids", "--no-bos", "--no-escape"});
  REQUIRE(tab.exit_code == 0);
  CHECK(tab.out == real_tab.out);
  CHECK(literal.out != tab.out);
}
