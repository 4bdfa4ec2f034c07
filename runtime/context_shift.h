// A context shift (llama.cpp's "infinite text generation"): when a
// sequence's context is full, its first tokens stay, the older half of the
// rest is dropped, and generation goes on after the newer half. Which tokens
// stay is decided here once, for ck-run, the chat and ck-server. The moved
// tokens are evaluated again at their new positions (no second RoPE path), so
// the cache afterwards is exactly what a fresh evaluation of the kept tokens
// gives; that costs up to half a context of prefill per shift.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "runtime/session.h"

namespace ck {

// llama.cpp's --keep N: the tokens a shift keeps at the start are BOS (when
// the tokenizer adds one) and the next N tokens of the prompt; N = -1, or more
// than the prompt, keeps the whole prompt. `n_prompt` counts the BOS.
int keep_count(int keep_flag, int n_prompt, bool add_bos);

struct ContextShift {
  int keep = 0;     // tokens [0, keep) stay where they are
  int discard = 0;  // tokens [keep, keep + discard) are dropped; the rest move down by `discard`
};

// The shift of a context of `n_ctx` positions holding `n_tokens` tokens
// (0 < n_tokens <= n_ctx): `n_keep` is capped at half the context, so one
// shift frees at least a quarter of it; the older half of the rest goes (at
// least one token). Throws std::invalid_argument for sizes that break those
// bounds or a negative n_keep.
ContextShift plan_context_shift(int n_tokens, int n_ctx, int n_keep);

// Applies plan_context_shift to the first sequence of `session`, whose cache
// holds `tokens` (all n_ctx positions, or fewer), and evaluates `next` after
// the kept tokens: the session is truncated to the kept start, the moved tail
// and `next` are evaluated (a prefill), and `tokens` becomes the kept tokens
// plus `next`. Returns the logits of `next`. Returns how many tokens were
// evaluated again (the moved tail) in `n_reevaluated`.
std::span<const float> shift_and_eval(Session& session, std::vector<int32_t>& tokens, int n_keep, int32_t next,
                                      int& n_reevaluated);

}  // namespace ck
