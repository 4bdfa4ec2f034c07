// The scheduler on stories260K (F32): requests batched together get the
// text they get alone; the queue bound, cancellation, the prompt cache and
// the context shift.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "apps/server/api_error.h"
#include "apps/server/scheduler.h"
#include "tests/runtime/golden.h"

namespace {

using namespace std::chrono_literals;
using ck::server::FinishReason;
using ck::server::Scheduler;
using ck::server::Task;
using ck::server::TaskNews;

const ck::Model& stories() {
  static const auto model = ck::Model::load(ck::test::stories_gguf());
  return *model;
}

std::shared_ptr<Task> make_task(const std::string& prompt, int max_tokens, bool ignore_eos = false) {
  ck::server::GenerationRequest r;
  r.prompt = stories().tokenizer().encode(prompt, true, false);
  r.sampling.temp = 0;  // greedy: the text is determined
  r.max_tokens = max_tokens;
  r.ignore_eos = ignore_eos;
  return std::make_shared<Task>(std::move(r));
}

struct Outcome {
  std::string text;
  TaskNews end;
};

Outcome collect(Task& t) {
  Outcome o;
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    TaskNews n = t.wait(100ms);
    o.text += n.text;
    if (n.finished) {
      o.end = n;
      return o;
    }
  }
  FAIL("the task did not finish within 60 s");
  return o;
}

// Waits until `done` holds for the scheduler's stats (the scheduler thread
// updates them after each step).
template <typename F>
void wait_for(const Scheduler& s, F done) {
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!done(s.stats())) {
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    std::this_thread::sleep_for(10ms);
  }
}

const char* kPrompts[] = {"Once upon a time", "The cat sat on the mat and", "Lily had a red ball. One day"};

}  // namespace

TEST_CASE("requests batched together get the text each gets alone", "[server][scheduler]") {
  std::vector<std::string> alone;
  {
    ck::Session session(stories(), {.n_ctx = 128, .n_batch = 16, .n_seq = 1});
    Scheduler s(stories(), session, {});
    for (const char* p : kPrompts) {
      auto t = make_task(p, 40);
      s.submit(t);
      alone.push_back(collect(*t).text);
    }
  }
  // Three slots, batches of 4 tokens: prompts are read in chunks beside the others' decoding.
  ck::Session session(stories(), {.n_ctx = 128, .n_batch = 4, .n_seq = 3});
  Scheduler s(stories(), session, {});
  std::vector<std::shared_ptr<Task>> tasks;
  for (const char* p : kPrompts) {
    tasks.push_back(make_task(p, 40));
    s.submit(tasks.back());
  }
  for (size_t i = 0; i < tasks.size(); ++i) {
    const Outcome o = collect(*tasks[i]);
    INFO(kPrompts[i]);
    REQUIRE(!o.text.empty());
    REQUIRE(o.text == alone[i]);
    REQUIRE(o.end.usage.prompt_tokens == static_cast<int>(tasks[i]->request().prompt.size()));
  }
  wait_for(s, [](const auto& st) { return st.busy_slots == 0; });
  const auto st = s.stats();
  REQUIRE(st.finished == 3);
  REQUIRE(st.steps > 0);
}

// No wait_for here: a client that reads /metrics as soon as it has its
// answer must see the answer counted and the slot free (CI once saw a
// stale busy slot when the task was told before the stats moved).
TEST_CASE("a request's end is told after the stats count it", "[server][scheduler]") {
  ck::Session session(stories(), {.n_ctx = 128, .n_batch = 16, .n_seq = 2});
  Scheduler s(stories(), session, {});
  for (uint64_t i = 1; i <= 200; ++i) {
    auto t = make_task(kPrompts[i % 3], 1 + static_cast<int>(i % 4));
    s.submit(t);
    while (!t->wait(0ms).finished) {  // polled: sees the end the moment it is told
    }
    const auto st = s.stats();
    REQUIRE(st.busy_slots == 0);
    REQUIRE(st.queued == 0);
    REQUIRE(st.finished == i);
  }
}

TEST_CASE("the queue is bounded (429), a cancelled request frees its slot", "[server][scheduler]") {
  ck::Session session(stories(), {.n_ctx = 512, .n_batch = 16, .n_seq = 1});
  Scheduler s(stories(), session, {.max_queue = 1});
  auto running = make_task("Once upon a time", 100000, /*ignore_eos=*/true);
  s.submit(running);
  REQUIRE(!running->wait(30s).text.empty());  // admitted and generating
  auto queued = make_task("The cat", 5);
  s.submit(queued);
  try {
    s.submit(make_task("The dog", 5));
    FAIL("a third request was accepted");
  } catch (const ck::server::ApiError& e) {
    REQUIRE(e.status() == 429);
  }
  running->cancel();
  const Outcome o = collect(*queued);  // the slot went to the queued request
  REQUIRE(o.end.reason == FinishReason::Length);
  REQUIRE(o.end.usage.completion_tokens == 5);
  wait_for(s, [](const auto& st) { return st.busy_slots == 0 && st.queued == 0; });
  REQUIRE(s.stats().cancelled == 1);
  REQUIRE(s.stats().finished == 1);
}

TEST_CASE("a request sharing a prefix with a slot's cache reuses it", "[server][scheduler]") {
  ck::Session session(stories(), {.n_ctx = 256, .n_batch = 16, .n_seq = 2});
  Scheduler s(stories(), session, {});
  auto first = make_task("Once upon a time there was a little girl", 8);
  s.submit(first);
  const Outcome a = collect(*first);
  REQUIRE(a.end.usage.cached_tokens == 0);
  // The next turn re-sends the text so far and more.
  auto second = make_task(std::string("Once upon a time there was a little girl") + a.text + " The end", 4);
  s.submit(second);
  const Outcome b = collect(*second);
  REQUIRE(b.end.usage.cached_tokens >= static_cast<int>(first->request().prompt.size()));
  REQUIRE(b.end.usage.cached_tokens < b.end.usage.prompt_tokens);
  REQUIRE(s.stats().cached_prompt_tokens == static_cast<uint64_t>(b.end.usage.cached_tokens));
}

TEST_CASE("a full context ends the answer, or shifts with --context-shift", "[server][scheduler]") {
  const int n_ctx = 32;
  auto prompt_tokens = [] { return static_cast<int>(make_task("Once upon a time", 1)->request().prompt.size()); };
  {
    ck::Session session(stories(), {.n_ctx = n_ctx, .n_batch = 16, .n_seq = 1});
    Scheduler s(stories(), session, {});
    auto t = make_task("Once upon a time", 100, /*ignore_eos=*/true);
    s.submit(t);
    const Outcome o = collect(*t);
    REQUIRE(o.end.reason == FinishReason::Length);
    // Every position filled, and the last token sampled from the last logits.
    REQUIRE(o.end.usage.completion_tokens == n_ctx - prompt_tokens() + 1);
  }
  for (const int keep : {4, -1}) {  // --keep -1: the whole prompt
    INFO("--keep " << keep);
    ck::Session session(stories(), {.n_ctx = n_ctx, .n_batch = 16, .n_seq = 1});
    Scheduler s(stories(), session, {.context_shift = true, .n_keep = keep});
    auto t = make_task("Once upon a time", 100, /*ignore_eos=*/true);
    s.submit(t);
    const Outcome o = collect(*t);
    REQUIRE(o.end.reason == FinishReason::Length);
    REQUIRE(o.end.usage.completion_tokens == 100);
    REQUIRE(s.stats().context_shifts >= 3);
  }
}
