#include "tokenizer/byte_unicode.h"

#include <array>

#include "tokenizer/utf8.h"

namespace ck::tok {

namespace {

// Printable Latin-1 bytes keep their own code point; the other 68 bytes are
// numbered from U+0100 upwards in byte order.
constexpr bool keeps_own_codepoint(unsigned b) {
  return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

constexpr std::array<uint16_t, 256> make_byte_table() {
  std::array<uint16_t, 256> table{};
  unsigned next = 256;
  for (unsigned b = 0; b < 256; ++b) table[b] = static_cast<uint16_t>(keeps_own_codepoint(b) ? b : next++);
  return table;
}

constexpr auto kByteToCodepoint = make_byte_table();

// Inverse table over U+0000..U+0143, the range the mapping uses; -1 = unmapped.
constexpr std::array<int16_t, 324> make_inverse_table() {
  std::array<int16_t, 324> inverse{};
  for (auto& v : inverse) v = -1;
  for (unsigned b = 0; b < 256; ++b) inverse[kByteToCodepoint[b]] = static_cast<int16_t>(b);
  return inverse;
}

constexpr auto kCodepointToByte = make_inverse_table();

}  // namespace

uint32_t byte_to_codepoint(uint8_t b) { return kByteToCodepoint[b]; }

void append_byte_level(std::string_view bytes, std::string& out) {
  for (char c : bytes) utf8::append(kByteToCodepoint[static_cast<uint8_t>(c)], out);
}

void append_from_byte_level(std::string_view text, std::string& out) {
  size_t pos = 0;
  while (pos < text.size()) {
    const auto lead = static_cast<uint8_t>(text[pos]);
    const size_t len = utf8::char_length(text.substr(pos));
    uint32_t cp = lead;
    if (len == 2) cp = ((lead & 0x1Fu) << 6) | (static_cast<uint8_t>(text[pos + 1]) & 0x3Fu);
    const bool mapped = (len == 1 && cp < 0x80) || (len == 2 && cp < kCodepointToByte.size());
    if (mapped && kCodepointToByte[cp] >= 0) {
      out += static_cast<char>(kCodepointToByte[cp]);
    } else {
      out.append(text.data() + pos, len);
    }
    pos += len;
  }
}

}  // namespace ck::tok
