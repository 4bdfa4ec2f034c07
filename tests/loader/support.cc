#include "tests/loader/support.h"

#include <catch2/catch.hpp>
#include <fstream>

namespace ck::test {

std::filesystem::path stories_gguf() { return std::filesystem::path(CK_SHARED_DATA) / "models/stories260K.gguf"; }
std::filesystem::path smollm_gguf() { return std::filesystem::path(CK_MODELS_DIR) / "SmolLM2-135M-Instruct.Q4_1.gguf"; }

nlohmann::json load_golden(const std::string& name) {
  std::ifstream in(std::filesystem::path(CK_LOADER_GOLDEN) / (name + ".json"));
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

std::string raw_u32(uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
std::string raw_u64(uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }
std::string raw_string(const std::string& s) { return raw_u64(s.size()) + s; }

GgufBuilder GgufBuilder::from(const GgufFile& f) {
  GgufBuilder b;
  b.version = f.version();
  b.alignment = f.alignment();
  for (const MetaEntry& e : f.metadata().entries()) b.kvs.push_back({e.key, static_cast<uint32_t>(e.type), e.raw});
  for (const GgufTensorInfo& t : f.tensors()) {
    b.tensors.push_back({t.name, std::vector<uint64_t>(t.ne.begin(), t.ne.end()),
                         static_cast<uint32_t>(traits(t.type).ggml_type), t.offset - f.data_offset()});
  }
  b.data.assign(f.bytes().begin() + static_cast<ptrdiff_t>(f.data_offset()), f.bytes().end());
  return b;
}

std::vector<uint8_t> GgufBuilder::build() {
  std::vector<uint8_t> out;
  const bool v1 = version == 1;
  auto put = [&](const void* p, size_t n) { out.insert(out.end(), static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + n); };
  auto u32 = [&](uint32_t v) { put(&v, 4); };
  auto u64 = [&](uint64_t v) { put(&v, 8); };
  auto count = [&](uint64_t v) { v1 ? u32(static_cast<uint32_t>(v)) : u64(v); };
  auto str = [&](const std::string& s) {
    count(s.size());
    put(s.data(), s.size());
  };
  layout = {};
  put("GGUF", 4);
  u32(version);
  layout.n_tensors = out.size();
  count(tensors.size());
  layout.n_kv = out.size();
  count(kvs.size());
  for (const Kv& kv : kvs) {
    layout.kv_key.push_back(out.size());
    str(kv.key);
    layout.kv_type.push_back(out.size());
    u32(kv.type);
    layout.kv_value.push_back(out.size());
    put(kv.raw.data(), kv.raw.size());
  }
  for (const Tensor& t : tensors) {
    layout.tensor_name.push_back(out.size());
    str(t.name);
    layout.tensor_ndims.push_back(out.size());
    u32(static_cast<uint32_t>(t.ne.size()));
    layout.tensor_ne.push_back(out.size());
    for (uint64_t n : t.ne) count(n);
    layout.tensor_type.push_back(out.size());
    u32(t.ggml_type);
    layout.tensor_offset.push_back(out.size());
    u64(t.offset);
  }
  out.resize((out.size() + alignment - 1) / alignment * alignment, 0);
  layout.data = out.size();
  put(data.data(), data.size());
  return out;
}

size_t GgufBuilder::kv_index(const std::string& key) const {
  for (size_t i = 0; i < kvs.size(); ++i) {
    if (kvs[i].key == key) return i;
  }
  FAIL("no metadata key " << key);
  return 0;
}

size_t GgufBuilder::tensor_index(const std::string& name) const {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].name == name) return i;
  }
  FAIL("no tensor " << name);
  return 0;
}

GgufBuilder::Kv& GgufBuilder::kv(const std::string& key) { return kvs[kv_index(key)]; }
GgufBuilder::Tensor& GgufBuilder::tensor(const std::string& name) { return tensors[tensor_index(name)]; }

}  // namespace ck::test
