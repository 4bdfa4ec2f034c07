// Malformed GGUF files, generated from the real stories260K: each must be
// refused with a std::runtime_error that names the file and the problem
// (never a crash, hang or huge allocation: this suite also runs under
// ASan/UBSan).
#include <catch2/catch.hpp>
#include <functional>

#include "loader/convert.h"
#include "loader/gguf_reader.h"
#include "loader/model_config.h"
#include "tests/apps/subprocess.h"
#include "tests/kernels/oracle.h"
#include "tests/loader/support.h"

namespace ck::test {
namespace {

constexpr const char* kName = "corrupt.gguf";

struct Case {
  std::string what;
  std::function<std::vector<uint8_t>(GgufBuilder&)> make;  // gets a fresh copy of the real file
  std::string expect;
};

std::vector<uint8_t> built(GgufBuilder& b) { return b.build(); }

// Builds the file, then lets `edit` change bytes at the recorded places.
std::function<std::vector<uint8_t>(GgufBuilder&)> edit(std::function<void(std::vector<uint8_t>&, const GgufBuilder::Layout&)> f) {
  return [f](GgufBuilder& b) {
    std::vector<uint8_t> bytes = b.build();
    f(bytes, b.layout);
    return bytes;
  };
}

std::function<std::vector<uint8_t>(GgufBuilder&)> change(std::function<void(GgufBuilder&)> f) {
  return [f](GgufBuilder& b) {
    f(b);
    return b.build();
  };
}

std::string nested_arrays(int depth) {
  std::string raw;
  for (int i = 0; i < depth; ++i) raw += raw_u32(9) + raw_u64(1);
  return raw + raw_u32(4) + raw_u64(0);
}

GgufBuilder real_file() {
  static const std::vector<uint8_t> original = read_bytes(stories_gguf());
  return GgufBuilder::from(GgufFile::parse(original, "stories260K.gguf"));
}

const std::vector<Case>& parse_cases() {
  static const std::vector<Case> cases = {
      {"empty file", [](GgufBuilder&) { return std::vector<uint8_t>{}; }, "GGUF magic: needs 4 bytes"},
      {"bad magic", edit([](auto& x, auto&) { x[3] = 'X'; }), "bad magic: expected \"GGUF\""},
      {"version 0", edit([](auto& x, auto&) { poke<uint32_t>(x, 4, 0); }), "unsupported GGUF version 0"},
      {"version 4", edit([](auto& x, auto&) { poke<uint32_t>(x, 4, 4); }), "unsupported GGUF version 4"},
      {"absurd tensor count", edit([](auto& x, auto& l) { poke<uint64_t>(x, l.n_tensors, uint64_t{1} << 60); }),
       "tensor count 1152921504606846976 cannot fit"},
      {"absurd metadata count", edit([](auto& x, auto& l) { poke<uint64_t>(x, l.n_kv, uint64_t{1} << 60); }),
       "metadata count 1152921504606846976 cannot fit"},
      {"key length past the end", edit([](auto& x, auto& l) { poke<uint64_t>(x, l.kv_key[2], uint64_t{1} << 40); }),
       "metadata key of length 1099511627776: needs"},
      {"unknown value type", edit([](auto& x, auto& l) { poke<uint32_t>(x, l.kv_type[3], 13); }),
       "has value type 13, expected a GGUF value type"},
      {"unknown array element type", edit([](auto& x, auto& l) { poke<uint32_t>(x, l.kv_value[0], 99); }),
       "array element type 99 is not a GGUF value type"},
      {"absurd array count", edit([](auto& x, auto& l) { poke<uint64_t>(x, l.kv_value[0] + 4, uint64_t{1} << 59); }),
       "array count 576460752303423488 of string needs at least 8 bytes each"},
      {"string length past the end",
       edit([](auto& x, auto& l) { poke<uint64_t>(x, l.kv_value[0] + 12, uint64_t{1} << 33); }),
       "string of length 8589934592: needs"},
      {"bool that is neither 0 nor 1", change([](auto& b) { b.kvs.push_back({"x.flag", 7, "\x02"}); }),
       "bool value 2 is not 0 or 1"},
      {"nested array bomb (depth)", change([](auto& b) { b.kvs.push_back({"x.deep", 9, nested_arrays(100).substr(0)}); }),
       "arrays nested deeper than 8 levels"},
      {"nested array bomb (count)",
       change([](auto& b) { b.kvs.push_back({"x.wide", 9, raw_u32(9) + raw_u64(uint64_t{1} << 40)}); }),
       "array count 1099511627776 of array needs at least 12 bytes each"},
      {"duplicate metadata key", change([](auto& b) { b.kvs.push_back(b.kvs[5]); }), "duplicate metadata key"},
      {"alignment not a power of two",
       change([](auto& b) { b.kvs.push_back({"general.alignment", 4, raw_u32(48)}); }),
       "'general.alignment' is 48, expected a power of two"},
      {"alignment of the wrong type",
       change([](auto& b) { b.kvs.push_back({"general.alignment", 8, raw_string("32")}); }),
       "'general.alignment' has type string, expected an unsigned integer"},
      {"five dimensions", change([](auto& b) { b.tensors[0].ne = {64, 512, 1, 1, 1}; }),
       "has 5 dimensions, expected 1 to 4"},
      {"zero dimensions", change([](auto& b) { b.tensors[0].ne = {}; }), "has 0 dimensions, expected 1 to 4"},
      {"unknown ggml type", change([](auto& b) { b.tensors[0].ggml_type = 99; }), "has ggml type 99, which is unknown"},
      {"ggml type without a reader (Q8_K)", change([](auto& b) { b.tensors[0].ggml_type = 15; }),
       "has type Q8_K (ggml type 15), which ck does not support; ck reads F32, F16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, "
       "Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS, BF16"},
      {"an IQ type, named (issue 13)", change([](auto& b) { b.tensors[0].ggml_type = 21; }),
       "has type IQ3_S (ggml type 21), which ck does not support; ck reads F32, F16"},
      {"element count overflows", change([](auto& b) { b.tensors[0].ne = {uint64_t{1} << 32, uint64_t{1} << 32}; }),
       "dimensions overflow 64 bits"},
      {"dimension beyond int64", change([](auto& b) { b.tensors[0].ne = {64, uint64_t{1} << 63}; }),
       "dimensions overflow 64 bits (dimension 1"},
      {"byte size overflows", change([](auto& b) {
         b.tensors[0].ne = {uint64_t{3} << 61};  // fits int64 as a count, not as F32 bytes
       }),
       "byte size overflows 64 bits"},
      {"row length not a multiple of the block", change([](auto& b) { b.tensors[0].ggml_type = 12; }),
       "row length 64 is not a multiple of the Q4_K block size 256"},
      {"misaligned data offset", change([](auto& b) { b.tensors[1].offset += 4; }),
       "is not a multiple of the alignment 32"},
      {"tensor data outside the file", change([](auto& b) { b.tensors.back().offset = uint64_t{1} << 40; }),
       "lies outside the file"},
      {"tensor offset overflows", change([](auto& b) { b.tensors.back().offset = ~uint64_t{31}; }),
       "lies outside the file"},
      {"overlapping tensors", change([](auto& b) { b.tensors[5].offset = b.tensors[4].offset; }), "overlaps tensor"},
      {"duplicate tensor name", change([](auto& b) { b.tensors[3].name = b.tensors[2].name; }), "duplicate tensor name"},
      {"tensor name past the end",
       edit([](auto& x, auto& l) { poke<uint64_t>(x, l.tensor_name[7], uint64_t{1} << 50); }), "tensor name of length"},
      {"last byte of the data missing", edit([](auto& x, auto&) { x.pop_back(); }), "lies outside the file"},
  };
  return cases;
}

TEST_CASE("malformed GGUF files are refused with a message naming the problem", "[gguf][corrupt]") {
  REQUIRE(parse_cases().size() >= 25);
  for (const Case& c : parse_cases()) {
    SECTION(c.what) {
      GgufBuilder b = real_file();
      const std::vector<uint8_t> bytes = c.make(b);
      CHECK_THROWS_WITH(GgufFile::parse(bytes, kName), Catch::Contains(kName) && Catch::Contains(c.expect));
    }
  }
}

TEST_CASE("a GGUF truncated anywhere is refused", "[gguf][corrupt]") {
  GgufBuilder b = real_file();
  const std::vector<uint8_t> full = b.build();
  // Every field boundary of the header and metadata, then points through the data.
  std::vector<size_t> cuts = {0, 1, 3, 4, 5, 8, 12, 16, 20, 24};
  for (size_t i = 0; i < b.layout.kv_key.size(); ++i) {
    for (size_t at : {b.layout.kv_key[i], b.layout.kv_key[i] + 4, b.layout.kv_type[i] + 2, b.layout.kv_value[i] + 1}) {
      cuts.push_back(at);
    }
  }
  for (size_t i = 0; i < b.layout.tensor_name.size(); i += 7) {
    for (size_t at : {b.layout.tensor_name[i] + 9, b.layout.tensor_ndims[i] + 1, b.layout.tensor_ne[i] + 3,
                      b.layout.tensor_type[i], b.layout.tensor_offset[i] + 7}) {
      cuts.push_back(at);
    }
  }
  for (size_t k = 0; k < 40; ++k) cuts.push_back(b.layout.data + (full.size() - b.layout.data) * k / 40);
  cuts.push_back(full.size() - 1);
  for (size_t cut : cuts) {
    INFO("truncated to " << cut << " of " << full.size() << " bytes");
    const std::vector<uint8_t> part(full.begin(), full.begin() + static_cast<ptrdiff_t>(cut));
    CHECK_THROWS_WITH(GgufFile::parse(part, kName),
                      Catch::Contains(kName) && (Catch::Contains("remain before the end of the data") ||
                                                 Catch::Contains("cannot fit in the") ||
                                                 Catch::Contains("past the end of the file") ||
                                                 Catch::Contains("lies outside the file")));
  }
}

const std::vector<Case>& model_cases() {
  auto set_u32 = [](const std::string& key, uint32_t v) {
    return change([key, v](auto& b) { b.kv(key) = {key, 4, raw_u32(v)}; });
  };
  static const std::vector<Case> cases = {
      {"unsupported architecture", change([](auto& b) {
         b.kv("general.architecture").raw = raw_string("gemma2");
         for (auto& kv : b.kvs) {
           if (kv.key.rfind("llama.", 0) == 0) kv.key = "gemma2." + kv.key.substr(6);
         }
       }),
       "unsupported architecture 'gemma2' (supported: llama, qwen2, qwen3, gemma3, phi3)"},
      {"missing hyper-parameter",
       change([](auto& b) { b.kvs.erase(b.kvs.begin() + static_cast<ptrdiff_t>(b.kv_index("llama.embedding_length"))); }),
       "'llama.embedding_length' is missing"},
      {"hyper-parameter of the wrong type",
       change([](auto& b) { b.kv("llama.block_count") = {"llama.block_count", 8, raw_string("5")}; }),
       "'llama.block_count' has type string, expected an unsigned integer"},
      {"zero layers", set_u32("llama.block_count", 0), "'llama.block_count' is 0, expected 1..4096"},
      {"absurd embedding size", set_u32("llama.embedding_length", 1u << 30), "'llama.embedding_length' is 1073741824"},
      {"heads not a multiple of KV heads", set_u32("llama.attention.head_count_kv", 3),
       "head_count 8 is not a multiple of head_count_kv 3"},
      {"attention wider than any model", change([](auto& b) {
         b.kvs.push_back({"llama.attention.key_length", 4, raw_u32(1u << 19)});
         b.kvs.push_back({"llama.attention.value_length", 4, raw_u32(1u << 19)});
       }),
       "head_count x key_length = 4194304 exceeds"},
      {"rope wider than a head", set_u32("llama.rope.dimension_count", 16), "rope.dimension_count 16 must be even"},
      {"missing RMS epsilon", change([](auto& b) {
         b.kvs.erase(b.kvs.begin() + static_cast<ptrdiff_t>(b.kv_index("llama.attention.layer_norm_rms_epsilon")));
       }),
       "'llama.attention.layer_norm_rms_epsilon' is missing"},
  };
  return cases;
}

TEST_CASE("GGUF metadata the runtime cannot use is refused", "[gguf][corrupt][config]") {
  for (const Case& c : model_cases()) {
    SECTION(c.what) {
      GgufBuilder b = real_file();
      const std::vector<uint8_t> bytes = c.make(b);
      const GgufFile f = GgufFile::parse(bytes, kName);
      CHECK_THROWS_WITH(config_from_metadata(f.metadata(), kName), Catch::Contains(kName) && Catch::Contains(c.expect));
    }
  }
}

const std::vector<Case>& conversion_cases() {
  static const std::vector<Case> cases = {
      {"missing tensor", change([](auto& b) {
         b.tensors.erase(b.tensors.begin() + static_cast<ptrdiff_t>(b.tensor_index("blk.2.attn_k.weight")));
       }),
       "required tensor 'blk.2.attn_k.weight' is missing"},
      {"tensor shape against the metadata", change([](auto& b) { b.tensor("blk.0.attn_q.weight").ne = {32, 128}; }),
       "tensor 'blk.0.attn_q.weight' has shape [32, 128], expected [64, 64]"},
      {"norm that is a matrix", change([](auto& b) { b.tensor("blk.1.ffn_norm.weight").ne = {32, 2}; }),
       "tensor 'blk.1.ffn_norm.weight' has shape [32, 2], expected [64]"},
      {"a tensor ck has no slot for", change([](auto& b) {
         const uint64_t at = (b.data.size() + 31) / 32 * 32;
         b.data.resize(at + 32, 0);
         b.tensors.push_back({"blk.0.ffn_gate_inp.weight", {8}, 0, at});
       }),
       "tensor 'blk.0.ffn_gate_inp.weight' has no place in a bump file"},
      {"rope_freqs not one per rotated pair", change([](auto& b) {
         const uint64_t at = (b.data.size() + 31) / 32 * 32;
         b.data.resize(at + 32, 0);
         b.tensors.push_back({"rope_freqs.weight", {8}, 0, at});
       }),
       "tensor 'rope_freqs.weight' has shape [8], expected [4] from the metadata"},
  };
  return cases;
}

TEST_CASE("conversion refuses inconsistent models before writing anything", "[convert][corrupt]") {
  ScratchDir dir;
  for (const Case& c : conversion_cases()) {
    SECTION(c.what) {
      GgufBuilder b = real_file();
      const std::vector<uint8_t> bytes = c.make(b);
      write_bytes(dir.file(kName), bytes.data(), bytes.size());
      const auto out = dir.file("out.bump");
      CHECK_THROWS_WITH(convert_gguf_to_bump(dir.file(kName), out), Catch::Contains(kName) && Catch::Contains(c.expect));
      CHECK_FALSE(std::filesystem::exists(out));
      CHECK_FALSE(std::filesystem::exists(config_json_path(out)));
      size_t files = 0;
      for (const auto& entry : std::filesystem::directory_iterator(dir.file(""))) files += entry.exists();
      CHECK(files == 1);  // the input only: no temporary file left behind
    }
  }
}

TEST_CASE("ck-convert exits 1 with the error on malformed GGUF files", "[gguf][corrupt][app]") {
  ScratchDir dir;
  const std::vector<std::string> picks = {"absurd array count", "nested array bomb (depth)", "tensor data outside the file",
                                          "unknown ggml type"};
  for (const Case& c : parse_cases()) {
    if (std::find(picks.begin(), picks.end(), c.what) == picks.end()) continue;
    INFO(c.what);
    GgufBuilder b = real_file();
    const std::vector<uint8_t> bytes = c.make(b);
    const auto path = dir.file(kName);
    write_bytes(path, bytes.data(), bytes.size());
    for (const std::vector<std::string>& args : {std::vector<std::string>{"ck-convert", "--inspect", path.string()},
                                                 {"ck-convert", path.string(), "-o", dir.file("x.bump").string()}}) {
      const ProcessResult r = run_app(args);
      CHECK(r.exit_code == 1);
      CHECK_THAT(r.err, Catch::Contains("ck-convert: error: ") && Catch::Contains(kName) && Catch::Contains(c.expect));
      CHECK_FALSE(std::filesystem::exists(dir.file("x.bump")));
    }
  }
  const auto text = dir.file("notes.txt");
  write_bytes(text, "hello", 5);
  const ProcessResult r = run_app({"ck-convert", "--inspect", text.string()});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("ck-convert: error: ") && Catch::Contains("not a GGUF or bump file"));
}

}  // namespace
}  // namespace ck::test
