#include "apps/server/scheduler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "apps/server/api_error.h"
#include "runtime/context_shift.h"

namespace ck::server {

Scheduler::Scheduler(const Model& model, Session& session, const SchedulerOptions& opts)
    : model_(model), session_(session), opts_(opts), slots_(session.n_seq()) {
  for (int i = 0; i < session.n_seq(); ++i) {
    slots_[i].seq = i;
    session_.truncate(0, i);
  }
  stats_.n_slots = session.n_seq();
  stats_.kv_capacity = int64_t{session.n_ctx()} * session.n_seq();
  thread_ = std::thread([this] { loop(); });
}

Scheduler::~Scheduler() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  for (const auto& t : queue_) t->fail("the server is shutting down");
}

void Scheduler::submit(std::shared_ptr<Task> task) {
  {
    std::lock_guard lock(mutex_);
    if (draining_ || stopping_) throw ApiError(503, "the server is shutting down");
    if (static_cast<int>(queue_.size()) >= opts_.max_queue) {
      throw ApiError(429, "the server is busy: " + std::to_string(queue_.size()) +
                              " requests are waiting for a slot (--max-queue); retry later");
    }
    queue_.push_back(std::move(task));
    stats_.queued = static_cast<int>(queue_.size());
  }
  wake_.notify_all();
}

void Scheduler::drain() {
  std::unique_lock lock(mutex_);
  draining_ = true;
  idle_.wait(lock, [&] { return queue_.empty() && stats_.busy_slots == 0; });
}

SchedulerStats Scheduler::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

bool Scheduler::any_busy() const {
  return std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.busy(); });
}

// Each queued task to a free slot: the one whose cached tokens share the
// longest prefix with its prompt (a chat's next turn finds its history),
// else the least recently used (keeping the others' caches).
void Scheduler::admit() {
  while (!queue_.empty()) {
    std::shared_ptr<Task> task = queue_.front();
    if (task->cancelled()) {
      queue_.pop_front();
      ++stats_.cancelled;
      continue;
    }
    Slot* best = nullptr;
    size_t best_prefix = 0;
    for (Slot& s : slots_) {
      if (s.busy()) continue;
      const size_t prefix = task->request().cache_prompt ? common_prefix(s.cached, task->request().prompt) : 0;
      if (best == nullptr || prefix > best_prefix || (prefix == best_prefix && s.last_used < best->last_used)) {
        best = &s;
        best_prefix = prefix;
      }
    }
    if (best == nullptr) break;
    queue_.pop_front();
    try {
      const int keep = best->start(task, model_.tokenizer(), ++admitted_);
      session_.truncate(keep, best->seq);
      stats_.cached_prompt_tokens += keep;
    } catch (const std::exception& e) {  // a sampler parameter the parser let through (the slot never took it)
      task->fail(e.what());
      best->release();
      ++stats_.failed;
    }
  }
  stats_.queued = static_cast<int>(queue_.size());
}

void Scheduler::drop_cancelled() {
  for (Slot& s : slots_) {
    if (s.busy() && s.task->cancelled()) {
      s.release();
      std::lock_guard lock(mutex_);
      ++stats_.cancelled;
    }
  }
}

// A generating slot whose context is full: a context shift
// (runtime/context_shift.h) keeps the first --keep tokens and drops the older
// half of the rest, then the kept tail is evaluated again (as prompt chunks)
// at its new positions; without it the answer ends ("length").
void Scheduler::make_room(Slot& s, std::vector<Ending>& ended) {
  const int n_ctx = session_.n_ctx();
  if (static_cast<int>(s.cached.size() + s.pending.size()) <= n_ctx) return;
  if (!opts_.context_shift) {
    ended.push_back(s.finish(FinishReason::Length));
    return;
  }
  const int n_keep = keep_count(opts_.n_keep, s.usage.prompt_tokens, model_.tokenizer().add_bos());
  const ContextShift shift = plan_context_shift(static_cast<int>(s.cached.size()), n_ctx, n_keep);
  const auto moved = s.cached.begin() + shift.keep + shift.discard;
  s.pending.insert(s.pending.begin(), moved, s.cached.end());
  s.cached.resize(static_cast<size_t>(shift.keep));
  session_.truncate(shift.keep, s.seq);
  std::lock_guard lock(mutex_);
  ++stats_.context_shifts;
}

