// ck-run end to end: the defects of issue 13 a new user hit, each checked as
// the user met it (the command line, stdout, stderr, the exit code).
#include <catch2/catch.hpp>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "app_test_support.h"
#include "subprocess.h"

using ck::test::occurrences;
using ck::test::run_app;
using ck::test::stories_model;

namespace {

// "ck-run: prompt  6.50 ms /  5 tokens": the prompt's token count.
int prompt_tokens(const std::string& err) {
  std::smatch m;
  REQUIRE(std::regex_search(err, m, std::regex(R"(ck-run: prompt\s+[0-9.]+ ms /\s+(\d+) tokens)")));
  return std::stoi(m[1]);
}

}  // namespace

TEST_CASE("ck-run -f drops the file's final newline, as llama.cpp does", "[ck-run][issue13]") {
  const std::string m = stories_model();
  const auto by_p = run_app({"ck-run", "-m", m, "-p", "Once upon a time", "-n", "16", "--temp", "0"});
  REQUIRE(by_p.exit_code == 0);
  for (const char* ending : {"\n", "\r\n"}) {
    const auto file = ck::test::temp_file("ck_prompt.txt", std::string("Once upon a time") + ending);
    const auto by_f = run_app({"ck-run", "-m", m, "-f", file, "-n", "16", "--temp", "0"});
    INFO(by_f.err);
    REQUIRE(by_f.exit_code == 0);
    CHECK(prompt_tokens(by_f.err) == prompt_tokens(by_p.err));
    CHECK(by_f.out == by_p.out);  // the same prompt shown, the same continuation
    std::filesystem::remove(file);
  }
  // Only one: a blank line the user left at the end stays.
  const auto file = ck::test::temp_file("ck_prompt2.txt", "Once upon a time\n\n");
  const auto two = run_app({"ck-run", "-m", m, "-f", file, "-n", "1", "--temp", "0"});
  CHECK(prompt_tokens(two.err) == prompt_tokens(by_p.err) + 1);
  std::filesystem::remove(file);
}

