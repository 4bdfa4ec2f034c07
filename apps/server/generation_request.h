// What one completion asks of the scheduler, parsed and tokenized: no JSON
// and no HTTP here.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "grammar/grammar.h"
#include "runtime/sampler.h"

namespace ck::server {

struct GenerationRequest {
  std::vector<int32_t> prompt;   // tokens, BOS included where the vocabulary wants it
  SamplerParams sampling;
  int max_tokens = -1;           // -1: until an end-of-generation token or the context ends
  std::vector<std::string> stop; // OpenAI's stop strings (not returned)
  bool ignore_eos = false;
  // llama-server's field: false evaluates the whole prompt even where a
  // slot's cache holds a prefix of it. A reused prefix leaves the last
  // prompt token to be evaluated alone, in the decode kernels rather than
  // the prompt's GEMM, whose float sums round differently, so a greedy
  // answer may differ from an uncached one where two tokens nearly tie.
  bool cache_prompt = true;
  std::optional<grammar::Grammar> grammar;  // response_format json_schema / json_object
  bool logprobs = false;         // report each token's log probability
  int top_logprobs = 0;          // and that many most likely alternatives
};

// Why a generation ended, in OpenAI's words: "stop" (an end-of-generation
// token or a stop string) or "length" (max_tokens, or a full context
// without context shift).
enum class FinishReason { Stop, Length };
const char* finish_reason_name(FinishReason r);

}  // namespace ck::server
