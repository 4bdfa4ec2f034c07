// A one-line progress bar on stderr, drawn only when stderr is a terminal.
#pragma once
#include <cstdint>
#include <string>

namespace ck {

class ProgressBar {
 public:
  // `enabled` is further limited to a terminal on stderr.
  ProgressBar(std::string label, uint64_t total, bool enabled);
  void advance(uint64_t n);
  void finish();

 private:
  void draw();

  std::string label_;
  uint64_t total_, done_ = 0;
  int last_permille_ = -1;
  bool enabled_;
};

}  // namespace ck
