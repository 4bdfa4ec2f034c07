#include "apps/common/utf8_input.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "tokenizer/utf8.h"

namespace ck::app {

std::optional<std::string> utf8_problem(std::string_view text, bool with_line) {
  const size_t at = tok::utf8::find_invalid(text);
  if (at == std::string_view::npos) return std::nullopt;
  std::string msg = "invalid or cut-off sequence at byte offset " + std::to_string(at);
  if (with_line) {
    const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1;
    msg += " (line " + std::to_string(line) + ")";
  }
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(text[at])));
  return msg + ", byte " + byte + "; expected valid UTF-8 text";
}

void require_utf8(std::string_view text, const std::string& source, bool with_line) {
  if (auto problem = utf8_problem(text, with_line)) {
    throw std::runtime_error(source + " is not valid UTF-8: " + *problem);
  }
}

}  // namespace ck::app
