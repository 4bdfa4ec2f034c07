// UTF-8 helpers shared by the encoders (splitting text into characters the
// way llama.cpp does) and the decoders (emitting only valid UTF-8).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ck::tok::utf8 {

// The length a lead byte announces, as llama.cpp's unicode_len_utf8 computes
// it from the top four bits: stray continuation bytes count as 1, and the
// following bytes are not checked. The encoders must split text exactly like
// the reference, invalid input included, so this is deliberately not a validator.
inline size_t lead_length(uint8_t lead) {
  static constexpr uint8_t kLen[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
  return kLen[lead >> 4];
}

// Appends the UTF-8 encoding of code point `cp` (at most U+10FFFF) to `out`.
void append(uint32_t cp, std::string& out);

inline constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Copies the valid UTF-8 of `in` to `out`, replacing every maximal invalid
// subsequence (WHATWG / Unicode "substitution of maximal subparts") with
// U+FFFD. A sequence cut off by the end of `in` is left unconsumed unless
// `final`, in which case it becomes one U+FFFD. Returns the bytes consumed.
size_t copy_valid(std::string_view in, bool final, std::string& out);

}  // namespace ck::tok::utf8
