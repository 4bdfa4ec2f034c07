#include "grammar/gbnf_text.h"

#include <cstdio>

#include "tokenizer/utf8.h"

namespace ck::grammar {
namespace {

// The characters that stand for themselves inside both "..." and [...].
bool plain(uint32_t cp) {
  return cp >= 0x20 && cp < 0x7F && cp != '"' && cp != '\\' && cp != '[' && cp != ']' && cp != '-' && cp != '^';
}

std::string escaped(uint32_t cp) {
  char buf[16];
  if (cp <= 0xFF) {
    std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned>(cp));
  } else if (cp <= 0xFFFF) {
    std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned>(cp));
  } else {
    std::snprintf(buf, sizeof buf, "\\U%08X", static_cast<unsigned>(cp));
  }
  return buf;
}

}  // namespace

std::string utf8_of(uint32_t cp) {
  std::string out;
  tok::utf8::append(cp, out);
  return out;
}

std::string gbnf_literal(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    // Bytes of multi-byte characters pass through: the parser reads UTF-8.
    if (c >= 0x80 || plain(c) || c == '[' || c == ']' || c == '-' || c == '^') {
      out += static_cast<char>(c);
    } else {
      out += escaped(c);
    }
  }
  return out + "\"";
}

std::string gbnf_class(const std::vector<CharRange>& ranges) {
  std::string out = "[";
  auto one = [&](uint32_t cp) { out += plain(cp) ? std::string(1, static_cast<char>(cp)) : escaped(cp); };
  for (const CharRange& r : ranges) {
    one(r.lo);
    if (r.hi == r.lo) continue;
    if (r.hi > r.lo + 1) out += '-';
    one(r.hi);
  }
  return out + "]";
}

}  // namespace ck::grammar
