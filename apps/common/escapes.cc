#include "apps/common/escapes.h"

namespace ck::app {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string process_escapes(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '\\' || i + 1 == in.size()) {
      out += in[i];
      continue;
    }
    const char c = in[++i];
    switch (c) {
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case '\'': case '"': case '\\': out += c; break;
      case 'x':
        if (i + 2 < in.size() && hex_digit(in[i + 1]) >= 0 && hex_digit(in[i + 2]) >= 0) {
          out += static_cast<char>(hex_digit(in[i + 1]) * 16 + hex_digit(in[i + 2]));
          i += 2;
          break;
        }
        [[fallthrough]];
      default:
        out += '\\';
        out += c;
    }
  }
  return out;
}

void add_escape_flag(CLI::App& app, bool& escape, const std::string& applies_to) {
  app.add_flag("-e,--escape,!--no-escape", escape,
               "Process escapes (\\n \\r \\t \\' \\\" \\\\ \\xHH) in " + applies_to +
                   "; on by default as in llama.cpp, --no-escape turns it off");
}

}  // namespace ck::app
