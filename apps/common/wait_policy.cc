#include "apps/common/wait_policy.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace ck::app {

void choose_omp_wait_policy() {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr) return;
  // The original arguments (main has not run yet): NUL-separated.
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.eof() || cmdline.empty()) return;
  std::vector<char*> argv;
  for (size_t i = 0; i < cmdline.size(); i += std::char_traits<char>::length(cmdline.c_str() + i) + 1) {
    argv.push_back(const_cast<char*>(cmdline.c_str() + i));
  }
  argv.push_back(nullptr);
  if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  execv("/proc/self/exe", argv.data());
}

}  // namespace ck::app
