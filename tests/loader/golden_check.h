// Compares what our reader decoded with what the gguf Python package read
// (tests/loader/golden/*.json, written by scripts/gguf-golden.py).
#pragma once
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "loader/bump_file.h"
#include "loader/gguf_reader.h"

namespace ck::test {

// Every golden key is present with the same type and value (arrays: count,
// first elements and a digest of all elements).
void check_metadata(const Metadata& meta, const nlohmann::json& golden_metadata);
// Checks that `view` (Q8_0) holds `ref` to within Q8_0 requantization error
// in every value; returns the RMS error.
double check_requantized(const TensorView& view, const std::vector<float>& ref);
// The digest scripts/gguf-golden.py computes for tensor bytes.
std::string sha256_hex(std::span<const uint8_t> bytes);

}  // namespace ck::test
