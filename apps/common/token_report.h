// What --n-probs and --verbose-prompt print on stderr, in ck-run and the chat.
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "runtime/sampler.h"
#include "tokenizer/tokenizer.h"

namespace ck::app {

// --n-probs N: "probs: 'Paris' (6342) | 'Paris' 0.8123 | ' the' 0.0531 | ..."
// for the token just sampled (special tokens shown as written).
std::string token_probs_line(const tok::Tokenizer& tokenizer, int32_t chosen, Sampler& sampler, int n_probs);

// "   id -> 'piece'\n" (ck-tokenize's and --verbose-prompt's lines).
std::string token_list_line(const tok::Tokenizer& tokenizer, int32_t id);

// --verbose-prompt, as llama.cpp's: "prompt: '...'", "number of tokens in
// prompt = N" and one "   id -> 'piece'" line per token.
std::string verbose_prompt_text(const tok::Tokenizer& tokenizer, const std::string& prompt,
                                std::span<const int32_t> tokens);

}  // namespace ck::app
