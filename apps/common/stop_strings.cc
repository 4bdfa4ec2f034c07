#include "apps/common/stop_strings.h"

#include <algorithm>

namespace ck::app {

StopStrings::StopStrings(std::vector<std::string> stops) : stops_(std::move(stops)) {
  std::erase_if(stops_, [](const std::string& s) { return s.empty(); });
  for (const std::string& s : stops_) longest_ = std::max(longest_, s.size());
}

bool StopStrings::push(std::string_view text) {
  if (stops_.empty()) return false;
  // A stop string can begin in the earlier text and end in this token's.
  const size_t search_from = tail_.size() >= longest_ ? tail_.size() - longest_ + 1 : 0;
  tail_ += text;
  bool found = false;
  for (const std::string& s : stops_) found = found || tail_.find(s, search_from) != std::string::npos;
  if (tail_.size() > longest_) tail_.erase(0, tail_.size() - longest_);
  return found;
}

}  // namespace ck::app
