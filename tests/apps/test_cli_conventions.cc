// What every app promises on its command line (README, docs/apps.md): bad
// input is one line "NAME: error: ..." and exit 1; --version; -c means the
// same everywhere; the default model is found at run time, not in a folder
// fixed at build time.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <regex>

#include "app_test_support.h"
#include "subprocess.h"

using ck::test::is_one_error_line;
using ck::test::run_app;
using ck::test::stories_model;

namespace {
const char* const kApps[] = {"ck-run", "ck-chat", "ck-tokenize", "ck-bench", "ck-perplexity", "ck-convert"};
}  // namespace

TEST_CASE("every app prints its version and commit with --version", "[cli][issue13]") {
  for (const char* app : kApps) {
    const auto r = run_app({app, "--version"});
    INFO(app << ": " << r.out << r.err);
    CHECK(r.exit_code == 0);
    const std::regex version(std::string("^") + app + R"( \d+\.\d+\.\d+ \(commit ([0-9a-f]{7,}(-dirty)?|unknown)\))");
    CHECK(std::regex_search(r.out, version));
  }
}

TEST_CASE("every app: a usage error is one line NAME: error: and exit 1", "[cli][issue13]") {
  for (const char* app : kApps) {
    for (const std::vector<std::string>& args : {std::vector<std::string>{"--no-such-flag"}, {"-xyz", "1"}}) {
      std::vector<std::string> argv = {app};
      argv.insert(argv.end(), args.begin(), args.end());
      const auto r = run_app(argv);
      INFO(app << " " << args[0] << ": " << r.err);
      CHECK(r.exit_code == 1);
      CHECK(is_one_error_line(r.err, app));
      CHECK(r.err.find("unknown flag " + args[0]) != std::string::npos);
    }
  }
  // CLI11's own errors (a value that is no number) keep the convention too.
  for (const char* app : {"ck-run", "ck-chat", "ck-perplexity"}) {
    const auto r = run_app({app, "-m", stories_model(), "-c", "lots"});
    INFO(app << ": " << r.err);
    CHECK(r.exit_code == 1);
    CHECK(is_one_error_line(r.err, app));
    CHECK(r.err.find("lots") != std::string::npos);
  }
}

TEST_CASE("every app gives -c one meaning and one range message", "[cli][issue13]") {
  const std::string m = stories_model();
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{"ck-run", "-m", m, "-p", "x", "-c", "-5"}, {"ck-chat", "-m", m, "-c", "-5"},
        {"ck-perplexity", "-m", m, "-f", m, "-c", "-5"}}) {
    const auto r = run_app(argv, "hello\n");
    INFO(argv[0] << ": " << r.err);
    CHECK(r.exit_code == 1);
    CHECK(is_one_error_line(r.err, argv[0]));
    CHECK(r.err.find("-c must be 0 (the model's context) or a number of tokens, got -5") != std::string::npos);
  }
  // -c 0 is the model's context in the chat too (it was refused with a
  // 300-digit range).
  const auto chat = run_app({"ck-chat", "-m", m, "-c", "0", "--temp", "0", "-n", "4"}, "Once upon a time\n");
  INFO(chat.err);
  CHECK(chat.exit_code == 0);
  CHECK(chat.err.find("/2048 ]") != std::string::npos);
}

TEST_CASE("the default model is resolved at run time and announced", "[cli][issue13]") {
  SECTION("--help shows no folder fixed at build time") {
    for (const char* app : {"ck-run", "ck-chat", "ck-tokenize", "ck-bench", "ck-perplexity"}) {
      const auto r = run_app({app, "--help"});
      INFO(app);
      CHECK(r.exit_code == 0);
      CHECK(r.out.find(CK_SOURCE_DIR) == std::string::npos);
      CHECK(r.out.find("CK_MODEL") != std::string::npos);
    }
  }
  SECTION("CK_MODEL first") {
    const auto r = run_app({"ck-tokenize", "-p", "Once upon a time", "--ids"}, "",
                           {.set_env = {{"CK_MODEL", stories_model()}}});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("using the default model " + stories_model() + " (from $CK_MODEL)") != std::string::npos);
  }
  SECTION("then models/ of the executable's checkout, from any working directory") {
    INFO(ck::test::kFetchSmol);
    REQUIRE(ck::test::have_smollm2());
    const auto r = run_app({"ck-tokenize", "-p", "Hello", "--ids"}, "", {.unset_env = {"CK_MODEL"}, .cwd = "/"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("SmolLM2-135M-Instruct.Q4_1.gguf (from the checkout of the executable)") != std::string::npos);
  }
  SECTION("then models/ of the working directory; missing everywhere names the places") {
    // A copy of ck-tokenize outside any checkout, run where models/ holds a vocabulary.
    const std::filesystem::path dir = ck::test::temp_path("ck_default_model");
    std::filesystem::create_directories(dir / "bin");
    std::filesystem::create_directories(dir / "work" / "models");
    std::filesystem::copy_file(ck::test::app_path("ck-tokenize"), dir / "bin" / "ck-tokenize",
                               std::filesystem::copy_options::overwrite_existing);
    const ck::test::ProcessOptions none{.unset_env = {"CK_MODEL"}, .cwd = (dir / "work").string(),
                                        .executable = (dir / "bin" / "ck-tokenize").string()};
    const auto missing = run_app({"ck-tokenize", "-p", "x"}, "", none);
    INFO(missing.err);
    CHECK(missing.exit_code == 1);
    CHECK(is_one_error_line(missing.err, "ck-tokenize"));
    CHECK(missing.err.find((dir / "work" / "models").string()) != std::string::npos);
    CHECK(missing.err.find("scripts/fetch-models.sh") != std::string::npos);
    std::filesystem::copy_file(std::string(CK_SHARED_DATA) + "/tokenizer-tests/ggml-vocab-gpt-2.gguf",
                               dir / "work" / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf");
    const auto found = run_app({"ck-tokenize", "-p", "Hello world", "--ids"}, "", none);
    INFO(found.err);
    CHECK(found.exit_code == 0);
    CHECK(found.out == "15496 995\n");
    CHECK(found.err.find("(from the working directory)") != std::string::npos);
    std::filesystem::remove_all(dir);
  }
}
