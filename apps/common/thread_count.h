// -t (and -tb), with llama.cpp's tolerance: more threads than CPUs is allowed
// with a warning (oversubscribing only slows the run down), 0 = one thread per
// physical core.
#pragma once
#include <string_view>

namespace ck::app {

// The thread count `n` stands for: 0 = default_threads(). Throws naming
// `flag` ("-t") for a negative count or one above kMaxThreads (512); warns on
// stderr ("APP: warning: ...") when it is above the CPUs available.
int resolve_thread_count(int n, std::string_view flag, std::string_view app_name);

// -tb: while a prompt is evaluated the kernels use `prefill` threads, then
// `generation` threads again. A no-op when both are the same.
class PrefillThreads {
 public:
  PrefillThreads(int prefill, int generation);
  ~PrefillThreads();
  PrefillThreads(const PrefillThreads&) = delete;
  PrefillThreads& operator=(const PrefillThreads&) = delete;

 private:
  int prefill_, generation_;
};

}  // namespace ck::app
