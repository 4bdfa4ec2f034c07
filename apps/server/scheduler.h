// Continuous batching: one thread runs the model for every slot at once.
// Each step evaluates one token of every slot that is generating, and
// fills the rest of the batch (-b) with chunks of the prompts of slots
// still prefilling, so that running streams keep flowing while a long
// prompt is read. A request queued joins at the next step a slot is free;
// one that finishes leaves and frees its slot. Tasks beyond the free slots
// wait in a bounded queue.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "apps/server/slot.h"
#include "apps/server/task.h"
#include "runtime/model.h"
#include "runtime/session.h"

namespace ck::server {

struct SchedulerOptions {
  int n_threads = 1;           // of the forward pass (OpenMP: per calling thread, so set in the scheduler's)
  int max_queue = 32;          // tasks waiting for a slot; more are refused (429)
  bool context_shift = false;  // a full context drops old tokens instead of ending the answer
  int n_keep = 0;              // --keep: prompt tokens a context shift keeps after BOS; -1 = the whole prompt
};

// Totals since start and the present state, for /metrics.
struct SchedulerStats {
  uint64_t finished = 0, cancelled = 0, failed = 0;  // requests
  uint64_t prompt_tokens = 0;          // evaluated (the cached ones are not)
  uint64_t cached_prompt_tokens = 0;   // reused from a slot's cache
  uint64_t generated_tokens = 0;
  uint64_t context_shifts = 0;
  double prefill_seconds = 0;          // steps that evaluated prompt tokens
  double decode_seconds = 0;           // steps that evaluated only generated tokens
  uint64_t steps = 0;
  int queued = 0, busy_slots = 0, n_slots = 0;
  int64_t kv_tokens = 0, kv_capacity = 0;  // positions held in all slots, and their sum of n_ctx
};

class Scheduler {
 public:
  // `session` has one sequence per slot; both must outlive the scheduler.
  Scheduler(const Model& model, Session& session, const SchedulerOptions& opts);
  ~Scheduler();  // fails what is still queued or running, and stops the thread

  // Queues the task. Throws ApiError 429 when max_queue tasks are waiting,
  // 503 once drain() began. The prompt must fit a slot (the caller checks).
  void submit(std::shared_ptr<Task> task);

  // Refuses new tasks and returns once every queued and running one ended.
  void drain();

  SchedulerStats stats() const;

  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

 private:
  void loop();
  void admit();  // under mutex_
  void drop_cancelled();
  void make_room(Slot& slot, std::vector<Ending>& ended);
  std::vector<Ending> step();  // the requests that ended in it, not yet told
  void publish(const std::vector<Ending>& ended);  // under mutex_
  bool any_busy() const;

  const Model& model_;
  Session& session_;
  const SchedulerOptions opts_;
  std::vector<Slot> slots_;  // only the scheduler thread touches them (after the constructor)

  mutable std::mutex mutex_;
  std::condition_variable wake_;   // a task was queued or stop was asked
  std::condition_variable idle_;   // nothing queued, nothing running
  std::deque<std::shared_ptr<Task>> queue_;
  bool draining_ = false, stopping_ = false;
  uint64_t admitted_ = 0;
  SchedulerStats stats_;
  std::thread thread_;
};

}  // namespace ck::server
