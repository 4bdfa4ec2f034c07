// The sampler's flags, with llama.cpp's names and meanings (common/arg.cpp
// there): --temp, --top-k, --top-p, --min-p, --typical, the penalties, DRY,
// XTC, mirostat, --samplers, --logit-bias, --ignore-eos, --n-probs. Shared by
// ck-run and ck-chat through add_generation_flags.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "runtime/sampler.h"
#include "tokenizer/tokenizer.h"

namespace ck::app {

struct SamplingOptions {
  SamplerParams params;                     // what the flags set directly
  std::vector<std::string> logit_bias;      // -l TOKEN_ID(+/-)BIAS, parsed into params
  std::vector<std::string> dry_breakers;    // --dry-sequence-breaker; the first replaces the defaults
  std::string samplers;                     // --samplers "top_k;temperature"
  std::string sampling_seq;                 // --sampling-seq "kt"
  bool ignore_eos = false;                  // --ignore-eos: the end-of-generation tokens banned
  int n_probs = 0;                          // --n-probs: print the N most likely tokens per token
};

void add_sampling_flags(CLI::App& app, SamplingOptions& opts);

// Parses --logit-bias, --samplers / --sampling-seq and the DRY breakers into
// opts.params (escapes in the breakers processed when `escape`); throws
// std::runtime_error naming the flag.
void validate_sampling_options(SamplingOptions& opts, bool escape);

// "15043+1", "15043-inf" -> {15043, 1}, {15043, -inf}. Throws std::runtime_error.
LogitBias parse_logit_bias(const std::string& text);

// The sampler for a model: DRY's sequence breakers found among its tokens,
// and with ignore_eos (--ignore-eos) every end-of-generation token banned
// (llama.cpp: "implies --logit-bias EOS-inf").
Sampler make_sampler(SamplerParams params, bool ignore_eos, const tok::Tokenizer& tokenizer);

}  // namespace ck::app
