// The bump loader on arbitrary bytes: header, dtype table, extension
// metadata, config, tokenizer; every view it hands out must stay inside the
// input and match its shape. Then the SHA-256 check, which must fail
// cleanly on anything the fuzzer changed.
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>

#include "loader/bump_file.h"
#include "tests/fuzz/walk.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ck::fuzz::quiet_logs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ck;
  const std::span<const uint8_t> bytes(data, size);
  try {
    const BumpFile bump = BumpFile::parse(bytes, "fuzz.bump");
    try {
      bump.verify();
    } catch (const std::runtime_error&) {
    }
    fuzz::walk_bump(bump, bytes);
    fuzz::walk_vocab(bump.vocab());
  } catch (const std::runtime_error&) {
  }
  return 0;
}
