// The HTTP endpoints of ck-server on a cpp-httplib server: the OpenAI API
// (/v1/chat/completions, /v1/completions, /v1/models), /health, /metrics,
// the chat page (/), API-key checks, and errors as OpenAI's error objects.
#pragma once
#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>

#include "apps/server/metrics.h"
#include "apps/server/request_parse.h"
#include "apps/server/scheduler.h"
#include "runtime/model.h"

namespace ck::server {

struct ApiOptions {
  std::string api_key;       // empty = no key needed
  size_t max_body = 1 << 20; // bytes of a request body
  int n_ctx = 0;             // positions per slot: a longer prompt is refused
};

class Api {
 public:
  Api(const Model& model, Scheduler& scheduler, ParseContext parse, ApiOptions opts);
  void install(httplib::Server& http);
  // /health answers 503 from now on (a load balancer stops sending requests).
  void set_draining() { draining_ = true; }
  // Returns once every accepted completion's response has been written to
  // the end (or its client left): after the scheduler drained, the HTTP
  // threads may still be sending the last events.
  void wait_responses();

 private:
  void completion(Endpoint endpoint, const httplib::Request& req, httplib::Response& res);
  std::vector<int32_t> tokenize(const CompletionRequest& r) const;
  void count(int status);

  const Model& model_;
  Scheduler& scheduler_;
  const ParseContext parse_;
  const ApiOptions opts_;
  const std::time_t started_;
  std::atomic<bool> draining_{false};
  std::mutex counts_mutex_;
  StatusCounts responses_;
  std::mutex inflight_mutex_;
  std::condition_variable inflight_done_;
  int inflight_ = 0;  // completions accepted whose response has not ended
};

}  // namespace ck::server
