#include "apps/common/load_progress.h"

namespace ck::app {

std::function<void(std::string_view, uint64_t, uint64_t)> LoadProgress::callback() {
  return [this](std::string_view step, uint64_t done, uint64_t total) { report(step, done, total); };
}

void LoadProgress::report(std::string_view step, uint64_t done, uint64_t total) {
  const auto now = std::chrono::steady_clock::now();
  if (step != step_) {
    bar_.reset();
    step_ = step;
    started_ = now;
  }
  if (done >= total) {
    bar_.reset();
    return;
  }
  constexpr auto kQuiet = std::chrono::milliseconds(500);
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  // Redrawn ten times a second: a report comes per 2 MiB read.
  constexpr auto kRedraw = std::chrono::milliseconds(100);
  if (!bar_ && now - started_ < kQuiet) return;
  if (bar_ && now - drawn_ < kRedraw) return;
  if (!bar_) bar_.emplace(step_ + " the model", static_cast<int64_t>((total + kMiB - 1) / kMiB));
  bar_->update(static_cast<int64_t>(done / kMiB), "MiB");
  drawn_ = now;
}

}  // namespace ck::app
