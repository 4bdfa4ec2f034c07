#include "apps/chat/line_reader.h"

#include <editline/readline.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>

namespace ck::app {
namespace {

// More input already waiting right after a line: the rest of a paste.
bool input_pending() {
  pollfd p{STDIN_FILENO, POLLIN, 0};
  return poll(&p, 1, 15) > 0 && (p.revents & POLLIN);
}

// libedit reads the keys through this function rather than its own: libedit
// retries a read() that a signal interrupted once, so a single Ctrl-C would
// do nothing until the next key, and its own handler re-raises SIGINT. Here a
// Ctrl-C (our handler, installed without SA_RESTART) ends readline() at once.
const volatile std::sig_atomic_t* g_key_interrupt = nullptr;
bool g_typed_since_prompt = false;

int read_key(FILE*) {
  unsigned char c;
  while (true) {
    if (*g_key_interrupt) return EOF;  // arrived while libedit handled the last key
    const ssize_t n = ::read(STDIN_FILENO, &c, 1);
    if (n == 1) {
      g_typed_since_prompt = true;
      return c;
    }
    if (n < 0 && errno == EINTR) continue;
    return EOF;
  }
}

class TerminalReader : public LineReader {
 public:
  TerminalReader(std::string history_file, volatile std::sig_atomic_t* interrupted)
      : history_file_(std::move(history_file)), interrupted_(interrupted) {
    g_key_interrupt = interrupted;
    rl_catch_signals = 0;
    rl_getc_function = read_key;
    using_history();
    read_history(history_file_.c_str());
  }

  std::optional<std::string> read(InputEnd& end) override {
    std::string message;
    const char* prompt = "> ";
    while (true) {
      g_typed_since_prompt = false;
      char* raw = readline(prompt);
      if (raw == nullptr) {
        if (*interrupted_ && (g_typed_since_prompt || !message.empty())) {
          // Ctrl-C with a message begun throws the message away, as a shell
          // does with a line; only at an empty prompt does it leave.
          std::fputs("^C\n", stdout);
          std::fflush(stdout);
          *interrupted_ = 0;
          message.clear();
          prompt = "> ";
          continue;
        }
        end = *interrupted_ ? InputEnd::Interrupt : InputEnd::Eof;
        return std::nullopt;
      }
      std::string line(raw);
      std::free(raw);
      const bool more = strip_continuation(line);
      message += line;
      if (!more && !input_pending()) break;
      message += '\n';
      prompt = "... ";
    }
    if (!message.empty()) {
      add_history(message.c_str());
      write_history(history_file_.c_str());
    }
    return message;
  }

 private:
  std::string history_file_;
  volatile std::sig_atomic_t* interrupted_;
};

class StreamReader : public LineReader {
 public:
  std::optional<std::string> read(InputEnd& end) override {
    end = InputEnd::Eof;
    std::string message, line;
    while (std::getline(std::cin, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      const bool more = strip_continuation(line);
      message += line;
      if (!more) return message;
      message += '\n';
    }
    if (!message.empty()) return message;
    return std::nullopt;
  }
};

}  // namespace

bool strip_continuation(std::string& line) {
  if (line.empty() || line.back() != '\\') return false;
  line.pop_back();
  return true;
}

std::unique_ptr<LineReader> make_terminal_reader(std::string history_file,
                                                 volatile std::sig_atomic_t* interrupted) {
  return std::make_unique<TerminalReader>(std::move(history_file), interrupted);
}

std::unique_ptr<LineReader> make_stream_reader() { return std::make_unique<StreamReader>(); }

}  // namespace ck::app
