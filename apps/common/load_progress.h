// The progress bar of a model load (LoadOptions::progress): the first run's
// conversion of a GGUF and the weights' first read from disk, each of which
// takes seconds to minutes for a large model.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "apps/common/progress.h"

namespace ck::app {

class LoadProgress {
 public:
  // For LoadOptions::progress; `this` must outlive the load.
  std::function<void(std::string_view step, uint64_t done, uint64_t total)> callback();

  // Draws a step's bar, in MiB, once the step has run for half a second:
  // a load from the page cache takes milliseconds and draws nothing. The
  // bar is erased when the step ends. Not thread-safe: one load at a time.
  void report(std::string_view step, uint64_t done, uint64_t total);

 private:
  std::string step_;
  std::chrono::steady_clock::time_point started_, drawn_;
  std::optional<ProgressBar> bar_;
};

}  // namespace ck::app
