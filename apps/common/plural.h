// "1 thread", "2 threads": counts in messages read as English.
#pragma once
#include <string>
#include <string_view>

namespace ck::app {

inline std::string count_of(long long n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

}  // namespace ck::app
