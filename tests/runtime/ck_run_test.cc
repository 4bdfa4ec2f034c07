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

#include "runtime/model.h"
#include "runtime/session.h"
#include "tests/runtime/golden.h"
#include "tokenizer/tokenizer.h"

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

namespace {

// Greedy generation of n tokens (end-of-generation tokens excluded, as
// --ignore-eos does) written the plain way: when the context is full, the
// first `keep` tokens and the newer half of the rest, followed by the token
// just sampled, are evaluated by a new session from scratch.
std::vector<int32_t> greedy_with_fresh_restarts(const ck::Model& model, std::vector<int32_t> context, int n_ctx,
                                                int keep, int n, int& restarts) {
  const ck::tok::Tokenizer& tok = model.tokenizer();
  auto argmax = [&](std::span<const float> logits) {
    int32_t best = -1;
    for (int32_t id = 0; id < static_cast<int32_t>(logits.size()); ++id) {
      if (!tok.is_eog(id) && (best < 0 || logits[id] > logits[best])) best = id;
    }
    return best;
  };
  std::vector<int32_t> out;
  restarts = 0;
  while (true) {
    ck::Session fresh(model, {.n_ctx = n_ctx});
    auto logits = fresh.eval(context);
    int32_t token = 0;
    while (true) {
      token = argmax(logits);
      out.push_back(token);
      if (static_cast<int>(out.size()) == n) return out;
      if (static_cast<int>(context.size()) == n_ctx) break;
      context.push_back(token);
      logits = fresh.eval(std::span(&token, 1));
    }
    const int discard = (n_ctx - keep) / 2;
    context.erase(context.begin() + keep, context.begin() + keep + discard);
    context.push_back(token);
    ++restarts;
  }
}

}  // namespace

TEST_CASE("ck-run --context-shift: -n past -c goes on, with the text of fresh runs on the kept tokens", "[ck-run]") {
  const int n_ctx = 32, n = 100;
  auto model = ck::Model::load(ck::test::stories_gguf());
  const std::vector<int32_t> prompt = model->tokenizer().encode("Once upon a time", true, false);
  REQUIRE(prompt.size() == 5);  // BOS and 4 tokens
  // --keep 2: BOS and 2 prompt tokens; --keep -1: the whole prompt.
  for (const auto& [flag, keep] : {std::pair{"2", 3}, std::pair{"-1", 5}}) {
    INFO("--keep " << flag);
    int shifts = 0;
    const std::vector<int32_t> want = greedy_with_fresh_restarts(*model, prompt, n_ctx, keep, n, shifts);
    REQUIRE(shifts >= 3);
    ck::tok::StreamDecoder decoder(model->tokenizer());
    std::string text;
    for (int32_t t : want) text += decoder.push(t);
    text += decoder.flush();

    const Result r = run("-m " + stories() + " -p 'Once upon a time' -c 32 -n 100 --temp 0 --ignore-eos "
                         "--no-display-prompt --context-shift --keep " + flag);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == text);  // nothing repeated or lost across a shift
    CHECK_THAT(r.err, Catch::Contains("/   100 tokens"));
    CHECK_THAT(r.err, Catch::Contains("; " + std::to_string(shifts) + " context shifts ("));
    CHECK_THAT(r.err, Catch::Contains("stopped: -n limit"));
  }
}

TEST_CASE("ck-run without --context-shift: a full context stops and says so", "[ck-run]") {
  Result r = run("-m " + stories() + " -p 'Once upon a time' -c 32 -n 100 --temp 0");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("-n 100 exceeds the context of 32 tokens: use a larger -c, or --context-shift"));
  r = run("-m " + stories() + " -p 'Once upon a time' -c 32 --temp 0 --ignore-eos --no-display-prompt");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("32 / 32 tokens used; stopped: context full (use a larger -c, or --context-shift)"));
  CHECK_THAT(r.err, Catch::Contains("/    28 tokens"));  // 5 prompt + 27 generated fill the context, one more sampled
  r = run("-m " + stories() + " -p 'Once upon a time' --keep -2 --context-shift");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("--keep must be -1 (the whole prompt) or >= 0, got -2"));
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