std::vector<Ending> Scheduler::step() {
  // Generating slots first (one token each), then prompt chunks in the room left.
  std::vector<Ending> ended;
  std::vector<Slot*> order;
  for (Slot& s : slots_) {
    if (s.busy() && s.prompt_done) make_room(s, ended);
    if (s.busy() && s.prompt_done) order.push_back(&s);
  }
  for (Slot& s : slots_) {
    if (s.busy() && !s.prompt_done) order.push_back(&s);
  }
  std::sort(order.begin() + static_cast<std::ptrdiff_t>(std::count_if(order.begin(), order.end(),
                                                                       [](Slot* s) { return s->prompt_done; })),
            order.end(), [](Slot* a, Slot* b) { return a->last_used < b->last_used; });  // oldest prompt first
  std::vector<SeqTokens> inputs;
  std::vector<Slot*> in_batch;
  int budget = session_.n_batch(), prompt_tokens = 0;
  for (Slot* s : order) {
    if (budget == 0) break;
    const int n = std::min<int>(budget, static_cast<int>(s->pending.size()));
    if (n == 0) continue;
    inputs.push_back({s->seq, std::span(s->pending).first(n)});
    in_batch.push_back(s);
    budget -= n;
    if (!s->prompt_done) prompt_tokens += n;
  }
  if (inputs.empty()) return ended;
  const auto t0 = std::chrono::steady_clock::now();
  std::span<const float> logits;
  try {
    logits = session_.eval_batch(inputs);
  } catch (const std::exception& e) {  // a bug: fail the requests of the step, keep serving
    spdlog::error("ck-server: a forward pass failed: {}", e.what());
    for (Slot* s : in_batch) {
      ended.push_back(s->fail(std::string("internal error: ") + e.what()));
      s->cached.clear();
      session_.truncate(0, s->seq);
    }
    return ended;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const size_t V = static_cast<size_t>(model_.config().vocab_size);
  int generated = 0;
  for (size_t i = 0; i < in_batch.size(); ++i) {
    Slot& s = *in_batch[i];
    const size_t n = inputs[i].tokens.size();
    s.cached.insert(s.cached.end(), s.pending.begin(), s.pending.begin() + static_cast<std::ptrdiff_t>(n));
    s.pending.erase(s.pending.begin(), s.pending.begin() + static_cast<std::ptrdiff_t>(n));
    if (!s.pending.empty()) continue;  // more of the prompt next step
    const int before = s.usage.completion_tokens;
    try {
      if (auto end = s.take_logits(logits.subspan(i * V, V), model_.tokenizer())) ended.push_back(std::move(*end));
      generated += s.usage.completion_tokens - before;
    } catch (const std::exception& e) {
      ended.push_back(s.fail(std::string("internal error: ") + e.what()));
    }
  }
  std::lock_guard lock(mutex_);
  stats_.prompt_tokens += prompt_tokens;
  stats_.generated_tokens += generated;
  (prompt_tokens > 0 ? stats_.prefill_seconds : stats_.decode_seconds) += seconds;
  ++stats_.steps;
  return ended;
}

// The state after a step, then the endings: a client that reads /metrics
// once it has its answer sees that answer counted and its slot free.
void Scheduler::publish(const std::vector<Ending>& ended) {
  for (const Ending& e : ended) ++(e.error.empty() ? stats_.finished : stats_.failed);
  stats_.busy_slots = static_cast<int>(std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) { return s.busy(); }));
  stats_.kv_tokens = 0;
  for (const Slot& s : slots_) stats_.kv_tokens += static_cast<int64_t>(s.cached.size());
  for (const Ending& e : ended) e.tell();
  if (queue_.empty() && stats_.busy_slots == 0) idle_.notify_all();
}

void Scheduler::loop() {
  set_threads(opts_.n_threads);
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty() || any_busy(); });
      if (stopping_) break;
      admit();
    }
    drop_cancelled();
    const std::vector<Ending> ended = step();
    std::lock_guard lock(mutex_);
    publish(ended);
  }
  for (Slot& s : slots_) {
    if (s.busy()) s.fail("the server is shutting down").tell();
  }
}

}  // namespace ck::server
