// A program of this build run in a pseudo-terminal, driven like a user at a
// keyboard: type text, press Ctrl-C / Ctrl-D, wait for what appears.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace ck::test {

class PtySession {
 public:
  explicit PtySession(const std::vector<std::string>& argv);  // argv[0] under ${CK_BINARY_DIR}/bin
  ~PtySession();

  void send(const std::string& keys);
  // Reads until `text` appears after the current position; returns what was
  // read up to and including it, and moves the position past it. Throws on
  // timeout or end of output, with everything seen so far.
  std::string expect(const std::string& text, std::chrono::seconds timeout = std::chrono::seconds(180));
  // expect(prompt), then waits until the line editor has the terminal (not in
  // canonical mode): keys sent before that are handled by the terminal's own
  // line discipline (a Ctrl-D there is lost), which no human is fast enough to hit.
  std::string expect_prompt(const std::string& prompt = "> ");
  // Waits for the program to end; its exit code (128 + signal when killed).
  int wait(std::chrono::seconds timeout = std::chrono::seconds(60));
  const std::string& output() const { return out_; }

 private:
  bool read_some(std::chrono::milliseconds timeout);
  int fd_ = -1;
  pid_t pid_ = -1;
  std::string out_;
  size_t pos_ = 0;
};

}  // namespace ck::test
