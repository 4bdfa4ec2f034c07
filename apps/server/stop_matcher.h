// OpenAI's `stop`: generation ends where the text first contains one of the
// strings, and the string itself is not returned. While the end of the
// text could still begin a stop string, that part is held back, so a
// stream never shows text that a stop string then takes back.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ck::server {

class StopMatcher {
 public:
  explicit StopMatcher(std::vector<std::string> stops = {});

  // Adds generated text; returns the text that can be shown now. After a
  // stop string appears, stopped() is true and the text before it has been
  // returned (what follows it is dropped).
  std::string push(std::string_view text);
  // The text held back (generation ended without a stop string).
  std::string flush();
  bool stopped() const { return stopped_; }

 private:
  std::vector<std::string> stops_;
  std::string held_;
  bool stopped_ = false;
};

}  // namespace ck::server
