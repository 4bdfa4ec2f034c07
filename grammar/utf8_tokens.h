// A token's bytes as code points for the grammar matcher: tokens can end in
// the middle of a UTF-8 sequence (byte-level vocabularies), which the next
// token completes.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ck::grammar {

struct DecodedBytes {
  std::vector<uint32_t> code_points;  // the complete characters
  std::string tail;                   // a UTF-8 sequence begun but not finished
  bool invalid = false;               // a byte that starts no UTF-8 sequence
};

DecodedBytes decode_utf8(std::string_view bytes);

// The code points a cut-off sequence (DecodedBytes::tail, non-empty) can
// still become: [lo, hi] (empty, lo > hi, when it can become none).
void tail_range(std::string_view tail, uint32_t& lo, uint32_t& hi);

}  // namespace ck::grammar
