// One request in flight, shared by the HTTP thread that answers it and the
// scheduler thread that generates it: the scheduler appends text and ends
// it, the HTTP side waits for news and may cancel (the client left).
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "apps/server/generation_request.h"

namespace ck::server {

// One generated token's probability and its most likely alternatives (logprobs).
struct TokenProbs {
  std::string text;
  float logprob = 0;
  std::vector<std::pair<std::string, float>> top;  // text, logprob
};

struct Usage {
  int prompt_tokens = 0;
  int cached_tokens = 0;  // of the prompt, reused from the slot's cache
  int completion_tokens = 0;
};

// What the HTTP side takes out at once: the text since the last take, and
// the end when it came.
struct TaskNews {
  std::string text;
  std::vector<TokenProbs> probs;
  bool finished = false;
  FinishReason reason = FinishReason::Stop;
  std::string error;  // a failure after the request was accepted (finished too)
  Usage usage;
};

class Task {
 public:
  explicit Task(GenerationRequest request) : request_(std::move(request)) {}
  const GenerationRequest& request() const { return request_; }

  // HTTP side. Waits until there is news or `timeout` passed, and takes it.
  TaskNews wait(std::chrono::milliseconds timeout);
  void cancel() { cancelled_ = true; }

  // Scheduler side.
  bool cancelled() const { return cancelled_; }
  void append(const std::string& text, std::vector<TokenProbs> probs);
  void finish(FinishReason reason, const Usage& usage);
  void fail(const std::string& error);

 private:
  const GenerationRequest request_;
  std::atomic<bool> cancelled_{false};
  std::mutex mutex_;
  std::condition_variable news_;
  TaskNews pending_;  // guarded by mutex_
  bool handed_end_ = false;
};

}  // namespace ck::server
