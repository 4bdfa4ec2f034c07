#include "runtime/memory.h"

#include <fstream>
#include <string>

namespace ck {

std::optional<size_t> mem_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  size_t value = 0;
  while (in >> key >> value) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return value * 1024;  // the kernel reports kB
  }
  return std::nullopt;
}

}  // namespace ck
