// -r/--reverse-prompt: generation stops once the generated text contains one
// of the strings (the text up to and including it is shown), as llama.cpp's
// reverse prompts stop a completion and hand the chat back to the user.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ck::app {

class StopStrings {
 public:
  explicit StopStrings(std::vector<std::string> stops);
  // Adds a generated token's text; true once a stop string has appeared.
  bool push(std::string_view text);
  bool empty() const { return stops_.empty(); }
  void reset() { tail_.clear(); }

 private:
  std::vector<std::string> stops_;
  size_t longest_ = 0;
  std::string tail_;  // the end of the text, long enough to hold any stop string
};

}  // namespace ck::app
