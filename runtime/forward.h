// The llama / qwen2 forward pass over a batch of consecutive tokens.
#pragma once
#include <cstdint>
#include <functional>

#include "loader/model_config.h"
#include "runtime/run_state.h"
#include "runtime/weights.h"

namespace ck {

// Runs tokens[0 .. n) at positions pos .. pos + n - 1 (1 <= n <= s.n_batch,
// pos + n <= s.n_ctx, ids valid: the Session checks), appending their keys and
// values to the cache. One token takes the matrix-vector path (decode), more
// the matrix-matrix path that reads each weight once per batch (prefill).
// Writes the logits of the last token to s.logits, or of every token to
// all_logits (n x vocab) when it is not null. Allocates nothing. `stop`, when
// set, is asked before each layer, on the calling thread, and must not
// throw; true throws EvalStopped (session.h) and leaves the cache rows of
// these positions partly written (the Session does not count them). The
// threads: one team (kernels/team.h) for the whole pass.
void forward(const ModelConfig& c, const Weights& w, RunState& s, const int32_t* tokens, int n, int pos,
             float* all_logits, const std::function<bool()>& stop = {});

}  // namespace ck
