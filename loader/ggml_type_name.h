// ggml's names for its tensor type ids, also for the types ck cannot read, so
// that an error can say "IQ4_NL (ggml type 20)" rather than a bare number.
#pragma once
#include <cstdint>
#include <string>

namespace ck {

// "IQ4_NL" for 20; empty for an id ggml never used or has removed.
std::string ggml_type_name(uint32_t ggml_type);

// The types a GGUF may use with ck, in ggml's order: "F32, F16, Q4_0, ...".
std::string readable_ggml_type_names();

}  // namespace ck
