// The consistency rules of a vocabulary, checked before any table is built.
#pragma once
#include "tokenizer/vocab.h"

namespace ck::tok {

// Throws std::runtime_error naming the tokenizer.ggml.* field and what was
// expected: model "llama" or "gpt2"; a non-empty vocabulary; scores and token
// types one per token (or none), scores finite, types 0..6; special ids in
// range or none; add_bos / add_eos only with the id they add.
void validate_vocab(const VocabData& v);

}  // namespace ck::tok
