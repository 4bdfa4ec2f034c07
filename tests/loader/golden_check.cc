#include "tests/loader/golden_check.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "kernels/blocks.h"
#include "kernels/fp16.h"

#include "loader/sha256.h"

namespace ck::test {

namespace {

// Same digest as scripts/gguf-golden.py's array_digest.
std::string array_digest(const Metadata& meta, const std::string& key, GgufType element) {
  Sha256 h;
  auto add = [&](const void* p, size_t n) { h.update({static_cast<const uint8_t*>(p), n}); };
  if (element == GgufType::String) {
    const auto values = meta.get_string_array(key);  // a named optional: ranging over *temporary would dangle
    for (const std::string& s : *values) {
      const uint64_t n = s.size();
      add(&n, 8);
      add(s.data(), s.size());
    }
  } else if (element == GgufType::F32 || element == GgufType::F64) {
    const auto values = meta.get_f32_array(key);
    for (float v : *values) add(&v, 4);
  } else {
    const auto values = meta.get_i32_array(key);
    for (int32_t v : *values) add(&v, 4);
  }
  return to_hex(h.finish());
}

// The bound for one value of a block with stored scale d: half a step, plus
// what rounding the scale to fp16 costs the largest code (127 * d * 2^-11),
// plus float rounding.
float q8_0_bound(float d) { return d * (0.5f + 127.0f / 2048.0f) * 1.001f + 1e-7f; }

}  // namespace

double check_requantized(const TensorView& view, const std::vector<float>& ref) {
  REQUIRE(view.dtype == DType::Q8_0);
  REQUIRE(static_cast<size_t>(view.rows * view.cols) == ref.size());
  const auto* blocks = static_cast<const BlockQ8_0*>(view.data);
  double sq = 0;
  size_t bad = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const BlockQ8_0& blk = blocks[i / 32];
    const float d = fp16_to_fp32(blk.d);
    const float v = d * static_cast<float>(blk.qs[i % 32]);
    const float err = std::fabs(v - ref[i]);
    sq += static_cast<double>(err) * err;
    if (err > q8_0_bound(d) && bad++ < 5) FAIL_CHECK("value " << i << ": " << v << " vs " << ref[i] << " (d " << d << ")");
  }
  CHECK(bad == 0);
  return std::sqrt(sq / static_cast<double>(ref.size()));
}

std::string sha256_hex(std::span<const uint8_t> bytes) { return to_hex(sha256(bytes)); }

void check_metadata(const Metadata& meta, const nlohmann::json& golden) {
  for (const auto& g : golden) {
    const std::string key = g["key"];
    INFO("metadata key " << key);
    const MetaEntry* e = meta.find(key);
    REQUIRE(e != nullptr);
    REQUIRE(std::string(gguf_type_name(e->type)) == g["type"].get<std::string>());
    const std::string type = g["type"];
    if (type == "array") {
      const auto info = meta.get_array_info(key);
      REQUIRE(std::string(gguf_type_name(info->element_type)) == g["element_type"].get<std::string>());
      REQUIRE(info->count == g["count"].get<uint64_t>());
      CHECK(array_digest(meta, key, info->element_type) == g["sha256"].get<std::string>());
      const auto& head = g["head"];
      if (info->element_type == GgufType::String) {
        const auto values = *meta.get_string_array(key);
        for (size_t i = 0; i < head.size(); ++i) CHECK(values[i] == head[i].get<std::string>());
      } else if (info->element_type == GgufType::F32) {
        const auto values = *meta.get_f32_array(key);
        for (size_t i = 0; i < head.size(); ++i) CHECK(values[i] == head[i].get<float>());
      } else {
        const auto values = *meta.get_i32_array(key);
        for (size_t i = 0; i < head.size(); ++i) CHECK(values[i] == head[i].get<int64_t>());
      }
    } else if (type == "string") {
      CHECK(*meta.get_string(key) == g["value"].get<std::string>());
    } else if (type == "bool") {
      CHECK(*meta.get_bool(key) == g["value"].get<bool>());
    } else if (type == "f32" || type == "f64") {
      CHECK(*meta.get_f64(key) == g["value"].get<double>());
    } else {
      CHECK(*meta.get_i64(key) == g["value"].get<int64_t>());
    }
  }
}

}  // namespace ck::test
