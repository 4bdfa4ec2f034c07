// Text the user gives (a prompt, a prompt or system-prompt file, a chat
// message, a perplexity text) must be valid UTF-8 (issue 7): invalid bytes
// are refused with where they are, not passed to the tokenizer.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace ck::app {

// nullopt when `text` is valid UTF-8; otherwise what is wrong and where:
// "invalid or cut-off sequence at byte offset N (line L), byte 0xXX; expected
// valid UTF-8 text". The line (1-based) is given when `with_line`; the byte
// offset is 0-based from the start of `text`.
std::optional<std::string> utf8_problem(std::string_view text, bool with_line);

// Throws std::runtime_error("SOURCE is not valid UTF-8: " + utf8_problem(...))
// when `text` is not valid UTF-8. `source` names the text: "the prompt", or a
// file path (then the line is given too).
void require_utf8(std::string_view text, const std::string& source, bool with_line);

}  // namespace ck::app
