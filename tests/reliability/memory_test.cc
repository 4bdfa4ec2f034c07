// A context whose KV cache and activations cannot fit in memory is refused
// before anything is allocated, with the number, instead of the process
// being killed. SmolLM2 patched to claim the largest training context the
// loader accepts (2^24 tokens) lets -c ask for about 770 GB of KV cache
// (30 layers x 2 x 192 x 4 bytes per token).
#include <catch2/catch.hpp>

#include "tests/kernels/oracle.h"
#include "tests/reliability/fixtures.h"
#include "tests/reliability/process.h"

using namespace ck::reliability;
using namespace std::chrono_literals;

TEST_CASE("a context that would not fit in memory is refused with the number", "[reliability][memory]") {
  REQUIRE(std::filesystem::exists(smollm_gguf()));  // scripts/fetch-models.sh
  ck::test::ScratchDir dir;
  std::vector<uint8_t> bytes = read_file(smollm_gguf());
  patch_u32(bytes, "llama.context_length", 1u << 24);
  const auto gguf = dir.file("huge-context.gguf"), bump = dir.file("huge-context.bump");
  write_file(gguf, bytes);
  REQUIRE(run({"ck-convert", gguf.string(), "-o", bump.string()}, {.timeout = 180s}).exit_code == 0);
  for (const char* ctx : {"16777216", "0"}) {  // 0 = the model's own context
    INFO("-c " << ctx);
    const Outcome o = run({"ck-run", "-m", bump.string(), "-c", ctx, "-p", "Hello", "-n", "1"});
    INFO(describe(o));
    CHECK(failed_cleanly(o));
    CHECK(o.err.find("context 16777216 needs") != std::string::npos);
    CHECK(o.err.find("MiB") != std::string::npos);
    CHECK(o.err.find("available") != std::string::npos);
  }
}
