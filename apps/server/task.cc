#include "apps/server/task.h"

namespace ck::server {

const char* finish_reason_name(FinishReason r) { return r == FinishReason::Length ? "length" : "stop"; }

TaskNews Task::wait(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  news_.wait_for(lock, timeout, [&] { return !pending_.text.empty() || (pending_.finished && !handed_end_); });
  TaskNews out = std::move(pending_);
  pending_ = {};
  if (out.finished) {
    handed_end_ = true;
    pending_.finished = true;  // later waits keep saying so
    pending_.reason = out.reason;
    pending_.usage = out.usage;
    pending_.error = out.error;
  }
  return out;
}

void Task::append(const std::string& text, std::vector<TokenProbs> probs) {
  {
    std::lock_guard lock(mutex_);
    pending_.text += text;
    for (TokenProbs& p : probs) pending_.probs.push_back(std::move(p));
  }
  news_.notify_all();
}

void Task::finish(FinishReason reason, const Usage& usage) {
  {
    std::lock_guard lock(mutex_);
    pending_.finished = true;
    pending_.reason = reason;
    pending_.usage = usage;
  }
  news_.notify_all();
}

void Task::fail(const std::string& error) {
  {
    std::lock_guard lock(mutex_);
    pending_.finished = true;
    pending_.error = error;
  }
  news_.notify_all();
}

}  // namespace ck::server
