// How many threads a decode pass (one token) runs on: all it may use,
// unless half of them have been faster lately.
//
// Why: decode passes ~150 barriers per token. When another process keeps a
// core busy, every barrier waits for whichever thread the scheduler has
// parked, and 2 threads decode slower than 1 (SmolLM2 Q4_1 beside one busy
// loop on a 2-core Xeon: 224 t/s quiet, 32 beside it; docs/threading.md).
// The team size is chosen by measurement: the pass times of both sizes are
// kept (a moving average), the faster is used, and the other is tried now
// and then, rarely while all threads are the faster (a quiet machine), more
// often while fewer are (to come back soon once the other load is gone).
// A load that appears slows the current size at once, so the switch needs
// no trial. Decode's results do not depend on the team size (forward.cc
// plans the split of the keys for all the threads), so the choice changes
// speed only.
#pragma once
#include <cstdint>
#include <mutex>

namespace ck {

class DecodeThreads {
 public:
  // One decode pass's team size, and whether it is a trial of the size
  // that is not the faster one now.
  struct Pick {
    int threads = 1;
    bool trial = false;
  };

  // The team for the next pass of at most `most` threads.
  Pick next(int most);
  // That pass (`most` as given to next) took `ns` nanoseconds.
  void record(int most, Pick pick, int64_t ns);

  // 0: adaptive (the default). Otherwise every pass on min(threads, most):
  // a fixed team for benchmarks of one thread count (kMaxThreads: all), or
  // a forced one for tests.
  void fix(int threads);

  // Passes before the first trial (of half the threads). Then passes
  // between two trials while all threads are the faster [0] and while half
  // are [1]: the least (after a trial that won: the choice changed), and
  // the most (a trial that lost doubles the gap, up to that).
  static constexpr int64_t kFirstGap = 8;
  static constexpr int64_t kMinGap[2] = {64, 8}, kMaxGap[2] = {512, 64};

 private:
  static int size(int most, int which) { return which == 0 ? most : (most + 1) / 2; }
  int faster() const;
  void reset(int most);

  std::mutex mutex_;
  int fixed_ = 0;
  int most_ = 0;
  // Moving averages of the pass time (ns) of all threads [0] and of half
  // of them [1]; 0 = not measured yet.
  double time_[2] = {0, 0};
  int64_t passes_ = 0, next_trial_ = 0, gap_ = kFirstGap;
};

// The process's: the load that decides is the machine's, for every session.
DecodeThreads& decode_threads();

}  // namespace ck
