// UTF-8 helpers shared by the encoders (splitting text into characters the
// way llama.cpp does) and the decoders (emitting only valid UTF-8).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ck::tok::utf8 {

// The length of the character starting `s` (non-empty): that of the
// well-formed UTF-8 sequence there, or 1 for a byte that starts none (a
// stray continuation byte, a cut-off or overlong sequence, 0xF5..0xFF).
// llama.cpp takes the length from the lead byte alone, so an invalid lead
// swallows the bytes after it; on valid UTF-8 both agree, and this way an
// invalid byte never takes a neighbour's bytes with it.
size_t char_length(std::string_view s);

// Appends the UTF-8 encoding of code point `cp` (at most U+10FFFF) to `out`.
void append(uint32_t cp, std::string& out);

inline constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Copies the valid UTF-8 of `in` to `out`, replacing every maximal invalid
// subsequence (WHATWG / Unicode "substitution of maximal subparts") with
// U+FFFD. A sequence cut off by the end of `in` is left unconsumed unless
// `final`, in which case it becomes one U+FFFD. Returns the bytes consumed.
size_t copy_valid(std::string_view in, bool final, std::string& out);

// The byte offset of the first byte of `s` that does not belong to a
// well-formed UTF-8 sequence (the same rules as above: overlong forms,
// surrogates U+D800..U+DFFF, code points above U+10FFFF, stray continuation
// bytes, 0xC0, 0xC1, 0xF5..0xFF and sequences cut off by the end of `s` are
// invalid), or std::string_view::npos when all of `s` is valid UTF-8.
size_t find_invalid(std::string_view s);

}  // namespace ck::tok::utf8
