// Reader for GGUF files (versions 1, 2 and 3), the llama.cpp ecosystem's
// model format: header, metadata, tensor table; tensor data are views into
// the memory map, so opening a multi-GB file reads only its header pages.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kernels/dtype.h"
#include "loader/mapped_file.h"
#include "loader/metadata.h"

namespace ck {

struct GgufTensorInfo {
  std::string name;
  std::vector<int64_t> ne;  // ne[0] = length of one row (innermost); 1 to 4 dims
  DType type;               // the ggml type, as our dtype (kernels/dtype.h)
  uint64_t offset;          // absolute byte offset of the data in the file
  uint64_t nbytes;          // bytes of the data

  int64_t cols() const { return ne[0]; }
  int64_t rows() const;  // product of ne[1..]
  int64_t n_elements() const { return cols() * rows(); }
};

// "[64, 512]": a shape as ne[0], ne[1], ... for messages.
std::string shape_string(const std::vector<int64_t>& ne);

class GgufFile {
 public:
  static GgufFile open(const std::filesystem::path& path);
  // Parses bytes the caller keeps alive for the lifetime of the result (for
  // fuzzers and tests). `source` names them in error messages.
  static GgufFile parse(std::span<const uint8_t> bytes, std::string source);

  const std::string& source() const { return source_; }
  uint32_t version() const { return version_; }
  uint64_t alignment() const { return alignment_; }
  uint64_t data_offset() const { return data_offset_; }  // start of the data section
  size_t file_size() const { return bytes_.size(); }
  std::span<const uint8_t> bytes() const { return bytes_; }

  const Metadata& metadata() const { return metadata_; }
  const std::vector<GgufTensorInfo>& tensors() const { return tensors_; }
  const GgufTensorInfo* find(std::string_view name) const;  // nullptr when absent
  std::span<const uint8_t> tensor_data(const GgufTensorInfo& info) const {
    return bytes_.subspan(info.offset, info.nbytes);
  }
  // After a streaming pass over a tensor: lets the OS drop its pages.
  void release_tensor_pages(const GgufTensorInfo& info) const { file_.drop_pages(info.offset, info.nbytes); }

 private:
  GgufFile() = default;

  MappedFile file_;  // empty when parsed from caller-owned bytes
  std::span<const uint8_t> bytes_;
  std::string source_;
  uint32_t version_ = 0;
  uint64_t alignment_ = 32;
  uint64_t data_offset_ = 0;
  Metadata metadata_;
  std::vector<GgufTensorInfo> tensors_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace ck
