// A minimal GGUF v3 writer: metadata, tensor infos, then the tensor data in
// the declared order, each padded to the alignment (32 bytes).
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kernels/dtype.h"
#include "loader/atomic_file.h"
#include "loader/metadata.h"

namespace ck {

struct GgufTensorSpec {
  std::string name;
  std::vector<int64_t> ne;  // ne[0] = row length
  DType type;
  uint64_t nbytes() const;
};

class GgufWriter {
 public:
  // Writes the header, the metadata and the tensor infos at once.
  GgufWriter(const std::filesystem::path& path, const Metadata& metadata, std::vector<GgufTensorSpec> tensors);
  // The data of the next tensor, exactly its nbytes().
  void write_tensor(std::span<const uint8_t> data);
  // Checks that every tensor was written and moves the file into place.
  void commit();

 private:
  static constexpr uint64_t kAlignment = 32;
  std::filesystem::path path_;
  std::vector<GgufTensorSpec> tensors_;
  size_t next_ = 0;
  std::unique_ptr<AtomicFile> file_;
};

}  // namespace ck
