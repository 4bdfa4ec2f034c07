// One answer of the assistant: sample, stream the text, evaluate, until an
// end-of-generation token, the -n limit, a full context (unless
// --context-shift: then the cache shifts, keeping the system prompt, and the
// answer goes on), or Ctrl-C.
#pragma once
#include <csignal>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "apps/chat/conversation.h"
#include "runtime/sampler.h"

namespace ck::app {

enum class StopReason { EndOfTurn, Limit, ContextFull, Interrupted, StopString };

struct TurnStats {
  int n_prompt = 0;       // tokens evaluated for the prompt (only the new ones)
  double prompt_s = 0;
  int n_gen = 0;          // tokens generated
  double gen_s = 0;
  int n_past = 0;         // context used after the answer
  int n_shifts = 0;       // context shifts during the answer (--context-shift)
  int n_ctx = 0;
  StopReason stop = StopReason::EndOfTurn;
};

// "[ prompt: N tok, X t/s | generation: M tok, Y t/s | context: U/C ]", and
// " | S context shifts" before the "]" when there were any.
std::string format_stats(const TurnStats& s);

struct AnswerRequest {
  int n_predict = -1;                             // -1 = no limit
  const volatile std::sig_atomic_t* interrupted;  // set by the SIGINT handler
  std::function<void(std::string_view)> on_text;  // streamed, complete UTF-8
  int n_threads = 1;                              // -t while generating
  int n_threads_batch = 1;                        // -tb while the prompt is evaluated
  bool render_special = false;                    // -sp
  std::vector<std::string> stop_strings;          // -r: the answer ends once it holds one (the user's turn)
  int n_probs = 0;                                // --n-probs: the N most likely tokens per token, on stderr
  bool verbose_prompt = false;                    // --verbose-prompt: the rendered conversation and its tokens
  bool context_shift = false;                     // --context-shift: a full context shifts (system prompt kept)
};

// Brings the cache to the conversation's prompt, then generates. Returns the
// answer text; `stats` tells how it ended. A Ctrl-C (req.interrupted) also
// stops the prompt's evaluation between two layers.
std::string generate_answer(const Conversation& conv, Session& session, CachedTokens& cache, Sampler& sampler,
                            const tok::Tokenizer& tokenizer, const AnswerRequest& req, TurnStats& stats);

}  // namespace ck::app