TEST_CASE("ck-run -cnv -p: the prompt is the first message, answered", "[ck-run][chat][issue13]") {
  // stories260K has no template: -cnv renders plain text. No input follows.
  const auto r = run_app({"ck-run", "-m", stories_model(), "-cnv", "-p", "Once upon a time", "-n", "6", "--temp", "0"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(occurrences(r.err, "[ prompt:") == 1);
  CHECK(r.out.find("there was") != std::string::npos);
}

TEST_CASE("ck-run: -sys with a plain completion is ignored with a note", "[ck-run][issue13]") {
  const auto r = run_app({"ck-run", "-m", stories_model(), "-p", "Once upon a time", "-n", "2", "-sys", "Be brief."});
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("ck-run: note: the system prompt (-sys/-sysf) is ignored") != std::string::npos);
}

TEST_CASE("ck-run takes llama.cpp's single-dash flags by their meaning", "[ck-run][flags][issue13]") {
  const std::string m = stories_model();
  const auto plain = run_app({"ck-run", "-m", m, "-p", "Once upon a time", "-n", "8", "--temp", "0"});
  REQUIRE(plain.exit_code == 0);
  SECTION("GPU and flash-attention flags: ignored, one note each, same text") {
    const auto r = run_app({"ck-run", "-m", m, "-p", "Once upon a time", "-n", "8", "--temp", "0", "-ngl", "0", "-fa",
                            "-fa", "off", "--no-mmap"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == plain.out);
    CHECK(r.err.find("ck-run: note: -ngl 0 ignored: ck runs on the CPU only") != std::string::npos);
    CHECK(r.err.find("ck-run: note: -fa ignored") != std::string::npos);
    CHECK(r.err.find("ck-run: note: -fa off ignored") != std::string::npos);
  }
  SECTION("-tb, -sp, -no-display-prompt are accepted with their meaning") {
    const auto r = run_app({"ck-run", "-m", m, "-p", "Once upon a time", "-n", "8", "--temp", "0", "-t", "1", "-tb",
                            "2", "-sp", "-no-display-prompt"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == plain.out.substr(std::string("Once upon a time").size()));
  }
  SECTION("an unknown flag: one line naming it, exit 1") {
    for (const char* flag : {"-ngx", "-tk", "--no-such-flag"}) {
      const auto r = run_app({"ck-run", "-m", m, "-p", "x", flag, "1"});
      INFO(flag << ": " << r.err);
      CHECK(r.exit_code == 1);
      CHECK(ck::test::is_one_error_line(r.err, "ck-run"));
      CHECK(r.err.find(std::string("unknown flag ") + flag) != std::string::npos);
    }
  }
  SECTION("a value that starts with a dash is the value") {
    const auto r = run_app({"ck-run", "-m", m, "-p", "-Once upon a time", "-n", "2", "--top-k", "-1"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.rfind("-Once upon a time", 0) == 0);
  }
}

TEST_CASE("ck-run: values llama.cpp accepts run (with a warning where it is risky)", "[ck-run][issue13]") {
  const std::string m = stories_model();
  SECTION("-c above the trained context warns and runs") {
    const auto r = run_app({"ck-run", "-m", m, "-p", "Once upon a time", "-n", "4", "-c", "4096"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("ck-run: warning: -c 4096 is more than the 2048 tokens the model was trained for") !=
          std::string::npos);
    CHECK(r.err.find("/ 4096 tokens used") != std::string::npos);
  }
  SECTION("-t above the CPU count warns and runs") {
    const std::string t = std::to_string(sysconf(_SC_NPROCESSORS_ONLN) + 1);
    const auto r = run_app({"ck-run", "-m", m, "-p", "Once upon a time", "-n", "4", "-t", t});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("ck-run: warning: -t " + t + " is more than the") != std::string::npos);
    CHECK(r.err.find(", " + t + " threads\n") != std::string::npos);
  }
  SECTION("--top-k -1 and 0 both turn top-k off") {
    auto sample = [&](const char* k) {
      return run_app({"ck-run", "-m", m, "-p", "Once upon a time", "-n", "24", "--temp", "1", "-s", "7", "--top-k", k});
    };
    const auto minus_one = sample("-1"), zero = sample("0"), forty = sample("40");
    INFO(minus_one.err);
    CHECK(minus_one.exit_code == 0);
    CHECK(minus_one.out == zero.out);
    CHECK(zero.exit_code == 0);
    CHECK(forty.exit_code == 0);
  }
  SECTION("one thread is \"1 thread\"") {
    const auto r = run_app({"ck-run", "-m", m, "-p", "Once upon a time", "-n", "1", "-t", "1"});
    CHECK(r.err.find(", 1 thread\n") != std::string::npos);
    CHECK(r.err.find("1 threads") == std::string::npos);
  }
}

TEST_CASE("ck-run -no-cnv without a prompt names -no-cnv, not a missing template", "[ck-run][issue13]") {
  const auto stories = run_app({"ck-run", "-m", stories_model(), "-no-cnv"});
  CHECK(stories.exit_code == 1);
  CHECK(stories.err.find("-no-cnv turns the chat off") != std::string::npos);
  CHECK(stories.err.find("no chat template") == std::string::npos);
  INFO(ck::test::kFetchSmol);
  REQUIRE(ck::test::have_smollm2());
  const auto smol = run_app({"ck-run", "-m", ck::test::smollm2_model(), "-no-cnv"});
  CHECK(smol.exit_code == 1);
  CHECK(ck::test::is_one_error_line(smol.err.substr(smol.err.find("ck-run: error:")), "ck-run"));
  CHECK(smol.err.find("-no-cnv turns the chat off") != std::string::npos);
  CHECK(smol.err.find("no chat template") == std::string::npos);
}

TEST_CASE("ck-run: model files that are no model say what they are", "[ck-run][issue13]") {
  SECTION("a directory") {
    const std::string dir = ck::test::temp_path("ck_model_dir.gguf");
    std::filesystem::create_directories(dir);
    const auto r = run_app({"ck-run", "-m", dir, "-p", "x"});
    CHECK(r.exit_code == 1);
    CHECK(r.err.find(dir + ": is a directory, not a model file") != std::string::npos);
    CHECK(r.err.find("byte 0") == std::string::npos);
    std::filesystem::remove(dir);
  }
  SECTION("a truncated GGUF is refused before any conversion is announced") {
    std::ifstream in(stories_model(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string dir = ck::test::temp_path("ck_truncated");
    std::filesystem::create_directories(dir);
    const std::string cut = dir + "/cut.gguf";
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    const auto r = run_app({"ck-run", "-m", cut, "-p", "x"});
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("converting") == std::string::npos);
    CHECK(r.err.find("cut.gguf") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir + "/cut.bump"));
    std::filesystem::remove_all(dir);
  }
}

TEST_CASE("ck-run --log-level debug shows the SIMD target and the prompt's tokens", "[ck-run][issue13]") {
  const auto r =
      run_app({"ck-run", "-m", stories_model(), "-p", "Once upon a time", "-n", "1", "--log-level", "debug"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("SIMD target") != std::string::npos);
  CHECK(r.err.find("prompt: 5 tokens: 1 ") != std::string::npos);
}

// Tagged [timing]: it measures how soon Ctrl-C takes effect, which ASan's
// slowdown distorts; the Release suite runs it.
TEST_CASE("ck-run: Ctrl-C during a long prompt stops within the batch and reports what was evaluated",
          "[ck-run][issue13][timing]") {
  INFO(ck::test::kFetchSmol);
  REQUIRE(ck::test::have_smollm2());
  // One 1500-token batch takes seconds at one thread; Ctrl-C lands early in it.
  std::string prompt;
  for (int i = 0; i < 150; ++i) prompt += "The quick brown fox jumps over the lazy dog. ";
  const std::string err_file = ck::test::temp_path("ck_ctrl_c_prompt.err");
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    freopen(err_file.c_str(), "w", stderr);
    const std::string exe = ck::test::app_path("ck-run"), model = ck::test::smollm2_model();
    execl(exe.c_str(), "ck-run", "-m", model.c_str(), "-p", prompt.c_str(), "-b", "2048", "-c", "2048", "-t", "1",
          "-n", "1", "--no-display-prompt", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait until generation starts (the seed line comes right before the prompt's evaluation).
  const auto start = std::chrono::steady_clock::now();
  std::string err;
  while (err.find("ck-run: seed") == std::string::npos) {
    REQUIRE(std::chrono::steady_clock::now() - start < std::chrono::seconds(120));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::ifstream in(err_file);
    err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto sent = std::chrono::steady_clock::now();
  kill(pid, SIGINT);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  const double stop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  std::ifstream in(err_file);
  err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  INFO(err);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK(err.find("stopped: interrupted during the prompt") != std::string::npos);
  std::smatch m;
  REQUIRE(std::regex_search(err, m, std::regex(R"(prompt\s+([0-9.]+) ms /\s+0 of (\d+) tokens evaluated)")));
  CHECK(std::stod(m[1]) > 0);  // the time until the stop, not 0.00 ms
  CHECK(std::stoi(m[2]) > 1000);
  // The whole batch takes several seconds here; one layer is a small part of it.
  CHECK(stop_s < 1.5);
  std::filesystem::remove(err_file);
}
