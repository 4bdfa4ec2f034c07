// ck-convert end to end, as users run it.
#include <catch2/catch.hpp>

#include "loader/bump_file.h"
#include "tests/apps/subprocess.h"
#include "tests/kernels/oracle.h"
#include "tests/loader/support.h"

namespace ck::test {
namespace {

TEST_CASE("ck-convert converts, to -o or beside the input", "[app]") {
  ScratchDir dir;
  const ProcessResult r = run_app({"ck-convert", stories_gguf().string(), "-o", dir.file("s.bump").string()});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("wrote " + dir.file("s.bump").string()) && Catch::Contains("98 tensor slots"));
  CHECK_NOTHROW(BumpFile::open(dir.file("s.bump"), {.verify = true}));

  std::filesystem::copy_file(stories_gguf(), dir.file("m.gguf"));
  CHECK(run_app({"ck-convert", dir.file("m.gguf").string()}).exit_code == 0);
  CHECK(std::filesystem::exists(dir.file("m.bump")));
  CHECK(std::filesystem::exists(dir.file("m.config.json")));

  const ProcessResult again = run_app({"ck-convert", dir.file("m.bump").string()});
  CHECK(again.exit_code == 1);
  CHECK_THAT(again.err, Catch::Contains("is already a bump file"));
}

TEST_CASE("ck-convert --inspect describes GGUF and bump files", "[app]") {
  const ProcessResult g = run_app({"ck-convert", "--inspect", stories_gguf().string()});
  CHECK(g.exit_code == 0);
  CHECK_THAT(g.out, Catch::Contains("GGUF version 3, alignment 32, data section at byte 14176") &&
                        Catch::Contains("tokenizer.ggml.tokens") && Catch::Contains("[string x 512] [\"<unk>\", \"<s>\"") &&
                        Catch::Contains("blk.4.ffn_up.weight") && Catch::Contains("64 x 172") &&
                        Catch::Contains("bytes per dtype") && Catch::Contains("F32      48 tensors"));

  ScratchDir dir;
  REQUIRE(run_app({"ck-convert", stories_gguf().string(), "-o", dir.file("s.bump").string()}).exit_code == 0);
  const ProcessResult b = run_app({"ck-convert", "--inspect", dir.file("s.bump").string()});
  CHECK(b.exit_code == 0);
  CHECK_THAT(b.out, Catch::Contains("bump (BUMPWGT3) version 4, model_type 1") &&
                        Catch::Contains("num_layers 5, vocab_size 512, embed_dim 64") &&
                        Catch::Contains("ck.tied_output") && Catch::Contains("blk.0.ffn_gate_up.weight") &&
                        Catch::Contains("tensor slots (98"));
}

TEST_CASE("ck-convert --dump writes the same values from a GGUF and its bump", "[app]") {
  ScratchDir dir;
  // stories260K (F32): the GGUF's values, whichever file they come from.
  REQUIRE(run_app({"ck-convert", stories_gguf().string(), "-o", dir.file("s.bump").string()}).exit_code == 0);
  for (const std::string name : {"token_embd.weight", "blk.1.ffn_up.weight", "output_norm.weight"}) {
    INFO(name);
    REQUIRE(run_app({"ck-convert", "--dump", name, stories_gguf().string(), "-o", dir.file("g.f32").string()}).exit_code == 0);
    REQUIRE(run_app({"ck-convert", "--dump", name, dir.file("s.bump").string(), "-o", dir.file("b.f32").string()}).exit_code == 0);
    CHECK(read_bytes(dir.file("g.f32")) == read_bytes(dir.file("b.f32")));
  }
  const ProcessResult missing = run_app({"ck-convert", "--dump", "nope", stories_gguf().string(), "-o", dir.file("x").string()});
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.err, Catch::Contains("no tensor named 'nope'"));
  const ProcessResult no_out = run_app({"ck-convert", "--dump", "token_embd.weight", stories_gguf().string()});
  CHECK(no_out.exit_code == 1);
  CHECK_THAT(no_out.err, Catch::Contains("--dump needs -o"));
}

TEST_CASE("ck-convert --help explains every flag", "[app]") {
  const ProcessResult r = run_app({"ck-convert", "--help"});
  CHECK(r.exit_code == 0);
  for (const char* flag : {"--inspect", "--dump", "--verify", "-o,--output", "--log-level", "-v,--verbose"}) {
    CHECK_THAT(r.out, Catch::Contains(flag));
  }
}

}  // namespace
}  // namespace ck::test
