// The decoder's forward pass over a batch of tokens of one or more sequences.
#pragma once
#include <cstdint>
#include <functional>
#include <span>

#include "loader/model_config.h"
#include "runtime/run_state.h"
#include "runtime/weights.h"

namespace ck {

// A run of consecutive tokens of one sequence within a batch: the next n
// tokens of the batch, at positions pos .. pos + n - 1 of KV cache slot `seq`.
struct BatchRun {
  int seq = 0;
  int pos = 0;
  int n = 0;
};

// Runs the tokens of a batch, runs[0]'s first, then runs[1]'s, ..., appending
// their keys and values to each run's slot; each token attends to the
// earlier positions of its own slot only. The matrix products take all the
// tokens at once, so each weight is read once per batch: one token in all
// takes the matrix-vector path (decode), more the matrix-matrix path
// (prefill; its activation rounding differs, docs/kernels.md). The caller
// (the Session) checks: 1 <= total tokens <= s.n_batch, runs of distinct
// slots below s.n_seq, each n >= 1 and pos + n <= s.n_ctx, ids valid.
// Writes the logits of the last token of run i to row i of s.logits, or of
// every token to all_logits (total x vocab) when it is not null. Allocates
// nothing. `stop`, when set, is asked before each layer, on the calling
// thread, and must not throw; true throws EvalStopped (session.h) and leaves
// the cache rows of these positions partly written (the Session does not
// count them). The threads: one team (kernels/team.h) for the whole pass.
void forward(const ModelConfig& c, const Weights& w, RunState& s, const int32_t* tokens,
             std::span<const BatchRun> runs, float* all_logits, const std::function<bool()>& stop = {});

}  // namespace ck
