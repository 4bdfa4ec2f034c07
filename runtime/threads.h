// Thread-count helpers beyond the public set_threads / default_threads.
#pragma once

namespace ck {

// The most threads set_threads accepts: the CPUs this process may run on.
int max_threads();

// Applies default_threads() unless the thread count was already chosen
// (set_threads or OMP_NUM_THREADS). Sessions call it so that a library user
// gets one thread per physical core, not OpenMP's one per logical CPU.
void apply_default_threads();

}  // namespace ck
