// Test helpers around gguf_oracle.py (the gguf Python package) and the
// scratch files it reads and writes.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "kernels/dtype.h"

namespace ck::test {

// A fresh directory under the system temp dir (or a given folder), removed
// with the object.
class ScratchDir {
 public:
  ScratchDir();
  explicit ScratchDir(const std::filesystem::path& parent);  // in parent rather than the temporary folder
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::filesystem::path file(const std::string& name) const { return dir_ / name; }

 private:
  std::filesystem::path dir_;
};

void write_bytes(const std::filesystem::path& path, const void* data, size_t size);
std::vector<uint8_t> read_bytes(const std::filesystem::path& path);
std::vector<float> read_floats(const std::filesystem::path& path);

// Runs every job line through one python3 process; fails the test (REQUIRE)
// unless each job answers "ok".
void run_oracle(const std::vector<std::string>& jobs, const ScratchDir& scratch);

// Index of the first element whose fp32 bit pattern differs (NaN equals any
// NaN), or -1.
int64_t first_bit_mismatch(const std::vector<float>& a, const std::vector<float>& b);

// Byte offsets of the fp16 scale fields inside one block of dt (FORMATS.md).
std::vector<int> half_fields(DType dt);

}  // namespace ck::test
