#include "apps/run/timings.h"

#include <cstdio>
#include <string>

#include "apps/common/plural.h"

namespace ck::app {
namespace {

double per_second(int tokens, double seconds) { return seconds > 0 ? tokens / seconds : 0.0; }

const char* stop_text(StopReason r) {
  switch (r) {
    case StopReason::EndOfGeneration: return "end-of-generation token";
    case StopReason::TokenLimit: return "-n limit";
    case StopReason::ContextFull: return "context full (use a larger -c, or --context-shift)";
    case StopReason::Interrupted: return "interrupted";
    case StopReason::StopString: return "reverse prompt (-r)";
  }
  return "";
}

}  // namespace

void print_timings(const GenerationStats& s, double load_seconds, int n_past, int n_ctx) {
  std::fprintf(stderr, "\n\nck-run: load       %8.2f ms\n", load_seconds * 1e3);
  if (s.prompt_tokens < s.prompt_total) {
    // Stopped during the prompt: the tokens of the batches that finished, out
    // of all, and the time spent until the stop.
    std::fprintf(stderr, "ck-run: prompt     %8.2f ms / %5d of %d tokens evaluated\n", s.prompt_seconds * 1e3,
                 s.prompt_tokens, s.prompt_total);
  } else {
    std::fprintf(stderr, "ck-run: prompt     %8.2f ms / %5d tokens (%8.2f tokens/s)\n", s.prompt_seconds * 1e3,
                 s.prompt_tokens, per_second(s.prompt_tokens, s.prompt_seconds));
  }
  std::fprintf(stderr, "ck-run: generation %8.2f ms / %5d tokens (%8.2f tokens/s)\n", s.generation_seconds * 1e3,
               s.generated_tokens, per_second(s.generated_tokens, s.generation_seconds));
  std::string shifts;
  if (s.context_shifts > 0) {
    shifts = "; " + count_of(s.context_shifts, "context shift") + " (" +
             count_of(s.reevaluated_tokens, "token") + " evaluated again)";
  }
  std::fprintf(stderr, "ck-run: context    %d / %d tokens used%s; stopped: %s%s\n", n_past, n_ctx, shifts.c_str(),
               stop_text(s.stop), s.prompt_tokens < s.prompt_total ? " during the prompt" : "");
}

}  // namespace ck::app
