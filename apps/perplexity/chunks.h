// llama-perplexity's chunking: the token stream is cut into n_chunk chunks of
// n_ctx tokens (the tail that does not fill a chunk is dropped), each chunk is
// evaluated from an empty KV cache with its first token replaced by BOS when
// the model adds BOS, and only the second half is scored: the logits at
// positions first .. n_ctx-2 (first = n_ctx/2) predict tokens first+1 .. n_ctx-1,
// so every scored token has at least n_ctx/2 tokens of context.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "runtime/session.h"

namespace ck::app {

struct ChunkPlan {
  int n_ctx = 0;    // tokens per chunk
  int n_chunk = 0;  // chunks evaluated
  int first = 0;    // first scored logit row (n_ctx / 2)
  int n_scored() const { return n_ctx - 1 - first; }  // scored tokens per chunk
};

// Throws when the text gives fewer than 2 * n_ctx tokens (as llama-perplexity
// refuses). max_chunks < 0 = as many as the tokens allow.
ChunkPlan plan_chunks(size_t n_tokens, int n_ctx, int max_chunks);

// The tokens chunk `i` is evaluated with: tokens[i*n_ctx, (i+1)*n_ctx), the
// first replaced by `bos` when bos >= 0.
std::vector<int32_t> chunk_input(std::span<const int32_t> tokens, const ChunkPlan& plan, int i, int32_t bos);

// What a scorer gets for one chunk: `logits` row r (n_vocab floats) predicts
// `targets[r]`, for r < plan.n_scored().
struct ScoredChunk {
  int index;
  std::span<const float> logits;
  std::span<const int32_t> targets;
  int n_vocab;
  std::span<const float> row(int r) const { return logits.subspan(static_cast<size_t>(r) * n_vocab, n_vocab); }
};

// Evaluates every chunk of the plan in order (session reset before each) and
// hands its scored rows to `score`. `tokens` are the original (un-replaced)
// tokens; the session's n_ctx must be >= plan.n_ctx.
void evaluate_chunks(Session& session, std::span<const int32_t> tokens, const ChunkPlan& plan, int32_t bos,
                     int n_vocab, const std::function<void(const ScoredChunk&)>& score);

}  // namespace ck::app
