// How OpenMP's idle threads wait, chosen before the runtime starts.
#pragma once

namespace ck::app {

// libgomp's workers spin at every barrier before they sleep. When the
// machine is busy (a build beside us) a spinning thread holds a core while
// the thread it waits for is preempted, and decode collapsed by 10-20x
// (docs/threading.md). So, unless the user chose (OMP_WAIT_POLICY or
// GOMP_SPINCOUNT set), this sets OMP_WAIT_POLICY=passive and re-executes the
// program once with the same arguments: libgomp reads its environment when
// it loads, before any code of ours runs. Returns only if nothing needed
// doing or the re-execution failed (then libgomp's default stays).
// Called by a static initializer of every app (app_main.cc).
void choose_omp_wait_policy();

}  // namespace ck::app
