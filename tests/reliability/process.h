// Runs the apps of this build as child processes with what reliability tests
// need beyond tests/apps/subprocess.h: a time limit (a hang fails the test
// instead of blocking it), a hook run in the child before exec (resource
// limits), output captured in files, and starting a child to kill it later.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace ck::reliability {

struct Outcome {
  int exit_code = -1;   // when the child exited
  int signal = 0;       // when a signal ended it (0 = none)
  bool timed_out = false;  // killed by us after the time limit
  std::string out, err;
};

struct RunOptions {
  std::chrono::milliseconds timeout{60000};
  std::string stdin_text;                  // fed through a file
  std::function<void()> in_child;          // runs after fork, before exec
};

// argv[0] is an app under ${CK_BINARY_DIR}/bin.
Outcome run(const std::vector<std::string>& argv, const RunOptions& opts = {});

// A running child (stdout/stderr discarded): for killing it at a chosen moment.
class Child {
 public:
  explicit Child(const std::vector<std::string>& argv);
  ~Child();  // kills and reaps the child if still running
  void kill_now(int sig);
  Outcome wait(std::chrono::milliseconds timeout);
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

 private:
  pid_t pid_ = -1;
};

std::string app(const std::string& name);  // ${CK_BINARY_DIR}/bin/NAME

// The failure contract of every app on bad input: it exited (no signal, no
// hang) with a non-zero code and said why on stderr. Tests also check that
// the message names the problem.
bool failed_cleanly(const Outcome& o);
std::string describe(const Outcome& o);  // for test failure messages

}  // namespace ck::reliability
