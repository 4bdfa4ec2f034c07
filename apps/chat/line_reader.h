// Where the user's messages come from. On a terminal: libedit (arrows,
// Home/End, Ctrl-R, history in ~/.ck_history), a line ending in "\" goes on
// on the next line, and lines pasted in one go stay one message. Otherwise:
// one message per line of stdin (a line ending in "\" goes on on the next).
#pragma once
#include <csignal>
#include <memory>
#include <optional>
#include <string>

namespace ck::app {

enum class InputEnd { Eof, Interrupt };

class LineReader {
 public:
  virtual ~LineReader() = default;
  // The next message, or nullopt with `end` saying why there is none.
  virtual std::optional<std::string> read(InputEnd& end) = 0;
};

// `interrupted` is the SIGINT flag: a Ctrl-C at an empty prompt ends the
// input; with a message begun it discards the message (and clears the flag).
std::unique_ptr<LineReader> make_terminal_reader(std::string history_file,
                                                 volatile std::sig_atomic_t* interrupted);
std::unique_ptr<LineReader> make_stream_reader();

// "\"-continued lines joined: strips a trailing backslash (true) or not (false).
bool strip_continuation(std::string& line);

}  // namespace ck::app
