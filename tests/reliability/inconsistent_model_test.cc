// Models whose tensors are fine but whose metadata is not: a copy of
// stories260K (dim 64, 8 query / 4 KV heads of 8, rope over 8, 5 layers)
// with one value patched. The converter must refuse them, and a bump patched
// after conversion (bypassing the converter; loaded without --verify) must
// be refused when the model is loaded. Never a crash.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tests/kernels/oracle.h"
#include "tests/reliability/fixtures.h"
#include "tests/reliability/process.h"

namespace {

using namespace ck::reliability;

struct Patch {
  std::string key;
  uint32_t value;
  std::string expected;  // a part of the message that names the problem
  // The converter validates the model's shapes, not its vocabulary (the
  // tokenizer does, when the model is loaded).
  bool converter_refuses = true;
};

const std::vector<Patch>& patches() {
  static const std::vector<Patch> p = {
      {"llama.attention.head_count_kv", 3, "head"},        // 8 query heads do not group over 3
      {"llama.attention.head_count_kv", 16, "head"},       // more KV heads than query heads
      {"llama.attention.head_count", 7, "head"},           // 64 is not a multiple of 7
      {"llama.attention.head_count", 0, "head"},
      {"llama.rope.dimension_count", 16, "rope"},          // larger than the head (8)
      {"llama.rope.dimension_count", 7, "rope"},           // odd: pairs cannot be formed
      {"llama.embedding_length", 32, "head size"},         // 8 heads of 4: rope (8) does not fit
      {"llama.embedding_length", 128, "from the metadata"},  // tensors are 64 wide
      {"llama.feed_forward_length", 100, "from the metadata"},  // tensors are 172 rows
      {"llama.block_count", 6, "blk.5"},                   // the tensors of layer 5 do not exist
      {"llama.block_count", 0, "block"},
      {"llama.context_length", 0, "context"},
      {"tokenizer.ggml.bos_token_id", 100000, "bos", false},  // outside the 512-token vocabulary
      {"tokenizer.ggml.eos_token_id", 512, "eos", false},
  };
  return p;
}

}  // namespace

TEST_CASE("a GGUF with inconsistent metadata is refused by ck-convert and ck-run", "[reliability][metadata]") {
  ck::test::ScratchDir dir;
  const std::vector<uint8_t> original = read_file(stories_gguf());
  int n = 0;
  for (const Patch& p : patches()) {
    INFO(p.key << " = " << p.value);
    std::vector<uint8_t> bytes = original;
    patch_u32(bytes, p.key, p.value);
    const auto gguf = dir.file("patched" + std::to_string(n++) + ".gguf");
    write_file(gguf, bytes);
    const auto bump = dir.file("out.bump");
    if (p.converter_refuses) {
      const Outcome convert = run({"ck-convert", gguf.string(), "-o", bump.string()});
      INFO("ck-convert: " << describe(convert));
      CHECK(failed_cleanly(convert));
      CHECK(convert.err.find(p.expected) != std::string::npos);
      CHECK_FALSE(std::filesystem::exists(bump));
    }
    // ck-run converts a GGUF itself on first use (prepare_model).
    const Outcome runs = run({"ck-run", "-m", gguf.string(), "-p", "Once", "-n", "2"});
    INFO("ck-run: " << describe(runs));
    CHECK(failed_cleanly(runs));
    CHECK(runs.err.find(p.expected) != std::string::npos);
  }
}

// Found by fuzz_convert: a token id stored as f32 passed every check until the
// converter, its bump already renamed into place, rendered config.json.
TEST_CASE("a GGUF whose special token id has the wrong type is refused and leaves no bump", "[reliability][metadata]") {
  ck::test::ScratchDir dir;
  std::vector<uint8_t> bytes = read_file(stories_gguf());
  patch_u32_type(bytes, "tokenizer.ggml.bos_token_id", 6);  // GGUF type 6 = f32, same 4-byte size
  const auto gguf = dir.file("f32_bos.gguf");
  write_file(gguf, bytes);
  const auto bump = dir.file("out.bump");
  const Outcome convert = run({"ck-convert", gguf.string(), "-o", bump.string()});
  INFO("ck-convert: " << describe(convert));
  CHECK(failed_cleanly(convert));
  CHECK(convert.err.find("tokenizer.ggml.bos_token_id") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(bump));
  CHECK_FALSE(std::filesystem::exists(dir.file("out.config.json")));
}

TEST_CASE("a bump whose metadata was changed after conversion is refused at load", "[reliability][metadata]") {
  ck::test::ScratchDir dir;
  const std::vector<uint8_t> original = read_file(stories_bump());
  int n = 0;
  for (const Patch& p : patches()) {
    INFO(p.key << " = " << p.value);
    std::vector<uint8_t> bytes = original;
    patch_u32(bytes, p.key, p.value);
    const auto bump = dir.file("patched" + std::to_string(n++) + ".bump");
    write_file(bump, bytes);
    for (const std::vector<std::string>& argv :
         {std::vector<std::string>{"ck-run", "-m", bump.string(), "-p", "Once", "-n", "2"},
          std::vector<std::string>{"ck-perplexity", "-m", bump.string(), "-f", wikitext_test().string(), "--chunks", "1"},
          std::vector<std::string>{"ck-convert", "--verify", bump.string()}}) {
      const Outcome o = run(argv);
      INFO(argv[0] << ": " << describe(o));
      CHECK(failed_cleanly(o));
    }
  }
}
