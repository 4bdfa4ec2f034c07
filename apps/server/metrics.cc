#include "apps/server/metrics.h"

#include <cstdio>

namespace ck::server {
namespace {

void metric(std::string& out, const char* name, const char* type, const char* help, double value) {
  char line[160];
  std::snprintf(line, sizeof line, "%.17g", value);
  out += std::string("# HELP ck_server_") + name + " " + help + "\n# TYPE ck_server_" + name + " " + type +
         "\nck_server_" + name + " " + line + "\n";
}

}  // namespace

std::string render_metrics(const SchedulerStats& s, const StatusCounts& responses) {
  std::string out;
  out += "# HELP ck_server_http_responses_total HTTP responses by status code.\n"
         "# TYPE ck_server_http_responses_total counter\n";
  for (const auto& [status, n] : responses) {
    out += "ck_server_http_responses_total{code=\"" + std::to_string(status) + "\"} " + std::to_string(n) + "\n";
  }
  metric(out, "requests_finished_total", "counter", "Completions that ended (stop or length).", s.finished);
  metric(out, "requests_cancelled_total", "counter", "Completions whose client left before the end.", s.cancelled);
  metric(out, "requests_failed_total", "counter", "Completions that failed after they were accepted.", s.failed);
  metric(out, "prompt_tokens_total", "counter", "Prompt tokens evaluated.", s.prompt_tokens);
  metric(out, "prompt_tokens_cached_total", "counter", "Prompt tokens reused from a slot's cache.", s.cached_prompt_tokens);
  metric(out, "tokens_generated_total", "counter", "Tokens generated.", s.generated_tokens);
  metric(out, "context_shifts_total", "counter", "Context shifts (--context-shift).", s.context_shifts);
  metric(out, "prefill_seconds_total", "counter", "Seconds of forward passes that evaluated prompt tokens.", s.prefill_seconds);
  metric(out, "decode_seconds_total", "counter", "Seconds of forward passes of generated tokens only.", s.decode_seconds);
  metric(out, "prompt_tokens_per_second", "gauge", "Prompt tokens over prefill seconds, since start.",
         s.prefill_seconds > 0 ? s.prompt_tokens / s.prefill_seconds : 0);
  metric(out, "decode_tokens_per_second", "gauge", "Generated tokens over decode seconds, since start (all slots).",
         s.decode_seconds > 0 ? s.generated_tokens / s.decode_seconds : 0);
  metric(out, "steps_total", "counter", "Forward passes (batches).", s.steps);
  metric(out, "requests_queued", "gauge", "Requests waiting for a slot.", s.queued);
  metric(out, "slots_busy", "gauge", "Slots generating or reading a prompt.", s.busy_slots);
  metric(out, "slots_total", "gauge", "Slots (-np).", s.n_slots);
  metric(out, "kv_cache_tokens", "gauge", "Positions held in the KV cache, all slots (idle ones keep their prefix).",
         static_cast<double>(s.kv_tokens));
  metric(out, "kv_cache_usage_ratio", "gauge", "kv_cache_tokens over the positions of all slots.",
         s.kv_capacity > 0 ? static_cast<double>(s.kv_tokens) / s.kv_capacity : 0);
  return out;
}

}  // namespace ck::server
