// Which Highway target the kernels (gemv.h) run on, and a way to force a
// lower one: tests run every compiled target in turn, benchmarks compare them.
// The environment variable CK_SIMD_TARGET (e.g. "AVX2") forces one at the
// first kernel call of the process.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ck {

// Targets compiled into this binary and supported by this CPU, best first
// ("AVX3", "AVX2", "SSE4", ...).
std::vector<std::string> available_simd_targets();

// The target a kernel call would run on now.
std::string active_simd_target();

// Restricts dispatch to the named target (one of available_simd_targets());
// an empty name restores the best one. Throws std::runtime_error otherwise.
// Not thread-safe: call it while no kernel runs.
void force_simd_target(std::string_view name);

// Applies CK_SIMD_TARGET once per process (called by the kernel entry points).
void apply_simd_target_from_env();

}  // namespace ck
