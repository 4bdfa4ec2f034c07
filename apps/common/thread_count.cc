#include "apps/common/thread_count.h"

#include <cstdio>
#include <stdexcept>
#include <string>

#include "apps/common/plural.h"
#include "runtime/session.h"
#include "runtime/threads.h"

namespace ck::app {

int resolve_thread_count(int n, std::string_view flag, std::string_view app_name) {
  const std::string f(flag);
  if (n < 0 || n > kMaxThreads) {
    throw std::runtime_error(f + " must be between 1 and " + std::to_string(kMaxThreads) +
                             " (0 = one per physical core), got " + std::to_string(n));
  }
  if (n == 0) return default_threads();
  if (n > max_threads()) {
    std::fprintf(stderr, "%.*s: warning: %s %d is more than the %s this process may use; running %s anyway\n",
                 static_cast<int>(app_name.size()), app_name.data(), f.c_str(), n,
                 count_of(max_threads(), "CPU").c_str(), count_of(n, "thread").c_str());
  }
  return n;
}

PrefillThreads::PrefillThreads(int prefill, int generation) : prefill_(prefill), generation_(generation) {
  if (prefill_ != generation_) set_threads(prefill_);
}

PrefillThreads::~PrefillThreads() {
  if (prefill_ != generation_) set_threads(generation_);
}

}  // namespace ck::app
