// The decimal integers between two bounds as a GBNF expression, for JSON
// schema's minimum / maximum on integers: written without leading zeros or
// "-0", as JSON writes them, and split by digit count and leading digit
// (100..349 = "1" [0-9]{2} | [2] [0-9]{2} | "3" [0-4] [0-9]).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace ck::grammar {

// An unbounded side reaches numbers of kMaxIntDigits digits, as the
// schema's unbounded "integer" does.
inline constexpr int kMaxIntDigits = 16;

// `min` <= `max` where both are given (the caller checks).
std::string int_range_gbnf(std::optional<int64_t> min, std::optional<int64_t> max);

}  // namespace ck::grammar
