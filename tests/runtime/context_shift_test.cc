// The context shift shared by ck-run, the chat and ck-server
// (runtime/context_shift.h): which tokens stay, by llama.cpp's rule, and the
// cache after a shift against a fresh evaluation of the kept tokens.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "runtime/context_shift.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "tests/runtime/golden.h"

TEST_CASE("keep_count: --keep as llama.cpp reads it", "[runtime][context-shift]") {
  CHECK(ck::keep_count(0, 10, true) == 1);    // BOS always stays
  CHECK(ck::keep_count(0, 10, false) == 0);
  CHECK(ck::keep_count(3, 10, true) == 4);    // N prompt tokens after BOS
  CHECK(ck::keep_count(3, 10, false) == 3);
  CHECK(ck::keep_count(-1, 10, true) == 10);  // the whole prompt (its BOS counted)
  CHECK(ck::keep_count(50, 10, true) == 10);  // never more than the prompt
  CHECK(ck::keep_count(9, 10, true) == 10);
  CHECK_THROWS_AS(ck::keep_count(-2, 10, true), std::invalid_argument);
}

TEST_CASE("plan_context_shift: the first n_keep stay, the older half of the rest goes", "[runtime][context-shift]") {
  struct Case {
    int n_tokens, n_ctx, n_keep;
    int keep, discard;
  };
  const Case cases[] = {
      {32, 32, 5, 5, 13},          // 27 left, 13 dropped (llama.cpp's n_left / 2)
      {32, 32, 100, 16, 8},        // n_keep capped at half the context: a shift frees a quarter
      {4096, 4096, 0, 0, 2048},
      {2, 2, 1, 1, 1},             // tiny contexts still make room: at least one token goes
      {1, 1, 1, 0, 1},
      {3, 32, 10, 2, 1},           // not full (the server's prompt chunks): all but one at most kept
  };
  for (const Case& c : cases) {
    INFO(c.n_tokens << " tokens, context " << c.n_ctx << ", n_keep " << c.n_keep);
    const ck::ContextShift s = ck::plan_context_shift(c.n_tokens, c.n_ctx, c.n_keep);
    CHECK(s.keep == c.keep);
    CHECK(s.discard == c.discard);
  }
  CHECK_THROWS_AS(ck::plan_context_shift(33, 32, 0), std::invalid_argument);
  CHECK_THROWS_AS(ck::plan_context_shift(0, 32, 0), std::invalid_argument);
  CHECK_THROWS_AS(ck::plan_context_shift(8, 0, 0), std::invalid_argument);
  CHECK_THROWS_AS(ck::plan_context_shift(8, 8, -1), std::invalid_argument);
}

TEST_CASE("shift_and_eval: the cache afterwards is a fresh evaluation of the kept tokens", "[runtime][context-shift]") {
  auto model = ck::Model::load(ck::test::stories_gguf());
  const int n_ctx = 32;
  std::vector<int32_t> tokens = model->tokenizer().encode(
      "Once upon a time there was a little girl named Lily. She loved to play outside in the park with her "
      "friends and her big red ball.",
      true, false);
  REQUIRE(tokens.size() > static_cast<size_t>(n_ctx));
  tokens.resize(n_ctx);
  const int32_t next = tokens[7];

  // An f32 cache: the shifted run evaluates the moved tokens in other
  // batches than the fresh one, and in halves a key computed 1e-6 apart may
  // round to neighbouring halves (docs/decoder.md, "KV cache in halves"), beyond
  // the 1e-4 this test holds the two to (halves: 2.8e-4 at the first logit
  // past it).
  const ck::KvCacheTypes f32{.key_f16 = false, .value_f16 = false};
  ck::Session session(*model, {.n_ctx = n_ctx, .n_batch = 8, .kv_types = f32});
  session.eval(tokens);
  REQUIRE(session.n_past() == n_ctx);
  std::vector<int32_t> cache = tokens;
  int n_reevaluated = 0;
  const auto shifted = ck::shift_and_eval(session, cache, 5, next, n_reevaluated);
  const std::vector<float> got(shifted.begin(), shifted.end());

  // Kept: positions 0-4, then 18-31 (13 dropped), then `next`.
  std::vector<int32_t> want_tokens(tokens.begin(), tokens.begin() + 5);
  want_tokens.insert(want_tokens.end(), tokens.begin() + 18, tokens.end());
  want_tokens.push_back(next);
  CHECK(cache == want_tokens);
  CHECK(n_reevaluated == 14);
  CHECK(session.n_past() == static_cast<int>(want_tokens.size()));

  ck::Session fresh(*model, {.n_ctx = n_ctx, .kv_types = f32});
  const auto want = fresh.eval(want_tokens);
  REQUIRE(want.size() == got.size());
  for (size_t i = 0; i < want.size(); ++i) REQUIRE(got[i] == Approx(want[i]).margin(1e-4));

  // Decoding on from both gives the same logits: the cache itself matches.
  const int32_t after = tokens[9];
  const std::vector<float> a = [&] {
    const auto l = session.eval(std::span(&after, 1));
    return std::vector<float>(l.begin(), l.end());
  }();
  const auto b = fresh.eval(std::span(&after, 1));
  for (size_t i = 0; i < b.size(); ++i) REQUIRE(a[i] == Approx(b[i]).margin(1e-4));

  // A token list that is not the cache's is a bug of the caller.
  std::vector<int32_t> wrong(3, 1);
  CHECK_THROWS_AS(ck::shift_and_eval(session, wrong, 1, next, n_reevaluated), std::logic_error);
}
