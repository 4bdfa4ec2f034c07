#include "grammar/utf8_tokens.h"

#include <algorithm>

namespace ck::grammar {
namespace {

// The length a lead byte announces; 0 for a byte that cannot lead.
size_t sequence_length(unsigned char b) {
  if (b < 0x80) return 1;
  if ((b >> 5) == 0x6) return 2;
  if ((b >> 4) == 0xE) return 3;
  if ((b >> 3) == 0x1E) return 4;
  return 0;
}

}  // namespace

DecodedBytes decode_utf8(std::string_view bytes) {
  DecodedBytes d;
  size_t i = 0;
  while (i < bytes.size()) {
    const auto b0 = static_cast<unsigned char>(bytes[i]);
    const size_t len = sequence_length(b0);
    if (len == 0) {
      d.invalid = true;
      return d;
    }
    uint32_t cp = len == 1 ? b0 : b0 & (0x7Fu >> len);
    size_t k = 1;
    for (; k < len && i + k < bytes.size(); ++k) {
      const auto b = static_cast<unsigned char>(bytes[i + k]);
      if ((b & 0xC0) != 0x80) {
        d.invalid = true;
        return d;
      }
      cp = (cp << 6) | (b & 0x3Fu);
    }
    if (k < len) {  // cut off by the end of the token
      d.tail = std::string(bytes.substr(i));
      return d;
    }
    d.code_points.push_back(cp);
    i += len;
  }
  return d;
}

void tail_range(std::string_view tail, uint32_t& lo, uint32_t& hi) {
  const auto b0 = static_cast<unsigned char>(tail[0]);
  const size_t len = sequence_length(b0);
  uint32_t known = b0 & (0x7Fu >> len);
  for (size_t k = 1; k < tail.size(); ++k) known = (known << 6) | (static_cast<unsigned char>(tail[k]) & 0x3Fu);
  const size_t missing_bits = 6 * (len - tail.size());
  lo = known << missing_bits;
  hi = lo | ((1u << missing_bits) - 1);
  // A sequence of `len` bytes encodes nothing below these (shorter forms are
  // overlong) and nothing above U+10FFFF.
  constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  lo = std::max(lo, kSmallest[len]);
  hi = std::min(hi, uint32_t{0x10FFFF});
}

}  // namespace ck::grammar
