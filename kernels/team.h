// A team of threads that stays together over many operations (a whole
// forward pass), and the barrier its threads meet at between operations.
//
// Why not one OpenMP parallel region per operation: decode of a small model
// runs about 150 of them per token, 10-50 us each. libgomp's idle threads
// either spin at the region's end (GOMP_SPINCOUNT pauses: on a busy machine
// a spinning thread burns the core the thread it waits for needs, and decode
// collapsed) or, passive, sleep in the kernel, and waking a sleeping vCPU
// costs tens of microseconds per region: SmolLM2 decode ran at a third of its
// speed (docs/threading.md). A Team is one OpenMP region per forward pass;
// its barrier spins briefly (the usual wait between two operations), then
// sleeps.
#pragma once
#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace ck {

class Team {
 public:
  int thread() const { return thread_; }
  int size() const { return size_; }
  bool master() const { return thread_ == 0; }

  // What the last thread to arrive at a barrier runs before it releases
  // the others (Last{}: nothing). A serial step after a parallel one rides
  // on the barrier between them: one barrier fewer, run by a thread that is
  // running, where the master may be parked by the scheduler on a busy
  // machine (docs/threading.md).
  struct Last {
    void (*fn)(void*);
    void* context;
    explicit operator bool() const { return fn != nullptr; }
  };
  // A Last that calls f(), which must outlive the barrier.
  template <class F>
  static Last last_of(F& f) {
    return {[](void* context) { (*static_cast<F*>(context))(); }, &f};
  }

  // Returns once every thread of the team has called it; what each thread
  // wrote before it is visible to all after it. The last thread to arrive
  // runs `last` first (every thread passes the same), and what it writes
  // is visible to all after the barrier too.
  void barrier(Last last = {});

  // Items [begin, end) of n that thread `of` takes in a static split.
  std::pair<int64_t, int64_t> share_of(int64_t n, int of) const { return {n * of / size_, n * (of + 1) / size_}; }
  // This thread's.
  std::pair<int64_t, int64_t> share(int64_t n) const { return share_of(n, thread_); }

  // fn(i) for every i < n, each item to whichever thread asks first (a
  // thread slowed by other load takes fewer), then a barrier (with `last`).
  // Every thread calls it, the same calls in the same order.
  template <class Fn>
  void for_dynamic(int64_t n, Fn&& fn, Last last = {}) {
    std::atomic<int64_t>& next = shared_->next[dynamic_calls_ & 1];
    // The other counter's last loop ended with a barrier: nobody reads it
    // until the next call, which starts after this call's barrier.
    if (master()) shared_->next[(dynamic_calls_ + 1) & 1].store(0, std::memory_order_relaxed);
    ++dynamic_calls_;
    for (int64_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) fn(i);
    barrier(last);
  }

  // fn(i) for every i < n, then a barrier (with `last`): each thread first takes the
  // items of its own share (share(n)) in order, then, its share done, the
  // next items of the others' shares, as for_dynamic would. Items of a
  // thread's share that are neighbours in memory stay in one stream (the
  // decode GEMV: its prefetch runs on from one chunk of rows into the next,
  // where for_dynamic's items alternate between the threads), and no item
  // moves a counter's cache line between cores unless a thread is behind.
  // Every thread calls it, the same calls in the same order.
  template <class Fn>
  void for_owned(int64_t n, Fn&& fn, Last last = {}) {
    Shared::Counter* counters = shared_->owned + (owned_calls_ & 1) * size_;
    // This thread's counter of the other parity: its last loop ended with
    // a barrier, and the next starts after this loop's.
    shared_->owned[((owned_calls_ + 1) & 1) * size_ + thread_].taken.store(0, std::memory_order_relaxed);
    ++owned_calls_;
    for (int k = 0; k < size_; ++k) {
      const int owner = (thread_ + k) % size_;
      const auto [begin, end] = share_of(n, owner);
      std::atomic<int64_t>& taken = counters[owner].taken;
      for (int64_t i; (i = begin + taken.fetch_add(1, std::memory_order_relaxed)) < end;) fn(i);
    }
    barrier(last);
  }

  // The master's `value` on every thread (one barrier). Every thread calls it.
  template <class T>
  T* from_master(T* value) {
    void*& slot = shared_->broadcast[broadcast_calls_++ & 1];
    if (master()) slot = value;
    barrier();
    return static_cast<T*>(slot);
  }

  // What the threads of one team share.
  struct Shared {
    alignas(64) std::atomic<int> arrived{0};
    alignas(64) std::atomic<uint32_t> generation{0};
    std::atomic<int> sleepers{0};
    alignas(64) std::atomic<int64_t> next[2] = {0, 0};
    void* broadcast[2] = {nullptr, nullptr};
    // for_owned's items taken of each thread's share, for two calls in turn
    // (2 x the team's size, run_team's), a cache line each.
    struct alignas(64) Counter {
      std::atomic<int64_t> taken{0};
    };
    Counter* owned = nullptr;
    // When set, each wait at a barrier adds its nanoseconds here (profiling).
    std::atomic<int64_t>* wait_ns = nullptr;
  };

  Team(Shared& shared, int thread, int size) : shared_(&shared), thread_(thread), size_(size) {}

 private:
  Shared* shared_;
  int thread_, size_;
  uint32_t dynamic_calls_ = 0, broadcast_calls_ = 0, owned_calls_ = 0;
};

// Runs body(team) on each of `threads` threads (an OpenMP parallel region;
// 1, or a call from inside a parallel region: the calling thread alone).
// Nothing may throw out of body: a thread that left early would leave the
// others waiting at a barrier (std::terminate is called instead). With
// `wait_ns`, the threads add the time they wait at barriers to it.
void run_team(int threads, void (*body)(void* context, Team& team), void* context,
              std::atomic<int64_t>* wait_ns = nullptr);

template <class Body>
void run_team(int threads, Body&& body, std::atomic<int64_t>* wait_ns = nullptr) {
  using B = std::remove_reference_t<Body>;
  run_team(threads, [](void* context, Team& team) { (*static_cast<B*>(context))(team); }, &body, wait_ns);
}

}  // namespace ck
