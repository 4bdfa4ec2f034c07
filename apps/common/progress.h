// A one-line progress bar with ETA on stderr, for the long-running apps
// (ck-perplexity over a whole corpus, ck-bench). Drawn only when stderr is a
// terminal, so logs and pipes never fill with carriage returns.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace ck::app {

// "42s", "3:07", "1:02:03": compact enough for a status line.
std::string format_duration(double seconds);

class ProgressBar {
 public:
  // `enabled` defaults to "stderr is a terminal".
  ProgressBar(std::string label, int64_t total);
  ProgressBar(std::string label, int64_t total, bool enabled);
  ~ProgressBar();

  // Redraws the line: label [#####     ] done/total extra, elapsed, ETA.
  // The ETA extrapolates the average time per unit done so far.
  void update(int64_t done, std::string_view extra = {});
  // Erases the line so other terminal output can be printed; the next
  // update() draws it again.
  void clear();
  bool enabled() const { return enabled_; }

  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

 private:
  std::string label_;
  int64_t total_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace ck::app
