#include "apps/server/stop_matcher.h"

#include <algorithm>
#include <utility>

namespace ck::server {

StopMatcher::StopMatcher(std::vector<std::string> stops) : stops_(std::move(stops)) {
  std::erase_if(stops_, [](const std::string& s) { return s.empty(); });
}

std::string StopMatcher::push(std::string_view text) {
  if (stopped_) return {};
  held_ += text;
  size_t first = std::string::npos;
  for (const std::string& s : stops_) first = std::min(first, held_.find(s));
  if (first != std::string::npos) {
    stopped_ = true;
    std::string out = held_.substr(0, first);
    held_.clear();
    return out;
  }
  // Keep the longest end of the text that begins some stop string.
  size_t keep = 0;
  for (const std::string& s : stops_) {
    for (size_t n = std::min(s.size() - 1, held_.size()); n > keep; --n) {
      if (held_.compare(held_.size() - n, n, s, 0, n) == 0) {
        keep = n;
        break;
      }
    }
  }
  std::string out = held_.substr(0, held_.size() - keep);
  held_.erase(0, held_.size() - keep);
  return out;
}

std::string StopMatcher::flush() {
  if (stopped_) return {};
  return std::exchange(held_, {});
}

}  // namespace ck::server
