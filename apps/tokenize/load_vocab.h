// The vocabulary of a model file, GGUF (vocabulary-only ones too) or bump,
// told apart by magic bytes.
#pragma once
#include <filesystem>

#include "tokenizer/vocab.h"

namespace ck::app {

tok::VocabData load_vocab(const std::filesystem::path& model);

}  // namespace ck::app
