#include "grammar/int_range.h"

#include <algorithm>
#include <vector>

namespace ck::grammar {
namespace {

using Magnitude = uint64_t;

std::string digit_class(char lo, char hi) {
  return lo == hi ? std::string("\"") + lo + "\"" : std::string("[") + lo + "-" + hi + "]";
}

std::string any_digits(size_t n) { return n == 0 ? "" : n == 1 ? "[0-9]" : "[0-9]{" + std::to_string(n) + "}"; }

std::string join(const std::vector<std::string>& alternatives) {
  if (alternatives.size() == 1) return alternatives[0];
  std::string out;
  for (const std::string& a : alternatives) out += (out.empty() ? "(" : " | ") + a;
  return out + ")";
}

std::string then(const std::string& a, const std::string& b) { return b.empty() ? a : a + " " + b; }

// The digit strings of one length from `a` to `b` (a <= b, leading zeros allowed).
std::string same_length(const std::string& a, const std::string& b) {
  if (a.empty()) return "";
  const size_t n = a.size() - 1;
  const std::string a_rest = a.substr(1), b_rest = b.substr(1);
  if (a[0] == b[0]) return then(digit_class(a[0], a[0]), same_length(a_rest, b_rest));
  const bool a_low = a_rest == std::string(n, '0');  // a's first digit can take any tail
  const bool b_high = b_rest == std::string(n, '9');
  std::vector<std::string> alts;
  if (!a_low) alts.push_back(then(digit_class(a[0], a[0]), same_length(a_rest, std::string(n, '9'))));
  const char mid_lo = a_low ? a[0] : static_cast<char>(a[0] + 1);
  const char mid_hi = b_high ? b[0] : static_cast<char>(b[0] - 1);
  if (mid_lo <= mid_hi) alts.push_back(then(digit_class(mid_lo, mid_hi), any_digits(n)));
  if (!b_high) alts.push_back(then(digit_class(b[0], b[0]), same_length(std::string(n, '0'), b_rest)));
  return join(alts);
}

Magnitude power_of_ten(size_t digits) {
  Magnitude p = 1;
  for (size_t i = 0; i < digits; ++i) p *= 10;
  return p;
}

// The magnitudes lo..hi (no hi: up to kMaxIntDigits digits, or lo's own length when longer).
std::vector<std::string> magnitudes(Magnitude lo, std::optional<Magnitude> hi) {
  const size_t lo_len = std::to_string(lo).size();
  const size_t hi_len = hi ? std::to_string(*hi).size() : std::max<size_t>(lo_len, kMaxIntDigits);
  std::vector<std::string> alts;
  for (size_t len = lo_len; len <= hi_len; ++len) {
    const Magnitude first = len == 1 ? 0 : power_of_ten(len - 1);
    // 20 digits would overflow: uint64 has at most 20, and int64's bounds 19.
    const Magnitude last = len >= 20 ? ~Magnitude{0} : power_of_ten(len) - 1;
    const Magnitude a = std::max(lo, first);
    const Magnitude b = hi ? std::min(*hi, last) : last;
    if (a > b) continue;
    alts.push_back(same_length(std::to_string(a), std::to_string(b)));
  }
  return alts;
}

Magnitude magnitude(int64_t v) { return v < 0 ? Magnitude(-(v + 1)) + 1 : Magnitude(v); }

}  // namespace

std::string int_range_gbnf(std::optional<int64_t> min, std::optional<int64_t> max) {
  std::vector<std::string> alts;
  if (!min || *min < 0) {  // the negative part, by magnitude: -1 .. -|min|
    const Magnitude lo = max && *max < 0 ? magnitude(*max) : 1;
    const std::optional<Magnitude> hi = min ? std::optional<Magnitude>(magnitude(*min)) : std::nullopt;
    alts.push_back("\"-\" " + join(magnitudes(lo, hi)));
  }
  if (!max || *max >= 0) {
    const Magnitude lo = min && *min > 0 ? Magnitude(*min) : 0;
    const std::optional<Magnitude> hi = max ? std::optional<Magnitude>(Magnitude(*max)) : std::nullopt;
    for (std::string& a : magnitudes(lo, hi)) alts.push_back(std::move(a));
  }
  return join(alts);
}

}  // namespace ck::grammar
