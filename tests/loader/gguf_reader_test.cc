// The GGUF reader against the gguf Python package on real files, and on
// synthetic files for what real ones rarely contain (v1 counts, nested
// arrays, every scalar type).
#include <catch2/catch.hpp>

#include "loader/gguf_reader.h"
#include "loader/model_config.h"
#include "loader/vocab_reader.h"
#include "tests/kernels/oracle.h"
#include "tests/loader/golden_check.h"
#include "tests/loader/support.h"

namespace ck::test {
namespace {

void check_file_against_golden(const GgufFile& f, const nlohmann::json& golden) {
  CHECK(f.file_size() == golden["size"].get<size_t>());
  CHECK(f.version() == golden["version"].get<uint32_t>());
  CHECK(f.alignment() == golden["alignment"].get<uint64_t>());
  CHECK(f.data_offset() == golden["data_offset"].get<uint64_t>());
  CHECK(f.metadata().entries().size() == golden["metadata"].size());
  check_metadata(f.metadata(), golden["metadata"]);
  REQUIRE(f.tensors().size() == golden["tensors"].size());
  for (const auto& g : golden["tensors"]) {
    INFO("tensor " << g["name"]);
    const GgufTensorInfo* t = f.find(g["name"].get<std::string>());
    REQUIRE(t != nullptr);
    CHECK(std::string(traits(t->type).name) == g["type"].get<std::string>());
    CHECK(std::vector<int64_t>(t->ne) == g["ne"].get<std::vector<int64_t>>());
    CHECK(t->offset == g["offset"].get<uint64_t>());
    CHECK(t->nbytes == g["nbytes"].get<uint64_t>());
    CHECK(sha256_hex(f.tensor_data(*t)) == g["sha256"].get<std::string>());
  }
}

TEST_CASE("stories260K parses exactly as the gguf package reads it", "[gguf][real]") {
  check_file_against_golden(GgufFile::open(stories_gguf()), load_golden("stories260K"));
}

TEST_CASE("SmolLM2 parses exactly as the gguf package reads it", "[gguf][real]") {
  check_file_against_golden(GgufFile::open(smollm_gguf()), load_golden("SmolLM2-135M-Instruct.Q4_1"));
}

TEST_CASE("config and vocabulary of the real models", "[gguf][real]") {
  const GgufFile s = GgufFile::open(stories_gguf());
  const ModelConfig c = config_from_metadata(s.metadata(), s.source());
  CHECK(c.arch == "llama");
  CHECK(c.n_layers == 5);
  CHECK(c.dim == 64);
  CHECK(c.n_heads == 8);
  CHECK(c.n_kv_heads == 4);
  CHECK(c.head_dim == 8);
  CHECK(c.ffn_dim == 172);
  CHECK(c.vocab_size == 512);  // from the token count: no llama.vocab_size key
  CHECK(c.rope_base == 10000.0f);  // absent key: llama.cpp's default
  CHECK_FALSE(c.rope_neox);
  const tok::VocabData v = vocab_from_metadata(s.metadata(), s.source());
  CHECK(v.model == "llama");
  CHECK(v.tokens.size() == 512);
  CHECK(v.scores.size() == 512);
  CHECK(v.bos_id == 1);
  CHECK(v.eos_id == 2);
  CHECK(v.pad_id == -1);  // stored as 0xFFFFFFFF
  CHECK(v.add_bos);       // SPM default when the key is absent

  const GgufFile m = GgufFile::open(smollm_gguf());
  const ModelConfig cm = config_from_metadata(m.metadata(), m.source());
  CHECK(cm.n_layers == 30);
  CHECK(cm.head_dim == 64);
  CHECK(cm.n_kv_heads == 3);
  CHECK(cm.rope_base == 100000.0f);
  CHECK(cm.vocab_size == 49152);
  const tok::VocabData vm = vocab_from_metadata(m.metadata(), m.source());
  CHECK(vm.model == "gpt2");
  CHECK(vm.pre == "smollm");
  CHECK(vm.merges.size() == 48900);
  CHECK_FALSE(vm.add_bos);
  CHECK(vm.chat_template.find("<|im_start|>") != std::string::npos);
}

TEST_CASE("re-serializing a parsed file reproduces it byte for byte", "[gguf]") {
  const std::vector<uint8_t> original = read_bytes(stories_gguf());
  const GgufFile f = GgufFile::parse(original, "stories");
  CHECK(GgufBuilder::from(f).build() == original);
}

TEST_CASE("GGUF v1 (32-bit counts) and v2 files parse", "[gguf]") {
  for (uint32_t version : {1u, 2u}) {
    INFO("version " << version);
    GgufBuilder b;
    b.version = version;
    const std::string len = version == 1 ? raw_u32(5) : raw_u64(5);
    b.kvs.push_back({"general.name", 8, len + "hello"});
    b.kvs.push_back({"x.n", 4, raw_u32(7)});
    b.tensors.push_back({"t", {32, 2}, 0, 0});
    b.data.assign(32 * 2 * 4, 0);
    const std::vector<uint8_t> bytes = b.build();
    const GgufFile f = GgufFile::parse(bytes, "synthetic");
    CHECK(f.version() == version);
    CHECK(*f.metadata().get_string("general.name") == "hello");
    CHECK(*f.metadata().get_u32("x.n") == 7);
    REQUIRE(f.tensors().size() == 1);
    CHECK(f.tensors()[0].ne == std::vector<int64_t>{32, 2});
    CHECK(f.tensors()[0].nbytes == 256);
    // Stored as v3 whatever the source version: the bump extension reuses it.
    CHECK(f.metadata().find("general.name")->raw == raw_string("hello"));
  }
}

TEST_CASE("every scalar type, nested arrays, typed getters", "[gguf][metadata]") {
  GgufBuilder b;
  auto scalar = [](auto v) { return std::string(reinterpret_cast<const char*>(&v), sizeof v); };
  b.kvs.push_back({"u8", 0, scalar(uint8_t{200})});
  b.kvs.push_back({"i8", 1, scalar(int8_t{-5})});
  b.kvs.push_back({"u16", 2, scalar(uint16_t{60000})});
  b.kvs.push_back({"i16", 3, scalar(int16_t{-30000})});
  b.kvs.push_back({"u32", 4, scalar(uint32_t{4000000000u})});
  b.kvs.push_back({"i32", 5, scalar(int32_t{-7})});
  b.kvs.push_back({"f32", 6, scalar(1.5f)});
  b.kvs.push_back({"bool", 7, scalar(uint8_t{1})});
  b.kvs.push_back({"u64", 10, scalar(uint64_t{1} << 40)});
  b.kvs.push_back({"i64", 11, scalar(int64_t{-(int64_t{1} << 40)})});
  b.kvs.push_back({"f64", 12, scalar(0.25)});
  // [[1, 2], [3]] of i32, and an array of u8 as i32 getter input.
  std::string nested = raw_u32(9) + raw_u64(2) + raw_u32(5) + raw_u64(2) + scalar(int32_t{1}) + scalar(int32_t{2}) +
                       raw_u32(5) + raw_u64(1) + scalar(int32_t{3});
  b.kvs.push_back({"nested", 9, nested});
  b.kvs.push_back({"bytes", 9, raw_u32(0) + raw_u64(3) + "\x01\x02\xff"});
  const std::vector<uint8_t> bytes = b.build();
  const GgufFile f = GgufFile::parse(bytes, "synthetic");
  const Metadata& m = f.metadata();
  CHECK(*m.get_u32("u8") == 200);
  CHECK(*m.get_i32("i8") == -5);
  CHECK(*m.get_u32("u16") == 60000);
  CHECK(*m.get_i32("i16") == -30000);
  CHECK(*m.get_u32("u32") == 4000000000u);
  CHECK(*m.get_i64("i32") == -7);
  CHECK(*m.get_f32("f32") == 1.5f);
  CHECK(*m.get_bool("bool"));
  CHECK(*m.get_u64("u64") == uint64_t{1} << 40);
  CHECK(*m.get_i64("i64") == -(int64_t{1} << 40));
  CHECK(*m.get_f64("f64") == 0.25);
  CHECK(*m.get_i32_array("bytes") == std::vector<int32_t>{1, 2, 255});
  CHECK(m.get_array_info("nested")->count == 2);
  CHECK(m.describe(*m.find("nested")) == "[array x 2] [[i32 x 2] [1, 2], [i32 x 1] [3]]");
  CHECK_FALSE(m.get_u32("absent").has_value());

  CHECK_THROWS_WITH(m.get_u32("i8"), Catch::Contains("'i8' is -5, expected a non-negative value"));
  CHECK_THROWS_WITH(m.get_i32("u32"), Catch::Contains("does not fit in a 32-bit signed integer"));
  CHECK_THROWS_WITH(m.get_u32("u64"), Catch::Contains("does not fit in 32 bits"));
  CHECK_THROWS_WITH(m.get_string("u32"), Catch::Contains("'u32' has type u32, expected string"));
  CHECK_THROWS_WITH(m.get_f32("bool"), Catch::Contains("has type bool, expected f32 or f64"));
  CHECK_THROWS_WITH(m.get_string_array("bytes"), Catch::Contains("is an array of u8, expected an array of string"));
  CHECK_THROWS_WITH(m.get_f32_array("nested"), Catch::Contains("expected an array of f32"));
}

TEST_CASE("metadata set and encode_pairs round-trip through the parser", "[metadata]") {
  const GgufFile s = GgufFile::open(stories_gguf());
  Metadata m = s.metadata();
  m.set_bool("ck.flag", true);
  m.set_u64("ck.big", uint64_t{1} << 50);
  m.set_string("ck.text", std::string_view("a\0b", 3));  // strings may hold NULs
  m.set_u32("llama.block_count", 6);  // replaces in place
  const std::string pairs = m.encode_pairs();
  GgufBuilder b;
  for (const MetaEntry& e : m.entries()) b.kvs.push_back({e.key, static_cast<uint32_t>(e.type), e.raw});
  const std::vector<uint8_t> bytes = b.build();
  const GgufFile back = GgufFile::parse(bytes, "round-trip");
  CHECK(back.metadata().encode_pairs() == pairs);
  CHECK(back.metadata().entries().size() == s.metadata().entries().size() + 3);
  CHECK(*back.metadata().get_u32("llama.block_count") == 6);
  CHECK(*back.metadata().get_bool("ck.flag"));
  CHECK(*back.metadata().get_u64("ck.big") == uint64_t{1} << 50);
  CHECK(*back.metadata().get_string("ck.text") == std::string("a\0b", 3));
}

TEST_CASE("BOS default follows llama.cpp: SPM and the Llama-3 BPE group add it, other BPE not", "[gguf][metadata]") {
  Metadata m = GgufFile::open(smollm_gguf()).metadata();  // gpt2 vocabulary, pre "smollm", add_bos_token false
  m.set_string("tokenizer.ggml.pre", "llama-bpe");
  CHECK_FALSE(vocab_from_metadata(m, "explicit").add_bos);  // an explicit key wins

  Metadata without;
  for (const MetaEntry& e : m.entries()) {
    if (e.key != "tokenizer.ggml.add_bos_token") without.add(e, 0);
  }
  CHECK(vocab_from_metadata(without, "llama-bpe").add_bos);
  without.set_string("tokenizer.ggml.pre", "smollm");
  CHECK_FALSE(vocab_from_metadata(without, "smollm").add_bos);
}

}  // namespace
}  // namespace ck::test
