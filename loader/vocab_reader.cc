#include "loader/vocab_reader.h"

#include <stdexcept>

namespace ck {

namespace {

// Special-token ids are u32 in llama.cpp's files, with 0xFFFFFFFF (or any
// negative value) meaning "none"; they end up as -1 like llama.cpp's casts.
int32_t token_id(const Metadata& meta, const std::string& key) {
  auto v = meta.get_i64(key);
  if (!v) return -1;
  if (*v < 0 || *v == 0xFFFFFFFFLL) return -1;
  if (*v > INT32_MAX) {
    throw std::runtime_error(meta.source() + ": metadata key '" + key + "' is " + std::to_string(*v) +
                             ", expected a token id");
  }
  return static_cast<int32_t>(*v);
}

}  // namespace

tok::VocabData vocab_from_metadata(const Metadata& meta, const std::string& path) {
  tok::VocabData v;
  auto model = meta.get_string("tokenizer.ggml.model");
  if (!model) throw std::runtime_error(path + ": metadata key 'tokenizer.ggml.model' is missing (no tokenizer)");
  v.model = *model;
  v.pre = meta.get_string("tokenizer.ggml.pre").value_or("");
  auto tokens = meta.get_string_array("tokenizer.ggml.tokens");
  if (!tokens) throw std::runtime_error(path + ": metadata key 'tokenizer.ggml.tokens' is missing");
  v.tokens = std::move(*tokens);
  v.scores = meta.get_f32_array("tokenizer.ggml.scores").value_or(std::vector<float>{});
  v.token_types = meta.get_i32_array("tokenizer.ggml.token_type").value_or(std::vector<int32_t>{});
  v.merges = meta.get_string_array("tokenizer.ggml.merges").value_or(std::vector<std::string>{});
  v.bos_id = token_id(meta, "tokenizer.ggml.bos_token_id");
  v.eos_id = token_id(meta, "tokenizer.ggml.eos_token_id");
  v.unk_id = token_id(meta, "tokenizer.ggml.unknown_token_id");
  v.pad_id = token_id(meta, "tokenizer.ggml.padding_token_id");
  v.eot_id = token_id(meta, "tokenizer.ggml.eot_token_id");
  v.eom_id = token_id(meta, "tokenizer.ggml.eom_token_id");
  // llama.cpp's defaults when the keys are absent: SPM adds BOS, BPE does not,
  // except the Llama-3 pre-tokenizer group (Llama-3 GGUFs often lack the key).
  const bool spm = v.model == "llama";
  const bool llama3_group = v.pre == "llama3" || v.pre == "llama-v3" || v.pre == "llama-bpe" ||
                            v.pre == "falcon3" || v.pre == "pixtral";
  v.add_bos = meta.get_bool("tokenizer.ggml.add_bos_token").value_or(spm || llama3_group);
  v.add_eos = meta.get_bool("tokenizer.ggml.add_eos_token").value_or(false);
  v.add_space_prefix = meta.get_bool("tokenizer.ggml.add_space_prefix").value_or(spm);
  v.chat_template = meta.get_string("tokenizer.chat_template").value_or("");
  return v;
}

}  // namespace ck
