// Shared by the loader tests: where the real models are, the goldens the
// gguf Python package wrote, and a GGUF writer that re-serializes a parsed
// file (optionally modified) and records where each field went, so tests
// can corrupt real files at exact places.
#pragma once
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "loader/gguf_reader.h"

namespace ck::test {

std::filesystem::path stories_gguf();
std::filesystem::path smollm_gguf();
nlohmann::json load_golden(const std::string& name);  // tests/loader/golden/NAME.json

// Little-endian encodings of metadata values (the bytes after the type id).
std::string raw_u32(uint32_t v);
std::string raw_u64(uint64_t v);
std::string raw_string(const std::string& s);

template <class T>
void poke(std::vector<uint8_t>& bytes, size_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof value);
}
template <class T>
T peek(const std::vector<uint8_t>& bytes, size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

struct GgufBuilder {
  struct Kv {
    std::string key;
    uint32_t type;
    std::string raw;  // value bytes; the caller encodes them for the version
  };
  struct Tensor {
    std::string name;
    std::vector<uint64_t> ne;
    uint32_t ggml_type;
    uint64_t offset;  // relative to the data section
  };
  // Where build() put each field.
  struct Layout {
    size_t n_tensors = 0, n_kv = 0, data = 0;
    std::vector<size_t> kv_key, kv_type, kv_value;
    std::vector<size_t> tensor_name, tensor_ndims, tensor_ne, tensor_type, tensor_offset;
  };

  uint32_t version = 3;
  uint64_t alignment = 32;
  std::vector<Kv> kvs;
  std::vector<Tensor> tensors;
  std::vector<uint8_t> data;
  Layout layout;

  static GgufBuilder from(const GgufFile& file);
  std::vector<uint8_t> build();
  Kv& kv(const std::string& key);          // REQUIREs that it exists
  Tensor& tensor(const std::string& name);  // REQUIREs that it exists
  size_t kv_index(const std::string& key) const;
  size_t tensor_index(const std::string& name) const;
};

}  // namespace ck::test
