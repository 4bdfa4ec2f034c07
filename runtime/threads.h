// Thread-count helpers beyond the public set_threads / default_threads.
#pragma once

namespace ck {

// The CPUs this process may run on. More threads than that are allowed (as in
// llama.cpp; the apps warn), up to kMaxThreads.
int max_threads();

// The most threads set_threads accepts (llama.cpp's GGML_MAX_N_THREADS).
inline constexpr int kMaxThreads = 512;

// Applies default_threads() unless the thread count was already chosen
// (set_threads or OMP_NUM_THREADS). Sessions call it so that a library user
// gets one thread per physical core, not OpenMP's one per logical CPU.
void apply_default_threads();

}  // namespace ck
