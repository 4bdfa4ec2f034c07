#include "pty_session.h"

#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <stdexcept>
#include <thread>

#include "subprocess.h"

namespace ck::test {

PtySession::PtySession(const std::vector<std::string>& argv) {
  winsize ws{40, 120, 0, 0};
  pid_ = forkpty(&fd_, nullptr, nullptr, &ws);
  if (pid_ < 0) throw std::runtime_error("forkpty failed");
  if (pid_ == 0) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const std::string path = app_path(argv.at(0));
    execv(path.c_str(), args.data());
    _exit(127);
  }
}

PtySession::~PtySession() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (fd_ >= 0) close(fd_);
}

void PtySession::send(const std::string& keys) {
  size_t done = 0;
  while (done < keys.size()) {
    const ssize_t n = write(fd_, keys.data() + done, keys.size() - done);
    if (n <= 0) throw std::runtime_error("write to the pty failed");
    done += static_cast<size_t>(n);
  }
}

bool PtySession::read_some(std::chrono::milliseconds timeout) {
  pollfd p{fd_, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return true;
  char buf[4096];
  const ssize_t n = read(fd_, buf, sizeof buf);
  if (n <= 0) return false;  // EIO: the program closed the terminal
  out_.append(buf, static_cast<size_t>(n));
  return true;
}

std::string PtySession::expect(const std::string& text, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const size_t at = out_.find(text, pos_);
    if (at != std::string::npos) {
      std::string seen = out_.substr(pos_, at + text.size() - pos_);
      pos_ = at + text.size();
      return seen;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("timed out waiting for '" + text + "'; output so far:\n" + out_.substr(pos_));
    }
    if (!read_some(std::chrono::milliseconds(100))) {
      throw std::runtime_error("output ended before '" + text + "'; output so far:\n" + out_.substr(pos_));
    }
  }
}

std::string PtySession::expect_prompt(const std::string& prompt) {
  std::string seen = expect(prompt);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  termios t{};
  // On Linux the master side reports the terminal's (slave's) modes.
  while (tcgetattr(fd_, &t) == 0 && (t.c_lflag & ICANON)) {
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("the line editor never took the terminal after '" + prompt + "'");
    }
    read_some(std::chrono::milliseconds(5));
  }
  return seen;
}

int PtySession::wait(std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    read_some(std::chrono::milliseconds(50));  // keep the pty drained
    int status = 0;
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
  }
  throw std::runtime_error("the program did not end; output:\n" + out_);
}

}  // namespace ck::test
