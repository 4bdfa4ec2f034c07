// GET /metrics: Prometheus's text format (version 0.0.4), names prefixed
// ck_server_ (llama-server's are llamacpp:; these are ours).
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "apps/server/scheduler.h"

namespace ck::server {

// HTTP responses by status code, counted by the routes.
using StatusCounts = std::map<int, uint64_t>;

std::string render_metrics(const SchedulerStats& s, const StatusCounts& responses);

}  // namespace ck::server
