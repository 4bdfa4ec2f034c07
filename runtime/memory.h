// How much memory the system can still give us.
#pragma once
#include <cstddef>
#include <optional>

namespace ck {

// MemAvailable from /proc/meminfo in bytes; nullopt where it cannot be read.
std::optional<size_t> mem_available_bytes();

}  // namespace ck
