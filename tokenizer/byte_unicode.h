// GPT-2's reversible byte <-> code point mapping (bytes_to_unicode in
// OpenAI's encoder.py): byte-level BPE vocabularies spell every byte as a
// printable character, so that "Ġ" (U+0120) stands for the space byte.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace ck::tok {

// The code point that byte `b` is written as in a byte-level vocabulary.
uint32_t byte_to_codepoint(uint8_t b);

// Appends the byte-level spelling of `bytes` (one code point per byte, UTF-8).
void append_byte_level(std::string_view bytes, std::string& out);

// Reverses append_byte_level: appends the byte each code point of `text`
// stands for. A character outside the mapping (possible only in a malformed
// or added token) is copied through as its own UTF-8 bytes, so that no text
// is lost; llama.cpp prints "[UNK_BYTE_0x..]" there instead.
void append_from_byte_level(std::string_view text, std::string& out);

}  // namespace ck::tok
