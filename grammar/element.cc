#include "grammar/grammar.h"

namespace ck::grammar {

bool Element::matches(uint32_t cp) const {
  bool in = false;
  for (const CharRange& r : ranges) in = in || (cp >= r.lo && cp <= r.hi);
  return in != negated;
}

bool Element::matches_any(uint32_t lo, uint32_t hi) const {
  if (!negated) {
    for (const CharRange& r : ranges) {
      if (r.lo <= hi && lo <= r.hi) return true;
    }
    return false;
  }
  // Negated: some code point of [lo, hi] lies outside every range. Walk up
  // from lo past the ranges that cover it.
  uint32_t cp = lo;
  bool moved = true;
  while (moved) {
    moved = false;
    for (const CharRange& r : ranges) {
      if (cp >= r.lo && cp <= r.hi) {
        if (r.hi >= hi) return false;
        cp = r.hi + 1;
        moved = true;
      }
    }
  }
  return true;
}

}  // namespace ck::grammar
