#include "tests/reliability/process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace ck::reliability {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A unique temporary file that is unlinked at scope exit.
struct TempFile {
  std::string path;
  TempFile() {
    std::string tmpl = "/tmp/ck-reliability-XXXXXX";
    const int fd = mkstemp(tmpl.data());
    if (fd < 0) throw std::runtime_error("mkstemp failed");
    close(fd);
    path = tmpl;
  }
  ~TempFile() { unlink(path.c_str()); }
};

pid_t spawn(const std::vector<std::string>& argv, const std::string& in, const std::string& out,
            const std::string& err, const std::function<void()>& in_child) {
  const std::string path = app(argv.at(0));
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid > 0) return pid;
  // Child: only async-signal-safe calls until exec (plus the caller's hook).
  const int fds[3] = {open(in.c_str(), O_RDONLY), open(out.c_str(), O_WRONLY | O_TRUNC),
                      open(err.c_str(), O_WRONLY | O_TRUNC)};
  for (int i = 0; i < 3; ++i) {
    if (fds[i] < 0 || dup2(fds[i], i) < 0) _exit(127);
    close(fds[i]);
  }
  if (in_child) in_child();
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(path.c_str(), args.data());
  _exit(127);
}

// Waits up to `timeout`, then SIGKILLs; fills the status fields of `o`.
void reap(pid_t pid, std::chrono::milliseconds timeout, Outcome& o) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0) throw std::runtime_error("waitpid failed");
    if (std::chrono::steady_clock::now() > deadline) {
      o.timed_out = true;
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) o.signal = WTERMSIG(status);
}

}  // namespace

std::string app(const std::string& name) { return std::string(CK_BINARY_DIR) + "/bin/" + name; }

Outcome run(const std::vector<std::string>& argv, const RunOptions& opts) {
  TempFile in, out, err;
  std::ofstream(in.path, std::ios::binary) << opts.stdin_text;
  Outcome o;
  reap(spawn(argv, in.path, out.path, err.path, opts.in_child), opts.timeout, o);
  o.out = slurp(out.path);
  o.err = slurp(err.path);
  return o;
}

Child::Child(const std::vector<std::string>& argv) { pid_ = spawn(argv, "/dev/null", "/dev/null", "/dev/null", {}); }

Child::~Child() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

void Child::kill_now(int sig) { kill(pid_, sig); }

Outcome Child::wait(std::chrono::milliseconds timeout) {
  Outcome o;
  reap(pid_, timeout, o);
  pid_ = -1;
  return o;
}

bool failed_cleanly(const Outcome& o) {
  // 1 from run_app, CLI11's own codes (105, 106, ...) for usage errors; 126
  // and 127 would mean the app never ran.
  return !o.timed_out && o.signal == 0 && o.exit_code >= 1 && o.exit_code < 126 && !o.err.empty();
}

std::string describe(const Outcome& o) {
  std::ostringstream s;
  s << "exit " << o.exit_code << ", signal " << o.signal << (o.timed_out ? ", TIMED OUT" : "") << "\nstderr: "
    << o.err.substr(0, 2000) << "\nstdout: " << o.out.substr(0, 500);
  return s.str();
}

}  // namespace ck::reliability
