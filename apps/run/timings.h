// ck-run's closing report on stderr: load time, prompt and generation speed,
// context used, and why generation stopped.
#pragma once
#include "apps/run/generate.h"

namespace ck::app {

void print_timings(const GenerationStats& stats, double load_seconds, int n_past, int n_ctx);

}  // namespace ck::app
