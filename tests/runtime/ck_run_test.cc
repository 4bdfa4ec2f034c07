// ck-run end to end, as a user runs it: a subprocess, its stdout, stderr
// and exit code.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/runtime/golden.h"

extern char** environ;

namespace {

struct Result {
  int exit_code;
  std::string out;
  std::string err;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Result run(const std::string& args) {
  const std::string err_file = ck::test::stories_gguf().parent_path() / "ck-run.stderr";
  const std::string cmd = std::string(CK_RUN_EXE) + " " + args + " 2>" + err_file;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out, read_file(err_file)};
}

std::string stories() { return ck::test::stories_gguf().string(); }

std::string ltrim(const std::string& s) { return s.substr(std::min(s.size(), s.find_first_not_of(" \t\n"))); }

}  // namespace

TEST_CASE("ck-run: stories260K greedy text is the reference runtime's, with 1 and 2 threads", "[ck-run]") {
  // The output of llama.cpp (and of scripts/reference/) for the same settings.
  const std::string expected =
      "Once upon a time, there was a little girl named Lily. She loved to play outside in the park. "
      "One day, she saw a big, red ball.";
  for (const char* threads : {"1", "2"}) {
    const Result r = run("-m " + stories() + " -p 'Once upon a time' -n 40 --temp 0 -t " + threads);
    INFO("threads " << threads);
    REQUIRE(r.exit_code == 0);
    REQUIRE(ltrim(r.out) == expected);
  }
}

TEST_CASE("ck-run: the same seed gives the same text, and the seed used is printed", "[ck-run]") {
  const std::string args = "-m " + stories() + " -p 'Once upon a time' -n 30 --temp 1.0 -s ";
  const Result a = run(args + "1234"), b = run(args + "1234"), c = run(args + "99");
  REQUIRE(a.exit_code == 0);
  REQUIRE(a.out == b.out);
  REQUIRE(a.out != c.out);
  REQUIRE_THAT(a.err, Catch::Contains("seed 1234"));
}

TEST_CASE("ck-run: prints timings and stops cleanly at the context limit", "[ck-run]") {
  const Result r = run("-m " + stories() + " -p 'Once upon a time' -c 12 --temp 0 --no-display-prompt");
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.out == ", there was a little girl");  // 5 prompt + 7 generated tokens
  REQUIRE_THAT(r.err, Catch::Contains("12 / 12 tokens used; stopped: context full"));
  REQUIRE_THAT(r.err, Catch::Contains("5 tokens ("));
  REQUIRE_THAT(r.err, Catch::Contains("tokens/s"));
}

TEST_CASE("ck-run: bad input is a clear error and exit code 1", "[ck-run]") {
  const std::string m = "-m " + stories();
  const std::pair<std::string, std::string> cases[] = {
      {m + " -p 'Once upon a time' -c 4", "the prompt is 5 tokens, too long for a context of 4 tokens: use -c 6"},
      {m + " -p 'Once upon a time' -n 3000", "-n 3000 exceeds the context of 2048 tokens: use a larger -c"},
      {m + " -p 'Once upon a time' -t -1", "-t must be between 1 and 512"},
      {m + " -p 'Once upon a time' -t 100000", "-t must be between 1 and 512"},
      {m + " -p ''", "the prompt (-p) is empty"},
      {m, "no prompt: give -p TEXT or -f FILE"},
      {m + " -p x --top-p 0", "sampler: top-p must be in (0, 1]"},
      {"-m /nonexistent/model.gguf -p x", "/nonexistent/model.gguf"},
  };
  for (const auto& [args, message] : cases) {
    INFO(args);
    const Result r = run(args);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("ck-run: error: " + message));
  }
}

TEST_CASE("ck-run: Ctrl-C stops generation, prints the timings and exits 130", "[ck-run]") {
  const std::string err_file = ck::test::stories_gguf().parent_path() / "ctrl-c.stderr";
  int out_pipe[2];
  REQUIRE(pipe(out_pipe) == 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&fa, out_pipe[0]);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const std::string model = stories();
  // No -n: without Ctrl-C this runs until the 2048-token context is full.
  const char* argv[] = {CK_RUN_EXE, "-m", model.c_str(), "-p", "Once upon a time", "-t", "1", nullptr};
  pid_t pid;
  REQUIRE(posix_spawn(&pid, CK_RUN_EXE, &fa, nullptr, const_cast<char**>(argv), environ) == 0);
  posix_spawn_file_actions_destroy(&fa);
  close(out_pipe[1]);
  char buf[64];
  REQUIRE(read(out_pipe[0], buf, sizeof buf) > 0);  // generating (the prompt is printed first)
  kill(pid, SIGINT);
  while (read(out_pipe[0], buf, sizeof buf) > 0) {
  }
  close(out_pipe[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 130);
  const std::string err = read_file(err_file);
  REQUIRE_THAT(err, Catch::Contains("stopped: interrupted"));
  REQUIRE_THAT(err, Catch::Contains("generation"));
}
