#include "tokenizer/utf8.h"

namespace ck::tok::utf8 {

void append(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

namespace {

// Length of the well-formed sequence starting at `s[0]` (Unicode Table 3-7),
// 0 when the lead byte can start none. `valid_prefix` receives how many bytes
// (lead included) are consistent with some well-formed sequence, so that a
// cut-off sequence can be told from an invalid one.
size_t well_formed_length(std::string_view s, size_t* valid_prefix) {
  const auto b0 = static_cast<uint8_t>(s[0]);
  size_t need;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 < 0x80) {
    *valid_prefix = 1;
    return 1;
  } else if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    *valid_prefix = 0;
    return 0;
  }
  size_t i = 1;
  for (; i < need && i < s.size(); ++i) {
    const auto b = static_cast<uint8_t>(s[i]);
    const bool ok = i == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
    if (!ok) break;
  }
  *valid_prefix = i;
  return i == need ? need : 0;
}

}  // namespace

size_t char_length(std::string_view s) {
  size_t prefix = 0;
  const size_t len = well_formed_length(s, &prefix);
  return len > 0 ? len : 1;
}

size_t copy_valid(std::string_view in, bool final, std::string& out) {
  size_t pos = 0;
  while (pos < in.size()) {
    size_t prefix = 0;
    const size_t len = well_formed_length(in.substr(pos), &prefix);
    if (len > 0) {
      out.append(in.data() + pos, len);
      pos += len;
    } else if (pos + prefix == in.size() && prefix > 0 && !final) {
      break;  // a sequence that the next bytes may still complete
    } else {
      out += kReplacement;
      pos += prefix > 0 ? prefix : 1;
    }
  }
  return pos;
}

size_t find_invalid(std::string_view s) {
  size_t pos = 0;
  while (pos < s.size()) {
    size_t prefix = 0;
    const size_t len = well_formed_length(s.substr(pos), &prefix);
    if (len == 0) return pos;
    pos += len;
  }
  return std::string_view::npos;
}

}  // namespace ck::tok::utf8
