#include "loader/progress_bar.h"

#include <unistd.h>

#include <cstdio>

namespace ck {

ProgressBar::ProgressBar(std::string label, uint64_t total, bool enabled)
    : label_(std::move(label)), total_(total == 0 ? 1 : total), enabled_(enabled && ::isatty(STDERR_FILENO)) {}

void ProgressBar::advance(uint64_t n) {
  done_ = done_ + n > total_ ? total_ : done_ + n;
  draw();
}

void ProgressBar::draw() {
  if (!enabled_) return;
  const int permille = static_cast<int>(done_ * 1000 / total_);
  if (permille == last_permille_) return;  // redraw only when the text changes
  last_permille_ = permille;
  constexpr int kWidth = 40;
  const int filled = permille * kWidth / 1000;
  std::fprintf(stderr, "\r%s [%.*s%*s] %5.1f%% %.1f/%.1f MB", label_.c_str(), filled,
               "########################################", kWidth - filled, "", permille / 10.0, done_ / 1e6,
               total_ / 1e6);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (!enabled_) return;
  done_ = total_;
  last_permille_ = -1;
  draw();
  std::fputc('\n', stderr);
}

}  // namespace ck
