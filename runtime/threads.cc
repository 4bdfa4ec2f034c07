// set_threads / default_threads (declared in session.h).
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "runtime/session.h"
#include "runtime/threads.h"

namespace ck {
namespace {

std::atomic<bool> g_threads_chosen{false};

int read_int(const std::filesystem::path& p) {
  std::ifstream in(p);
  int v = -1;
  in >> v;
  return in ? v : -1;
}

// Distinct (package, core) pairs in sysfs: SMT siblings share a core and
// only slow each other down on memory-bound GEMV.
int physical_cores() {
  std::set<std::pair<int, int>> cores;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/sys/devices/system/cpu", ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("cpu", 0) != 0 || name.size() < 4 || name.find_first_not_of("0123456789", 3) != std::string::npos) {
      continue;
    }
    const int pkg = read_int(e.path() / "topology/physical_package_id");
    const int core = read_int(e.path() / "topology/core_id");
    if (pkg >= 0 && core >= 0) cores.emplace(pkg, core);
  }
  return static_cast<int>(cores.size());
}

}  // namespace

int max_threads() { return omp_get_num_procs(); }

int default_threads() {
  const int cores = physical_cores();
  return cores > 0 ? std::min(cores, max_threads()) : max_threads();
}

void set_threads(int n) {
  if (n < 0 || n > kMaxThreads) {
    throw std::runtime_error("thread count " + std::to_string(n) + " out of range: 1 to " +
                             std::to_string(kMaxThreads) + " threads (0 = default, " +
                             std::to_string(default_threads()) + ")");
  }
  omp_set_num_threads(n == 0 ? default_threads() : n);
  g_threads_chosen = true;
}

void apply_default_threads() {
  // OMP_NUM_THREADS, like an explicit set_threads(), is the user's choice.
  const char* env = std::getenv("OMP_NUM_THREADS");
  if (!g_threads_chosen && !(env && *env)) set_threads(0);
}

}  // namespace ck
