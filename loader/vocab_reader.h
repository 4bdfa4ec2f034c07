// The tokenizer's vocabulary from GGUF-style metadata (tokenizer.ggml.*),
// for GGUF files and bump files alike.
#pragma once
#include <string>

#include "loader/metadata.h"
#include "tokenizer/vocab.h"

namespace ck {

// Throws naming `path` and the key when a required key is missing or has the
// wrong type. Consistency of the vocabulary itself (ids in range, array
// lengths) is checked by the tokenizer, which owns those rules.
tok::VocabData vocab_from_metadata(const Metadata& meta, const std::string& path);

}  // namespace ck
