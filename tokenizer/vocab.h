// The tokenizer's input: the vocabulary as stored in GGUF metadata
// (tokenizer.ggml.*). The loader fills it from a GGUF or a bump file; the
// tokenizer validates it and builds its lookup tables from it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ck::tok {

// tokenizer.ggml.token_type values (llama.cpp's llama_token_type).
enum class TokenType : int32_t {
  Undefined = 0, Normal = 1, Unknown = 2, Control = 3,
  UserDefined = 4, Unused = 5, Byte = 6,
};

struct VocabData {
  std::string model;                 // tokenizer.ggml.model: "llama" (SPM) or "gpt2" (byte-level BPE)
  std::string pre;                   // tokenizer.ggml.pre; empty = "default"
  std::vector<std::string> tokens;   // tokenizer.ggml.tokens (raw bytes of each piece)
  std::vector<float> scores;         // tokenizer.ggml.scores (may be empty for gpt2)
  std::vector<int32_t> token_types;  // tokenizer.ggml.token_type (may be empty)
  std::vector<std::string> merges;   // tokenizer.ggml.merges, "left right" (gpt2 only)
  int32_t bos_id = -1, eos_id = -1, unk_id = -1, pad_id = -1;
  int32_t eot_id = -1, eom_id = -1;  // tokenizer.ggml.eot_token_id / eom_token_id
  bool add_bos = false, add_eos = false;
  bool add_space_prefix = true;      // tokenizer.ggml.add_space_prefix (SPM)
  std::string chat_template;         // tokenizer.chat_template (may be empty)
};

}  // namespace ck::tok
