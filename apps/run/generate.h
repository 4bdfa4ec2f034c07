// The generation loop of ck-run: prefill the prompt, then sample, print and
// feed back one token at a time, streaming complete UTF-8 to `out`.
#pragma once
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "runtime/sampler.h"
#include "runtime/session.h"
#include "tokenizer/tokenizer.h"

namespace ck::app {

enum class StopReason { EndOfGeneration, TokenLimit, ContextFull, Interrupted, StopString };

struct GenerationStats {
  int prompt_tokens = 0;          // evaluated (fewer than prompt_total when interrupted during the prompt)
  int prompt_total = 0;
  int context_shifts = 0;         // with GenerationLimits::context_shift
  int reevaluated_tokens = 0;     // the kept tails the shifts evaluated again
  double prompt_seconds = 0;
  int generated_tokens = 0;
  double generation_seconds = 0;  // sampling + decode of the generated tokens
  StopReason stop = StopReason::TokenLimit;
};

struct GenerationLimits {
  int n_predict = -1;       // -1 = no limit
  int n_threads = 1;        // -t, for the generated tokens
  int n_threads_batch = 1;  // -tb, for the prompt
  bool render_special = false;  // -sp: special tokens printed as text
  std::vector<std::string> stop_strings;  // -r: stop once the generated text holds one
  int n_probs = 0;                        // --n-probs: report the N most likely tokens on stderr
  bool context_shift = false;             // --context-shift: a full context shifts instead of stopping
  int n_keep = 0;                         // tokens a shift keeps at the start (runtime/context_shift.h keep_count)
};

// The prompt must fit the session's context (the caller checks, with a
// message naming -c). Stops at an end-of-generation token (not printed),
// n_predict tokens, a -r stop string (printed), a full context (unless
// limits.context_shift: then it shifts and goes on), or interrupted(): checked per token and,
// through the session's stop check (set here), between the layers of the
// prompt's forward passes, so that Ctrl-C during a long prompt stops at once.
GenerationStats generate(Session& session, Sampler& sampler, const tok::Tokenizer& tokenizer,
                         std::span<const int32_t> prompt, const GenerationLimits& limits, std::FILE* out);

}  // namespace ck::app
