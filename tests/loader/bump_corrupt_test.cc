// Malformed bump files, generated from a real conversion of stories260K:
// each must be refused by BumpFile with a message naming the file and the
// problem; changes that leave the structure valid must fail verify().
#include <catch2/catch.hpp>
#include <functional>

#include "loader/bump_file.h"
#include "loader/convert.h"
#include "tests/apps/subprocess.h"
#include "tests/kernels/oracle.h"
#include "tests/loader/support.h"

namespace ck::test {
namespace {

constexpr const char* kName = "corrupt.bump";

// The real file, converted once for the whole suite.
const std::vector<uint8_t>& real_bump() {
  static const std::vector<uint8_t> bytes = [] {
    ScratchDir dir;
    convert_gguf_to_bump(stories_gguf(), dir.file("s.bump"));
    return read_bytes(dir.file("s.bump"));
  }();
  return bytes;
}

uint64_t ext_offset() { return peek<uint64_t>(real_bump(), 0x60); }

// Offset of the value of metadata key `key` in the extension section.
size_t ext_value(const std::vector<uint8_t>& x, const std::string& key) {
  const std::string needle = raw_string(key);
  auto it = std::search(x.begin() + static_cast<ptrdiff_t>(ext_offset()), x.end(), needle.begin(), needle.end());
  REQUIRE(it != x.end());
  return static_cast<size_t>(it - x.begin()) + needle.size() + 4;
}

const BumpFile::Slot& slot(const std::string& name) {
  static const BumpFile b = BumpFile::parse(real_bump(), "real");
  for (const auto& s : b.slots()) {
    if (s.name == name) return s;
  }
  FAIL("no slot " << name);
  return b.slots()[0];
}

constexpr size_t kCodes = 0x84;  // first dtype code

struct Case {
  std::string what;
  std::function<void(std::vector<uint8_t>&)> edit;
  std::string expect;
};

template <class T>
std::function<void(std::vector<uint8_t>&)> set(size_t offset, T value) {
  return [=](std::vector<uint8_t>& x) { poke<T>(x, offset, value); };
}

const std::vector<Case>& structure_cases() {
  static const std::vector<Case> cases = {
      {"empty file", [](auto& x) { x.clear(); }, "too small for the 128-byte bump header"},
      {"100 bytes", [](auto& x) { x.resize(100); }, "too small for the 128-byte bump header"},
      {"bad magic", [](auto& x) { x[7] = '2'; }, "bad magic: expected \"BUMPWGT3\""},
      {"version 2", set<uint32_t>(0x08, 2), "unsupported bump version 2 (expected 4)"},
      {"model_type 7", set<uint32_t>(0x0C, 7), "unsupported model_type 7"},
      {"num_layers", set<uint32_t>(0x10, 6), "byte 16: header num_layers is 6 but the metadata implies 5"},
      {"vocab_size", set<uint32_t>(0x14, 511), "header vocab_size is 511"},
      {"embed_dim", set<uint32_t>(0x18, 65), "header embed_dim is 65"},
      {"context_len", set<uint32_t>(0x1C, 1), "header context_len is 1"},
      {"num_heads", set<uint32_t>(0x20, 4), "header num_heads is 4"},
      {"head_dim", set<uint32_t>(0x24, 16), "header head_dim is 16"},
      {"aligned_embed_dim", set<uint64_t>(0x28, 65), "header aligned_embed_dim is 65"},
      {"aligned_head_dim", set<uint64_t>(0x30, 8), "header aligned_head_dim is 8 but the metadata implies 16"},
      {"aligned_context", set<uint64_t>(0x38, 2047), "header aligned_context is 2047"},
      {"extension offset past the end", set<uint64_t>(0x60, uint64_t{1} << 40), "extension section"},
      {"extension offset misaligned", [](auto& x) { poke<uint64_t>(x, 0x60, ext_offset() + 8); }, "must be 64-byte aligned"},
      {"extension offset inside the header", set<uint64_t>(0x60, 64), "after the dtype table"},
      {"extension offset + size overflows", set<uint64_t>(0x60, ~uint64_t{63}), "extension section"},
      {"extension size one too many", [](auto& x) { poke<uint64_t>(x, 0x68, peek<uint64_t>(x, 0x68) + 1); },
       "end at the end of the file"},
      {"trailing garbage", [](auto& x) { x.push_back(0); }, "end at the end of the file"},
      {"extension magic", [](auto& x) { x[ext_offset() + 2] = 'X'; }, "bad extension magic: expected \"CKMETA01\""},
      {"absurd metadata count", [](auto& x) { poke<uint64_t>(x, ext_offset() + 8, uint64_t{1} << 50); },
       "metadata count 1125899906842624 cannot fit"},
      {"one metadata pair fewer", [](auto& x) { poke<uint64_t>(x, ext_offset() + 8, peek<uint64_t>(x, ext_offset() + 8) - 1); },
       "unexpected bytes after the extension metadata"},
      {"metadata value type", [](auto& x) { poke<uint32_t>(x, ext_value(x, "general.name") - 4, 200); },
       "'general.name' has value type 200"},
      {"metadata string past the end",
       [](auto& x) { poke<uint64_t>(x, ext_value(x, "tokenizer.ggml.model"), uint64_t{1} << 40); },
       "string of length 1099511627776: needs"},
      {"architecture in the metadata", [](auto& x) { std::memcpy(&x[ext_value(x, "general.architecture") + 8], "gemma", 5); },
       "unsupported architecture 'gemma'"},
      {"metadata says tied output", [](auto& x) { x[ext_value(x, "ck.tied_output")] = 1; },
       "expected right after the tensors"},
      {"metadata says q/k/v biases", [](auto& x) { x[ext_value(x, "ck.qkv_bias")] = 1; },
       "runs past the extension section"},
      {"metadata bool not 0 or 1", [](auto& x) { x[ext_value(x, "ck.qkv_bias")] = 7; }, "bool value 7 is not 0 or 1"},
      {"dtype table count", set<uint32_t>(0x80, 97), "dtype table count 97, expected 98 slots for 5 layers"},
      {"unknown dtype code", [](auto& x) { x[kCodes + 4] = 99; }, "slot 4 (blk.0.attn_q.weight) has dtype code 99"},
      {"unknown dtype code", [](auto& x) { x[kCodes + 4] = 200; }, "has dtype code 200, expected a native type"},
      {"quantized norm", [](auto& x) { x[kCodes + 2] = 8; }, "slot 2 (blk.0.attn_norm.weight) is a vector and must be F32, not Q8_0"},
      {"F32 matrix marked F16", [](auto& x) { x[kCodes + 0] = 2; }, "expected right after the tensors"},
      {"F32 matrix marked Q8_0 (sizes shift)", [](auto& x) { x[kCodes + 4] = 8; }, "expected right after the tensors"},
      {"row not a multiple of the block", [](auto& x) { x[kCodes + 0] = 6; },
       "slot 0 (token_embd.weight) row length 64 is not a multiple of the Q4_K block size"},
  };
  return cases;
}

TEST_CASE("malformed bump files are refused with a message naming the problem", "[bump][corrupt]") {
  REQUIRE(structure_cases().size() >= 25);
  for (const Case& c : structure_cases()) {
    SECTION(c.what) {
      std::vector<uint8_t> bytes = real_bump();
      c.edit(bytes);
      CHECK_THROWS_WITH(BumpFile::parse(bytes, kName), Catch::Contains(kName) && Catch::Contains(c.expect));
    }
  }
}

TEST_CASE("a bump truncated anywhere is refused", "[bump][corrupt]") {
  const std::vector<uint8_t>& full = real_bump();
  std::vector<size_t> cuts = {0, 8, 127, 128, 131, 0x84 + 10, full.size() - 1, ext_offset(), ext_offset() + 9};
  for (size_t k = 1; k < 60; ++k) cuts.push_back(full.size() * k / 60);
  for (size_t cut : cuts) {
    INFO("truncated to " << cut << " of " << full.size());
    const std::vector<uint8_t> part(full.begin(), full.begin() + static_cast<ptrdiff_t>(cut));
    CHECK_THROWS_WITH(BumpFile::parse(part, kName),
                      Catch::Contains(kName) && (Catch::Contains("too small") || Catch::Contains("truncated or corrupt")));
  }
}

const std::vector<Case>& payload_cases() {
  static const std::vector<Case> cases = {
      {"a weight byte", [](auto& x) { x[slot("blk.3.ffn_down.weight").offset + 100] ^= 0x10; }, "SHA-256 mismatch"},
      {"the last byte", [](auto& x) { x.back() ^= 1; }, "SHA-256 mismatch"},
      {"a padding byte", [](auto& x) { x[kCodes + 98 + 3] = 1; }, "SHA-256 mismatch"},
      {"a metadata character", [](auto& x) { x[ext_value(x, "general.name") + 8] ^= 0x20; }, "SHA-256 mismatch"},
      {"the stored checksum", [](auto& x) { x[0x40 + 31] ^= 0x80; }, "SHA-256 mismatch"},
  };
  return cases;
}

TEST_CASE("changed bytes that keep the structure valid fail verify", "[bump][corrupt]") {
  CHECK_NOTHROW(BumpFile::parse(real_bump(), kName, {.verify = true}));
  for (const Case& c : payload_cases()) {
    SECTION(c.what) {
      std::vector<uint8_t> bytes = real_bump();
      c.edit(bytes);
      const BumpFile b = BumpFile::parse(bytes, kName);  // the structure still loads
      CHECK_THROWS_WITH(b.verify(), Catch::Contains(kName) && Catch::Contains(c.expect));
      CHECK_THROWS_WITH(BumpFile::parse(bytes, kName, {.verify = true}), Catch::Contains(c.expect));
    }
  }
}

TEST_CASE("ck-convert exits 1 with the error on malformed bump files", "[bump][corrupt][app]") {
  ScratchDir dir;
  const auto path = dir.file(kName);
  for (const Case& c : structure_cases()) {
    if (c.what != "num_layers" && c.what != "extension magic" && c.what != "unknown dtype code") continue;
    INFO(c.what);
    std::vector<uint8_t> bytes = real_bump();
    c.edit(bytes);
    write_bytes(path, bytes.data(), bytes.size());
    const ProcessResult r = run_app({"ck-convert", "--inspect", path.string()});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("ck-convert: error: ") && Catch::Contains(c.expect));
    CHECK(r.out.empty());
  }
  std::vector<uint8_t> bytes = real_bump();
  payload_cases()[0].edit(bytes);
  write_bytes(path, bytes.data(), bytes.size());
  const ProcessResult bad = run_app({"ck-convert", "--verify", path.string()});
  CHECK(bad.exit_code == 1);
  CHECK_THAT(bad.err, Catch::Contains("ck-convert: error: ") && Catch::Contains("SHA-256 mismatch"));
  write_bytes(path, real_bump().data(), real_bump().size());
  const ProcessResult good = run_app({"ck-convert", "--verify", path.string()});
  CHECK(good.exit_code == 0);
  CHECK_THAT(good.out, Catch::Contains("OK, SHA-256"));
}

}  // namespace
}  // namespace ck::test
