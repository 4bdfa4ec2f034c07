// Where the tokenizer tests find their vocabularies, and how they load them
// (through the loader, as the apps do).
#pragma once
#include <filesystem>
#include <string>

#include "loader/gguf_reader.h"
#include "loader/vocab_reader.h"
#include "tokenizer/tokenizer.h"

namespace ck::test {

inline std::filesystem::path shared_data() { return CK_SHARED_DATA; }
inline std::filesystem::path vectors_dir() { return shared_data() / "tokenizer-tests"; }
inline std::filesystem::path stories_gguf() { return shared_data() / "models" / "stories260K.gguf"; }
inline std::filesystem::path smollm_gguf() {
  return std::filesystem::path(CK_MODELS_DIR) / "SmolLM2-135M-Instruct.Q4_1.gguf";
}

inline tok::VocabData read_vocab(const std::filesystem::path& path) {
  const GgufFile file = GgufFile::open(path);
  return vocab_from_metadata(file.metadata(), path.string());
}

inline tok::Tokenizer load_tokenizer(const std::filesystem::path& path) { return tok::Tokenizer(read_vocab(path)); }

std::string read_file(const std::filesystem::path& path);

}  // namespace ck::test
