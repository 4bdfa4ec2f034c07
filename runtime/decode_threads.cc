#include "runtime/decode_threads.h"

#include <algorithm>

namespace ck {

void DecodeThreads::reset(int most) {
  most_ = most;
  time_[0] = time_[1] = 0;
  passes_ = 0;
  gap_ = kFirstGap;
  next_trial_ = kFirstGap;
}

int DecodeThreads::faster() const { return time_[0] > 0 && time_[1] > 0 && time_[1] < time_[0] ? 1 : 0; }

DecodeThreads::Pick DecodeThreads::next(int most) {
  std::lock_guard lock(mutex_);
  if (fixed_ > 0) return {std::min(fixed_, most), false};
  if (most <= 1) return {1, false};
  if (most != most_) reset(most);
  ++passes_;
  const int use = faster();
  if (passes_ >= next_trial_) return {size(most, 1 - use), true};
  return {size(most, use), false};
}

void DecodeThreads::record(int most, Pick pick, int64_t ns) {
  std::lock_guard lock(mutex_);
  if (fixed_ > 0 || most <= 1 || most != most_) return;
  const int which = pick.threads == most ? 0 : 1;
  const int before = faster();
  // A trial replaces its size's time, which may be many passes old (the
  // context has grown; the load has changed). A pass of the faster size
  // moves it a quarter of the way to at most twice what it was: one pass
  // the scheduler delayed (a quiet machine has some) moves it by a quarter
  // at most, while other load that slows every pass moves the choice within
  // four passes.
  double& t = time_[which];
  const double sample = static_cast<double>(ns);
  t = pick.trial || t == 0 ? sample : t + (std::min(sample, 2 * t) - t) / 4;
  if (!pick.trial) return;
  const int after = faster();
  gap_ = after == before ? std::min(2 * gap_, kMaxGap[after]) : kMinGap[after];
  next_trial_ = passes_ + gap_;
}

void DecodeThreads::fix(int threads) {
  std::lock_guard lock(mutex_);
  fixed_ = std::max(0, threads);
  most_ = 0;  // adaptive again: from scratch
}

DecodeThreads& decode_threads() {
  static DecodeThreads instance;
  return instance;
}

}  // namespace ck
