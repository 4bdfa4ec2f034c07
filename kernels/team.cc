#include "kernels/team.h"

#include <omp.h>

#include <chrono>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CK_SPIN_HINT() _mm_pause()
#else
#define CK_SPIN_HINT() ((void)0)
#endif

namespace ck {
namespace {

// How a waiting thread spends its wait: spin-loop hints for up to kSpinFor
// (the common case: the other threads finishing their shares of the same
// operation, 10-50 us apart in decode), then sleep in the kernel. Yielding
// the CPU instead of sleeping was worse on a busy machine: a yield to a busy
// process there costs that process's whole time slice, at every barrier
// (SmolLM2 decode beside two busy loops: 1.4 t/s yielding, 27-63 spinning
// 50 us then sleeping; docs/threading.md).
constexpr auto kSpinFor = std::chrono::microseconds(50);

void wait_for_change(Team::Shared& s, uint32_t generation) {
  auto changed = [&] { return s.generation.load(std::memory_order_acquire) != generation; };
  const auto start = std::chrono::steady_clock::now();
  do {
    for (int i = 0; i < 32; ++i) {
      if (changed()) return;
      CK_SPIN_HINT();
    }
  } while (std::chrono::steady_clock::now() - start < kSpinFor);
  // The releaser reads `sleepers` after publishing the new generation (both
  // sequentially consistent), so either it sees us and notifies, or our
  // wait sees the new generation and returns at once.
  s.sleepers.fetch_add(1, std::memory_order_seq_cst);
  while (s.generation.load(std::memory_order_seq_cst) == generation) s.generation.wait(generation);
  s.sleepers.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace

void Team::barrier(Last last) {
  if (size_ == 1) {
    if (last) last.fn(last.context);
    return;
  }
  Shared& s = *shared_;
  // Cannot change before this thread arrives, and this thread saw at least
  // the value that released it from the previous barrier.
  const uint32_t generation = s.generation.load(std::memory_order_acquire);
  if (s.arrived.fetch_add(1, std::memory_order_acq_rel) == size_ - 1) {
    // Every other thread's arrival (a release on `arrived`) happened before
    // this acquire, so `last` sees what they wrote; the generation's store
    // publishes what it writes.
    if (last) last.fn(last.context);
    s.arrived.store(0, std::memory_order_relaxed);
    s.generation.store(generation + 1, std::memory_order_seq_cst);
    if (s.sleepers.load(std::memory_order_seq_cst) > 0) s.generation.notify_all();
    return;
  }
  if (s.wait_ns == nullptr) {
    wait_for_change(s, generation);
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  wait_for_change(s, generation);
  s.wait_ns->fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
                           .count(),
                       std::memory_order_relaxed);
}

void run_team(int threads, void (*body)(void* context, Team& team), void* context,
              std::atomic<int64_t>* wait_ns) {
  Team::Shared shared;
  shared.wait_ns = wait_ns;
  if (threads <= 1 || omp_in_parallel()) {
    Team::Shared::Counter owned[2];
    shared.owned = owned;
    Team team(shared, 0, 1);
    body(context, team);
    return;
  }
  // OpenMP may give fewer threads than asked, never more.
  std::vector<Team::Shared::Counter> owned(2 * static_cast<size_t>(threads));
  shared.owned = owned.data();
#pragma omp parallel num_threads(threads)
  {
    Team team(shared, omp_get_thread_num(), omp_get_num_threads());
    body(context, team);
  }
}

}  // namespace ck
