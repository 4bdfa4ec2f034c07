// ck-convert --dump: one tensor, by its GGUF name, dequantized to raw
// little-endian fp32 in GGUF row order (row r of ne[1..] = values r*ne[0]..).
#pragma once
#include <filesystem>
#include <string>

namespace ck::convert {

// Returns the number of values written. `model` is a GGUF or a bump file.
int64_t dump_tensor(const std::filesystem::path& model, const std::string& name, const std::filesystem::path& out);

}  // namespace ck::convert
