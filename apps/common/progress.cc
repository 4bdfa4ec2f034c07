#include "apps/common/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ck::app {

std::string format_duration(double seconds) {
  const int64_t s = std::max<int64_t>(0, std::llround(seconds));
  char buf[32];
  if (s < 60) {
    std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(s));
  } else if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(s / 60), static_cast<long long>(s % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  }
  return buf;
}

ProgressBar::ProgressBar(std::string label, int64_t total)
    : ProgressBar(std::move(label), total, isatty(STDERR_FILENO) != 0) {}

ProgressBar::ProgressBar(std::string label, int64_t total, bool enabled)
    : label_(std::move(label)), total_(std::max<int64_t>(total, 1)), enabled_(enabled),
      start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() { clear(); }

void ProgressBar::update(int64_t done, std::string_view extra) {
  if (!enabled_) return;
  constexpr int kWidth = 30;
  const double frac = std::clamp(static_cast<double>(done) / static_cast<double>(total_), 0.0, 1.0);
  const int filled = static_cast<int>(frac * kWidth);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string bar(filled, '#');
  bar.resize(kWidth, ' ');
  std::string eta = done > 0 ? format_duration(elapsed / static_cast<double>(done) * static_cast<double>(total_ - done))
                             : std::string("?");
  std::fprintf(stderr, "\r\033[K%s [%s] %lld/%lld%s%.*s, %s elapsed, ETA %s", label_.c_str(), bar.c_str(),
               static_cast<long long>(done), static_cast<long long>(total_), extra.empty() ? "" : " ",
               static_cast<int>(extra.size()), extra.data(), format_duration(elapsed).c_str(), eta.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::clear() {
  if (!drawn_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace ck::app
