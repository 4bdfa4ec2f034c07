// The decode team size chosen by measurement (runtime/decode_threads.h):
// the governor against synthetic pass times, and the forward pass giving
// the same bits on any team size.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <vector>

#include "runtime/decode_threads.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "tests/runtime/golden.h"

namespace {

// Runs `passes` decode passes of at most 2 threads whose times are ns_all
// (2 threads) and ns_half (1); returns how many ran on 2 threads, and
// the trials among them via `trials`.
int run_passes(ck::DecodeThreads& d, int passes, int64_t ns_all, int64_t ns_half, int* trials = nullptr,
               std::vector<int>* sizes = nullptr) {
  int on_all = 0;
  for (int i = 0; i < passes; ++i) {
    const auto pick = d.next(2);
    on_all += pick.threads == 2 ? 1 : 0;
    if (trials != nullptr && pick.trial) ++*trials;
    if (sizes != nullptr) sizes->push_back(pick.threads);
    d.record(2, pick, pick.threads == 2 ? ns_all : ns_half);
  }
  return on_all;
}

}  // namespace

TEST_CASE("decode threads: all on a quiet machine, half beside other load, all again when it ends", "[threads]") {
  ck::DecodeThreads d;
  // Quiet: 2 threads twice as fast. Trials of 1 thread, ever further apart.
  int trials = 0;
  const int quiet = run_passes(d, 2000, 4'000'000, 8'000'000, &trials);
  CHECK(quiet == 2000 - trials);
  CHECK(trials >= 3);
  CHECK(trials <= 10);  // gaps 8, 16, ..., 512: 8 trials in 2000 passes
  // One pass the scheduler delayed (8 times slower) moves nothing.
  std::vector<int> sizes;
  run_passes(d, 1, 32'000'000, 8'000'000, nullptr, &sizes);
  run_passes(d, 1, 4'000'000, 8'000'000, nullptr, &sizes);
  CHECK(sizes == std::vector<int>{2, 2});
  // Another process busy: 2 threads three times slower than 1. Four slow
  // passes on 2 threads move the choice, with no trial needed.
  sizes.clear();
  trials = 0;
  const int busy = run_passes(d, 1000, 30'000'000, 10'000'000, &trials, &sizes);
  const int slow = static_cast<int>(std::find(sizes.begin(), sizes.end(), 1) - sizes.begin());
  CHECK(slow >= 2);
  CHECK(slow <= 4);
  // After those, every pass on 2 threads a trial, but for one or two while
  // 1 thread's time, last measured on the quiet machine, catches up.
  CHECK(busy >= trials + slow);
  CHECK(busy <= trials + slow + 2);
  CHECK(trials <= 1000 / ck::DecodeThreads::kMaxGap[1] + 4);
  // Quiet again: back on 2 threads within the longest gap while on fewer.
  sizes.clear();
  run_passes(d, 200, 4'000'000, 8'000'000, nullptr, &sizes);
  int first_all = -1;
  for (size_t i = 0; i < sizes.size() && first_all < 0; ++i) first_all = sizes[i] == 2 ? static_cast<int>(i) : -1;
  CHECK(first_all >= 0);
  CHECK(first_all <= ck::DecodeThreads::kMaxGap[1] + 1);
  // Then the next trial of 1 thread only after the least gap on all.
  for (size_t i = static_cast<size_t>(first_all) + 1; i < sizes.size(); ++i) {
    INFO("pass " << i);
    CHECK(sizes[i] == (i == first_all + ck::DecodeThreads::kMinGap[0] ? 1 : 2));
  }
}

TEST_CASE("decode threads: one thread is never split, a fixed size is kept", "[threads]") {
  ck::DecodeThreads d;
  for (int i = 0; i < 100; ++i) CHECK(d.next(1).threads == 1);
  d.fix(1);
  CHECK(run_passes(d, 100, 1'000'000, 9'000'000) == 0);  // 1 thread, however slow
  d.fix(64);
  CHECK(run_passes(d, 100, 9'000'000, 1'000'000) == 100);  // all (2) threads, however slow
  d.fix(0);
  CHECK(d.next(2).threads == 2);  // adaptive again, from scratch: all threads first
}

// Decode's results do not depend on the team: the keys' split (past 512
// keys) and the attention items are planned for all the threads, so one
// thread computes the same bits as two.
TEST_CASE("decode on a team of one gives the same bits as on two", "[threads][forward]") {
  const auto g = ck::test::load_golden("smollm2_fox");
  REQUIRE(ck::test::model_available(g.model));
  auto model = ck::Model::load(g.model);
  const std::vector<int32_t> tokens = ck::test::repeated_prompt(g, 530);
  ck::set_threads(2);
  std::vector<std::vector<float>> logits[2];
  for (int team : {1, 2}) {
    ck::decode_threads().fix(team);
    ck::Session s(*model, {.n_ctx = 640});
    s.eval(std::span(tokens).first(500));
    // Decode from 501 keys (no split) to 530 (split in two shares).
    for (size_t t = 500; t < tokens.size(); ++t) {
      const auto l = s.eval(std::span(&tokens[t], 1));
      logits[team - 1].emplace_back(l.begin(), l.end());
    }
  }
  ck::decode_threads().fix(0);
  ck::set_threads(0);
  REQUIRE(logits[0].size() == logits[1].size());
  for (size_t i = 0; i < logits[0].size(); ++i) {
    INFO("token " << 500 + i);
    CHECK(std::memcmp(logits[0][i].data(), logits[1][i].data(), logits[0][i].size() * sizeof(float)) == 0);
  }
}
