// What every fuzz target does with a file that parsed: touch everything the
// loader handed out, so a view past the end of the input or a table the
// tokenizer cannot cope with shows up under ASan/UBSan as a crash.
#pragma once
#include <cstdint>
#include <span>

#include "loader/bump_file.h"
#include "loader/metadata.h"
#include "tokenizer/vocab.h"

namespace ck::fuzz {

// Turns spdlog off: the libraries warn about odd input (an unknown chat
// template, a transcoded tensor) and the fuzzers feed nothing else.
void quiet_logs();

// Aborts with `what` when `ok` is false: an invariant of the loader's
// contract broke even though it did not throw. libFuzzer keeps the input.
void require(bool ok, const char* what);

// Reads the first and last byte of `bytes` (ASan reports a view that leaves
// the input buffer).
void touch(std::span<const uint8_t> bytes);

// Decodes every value with the getter of its type (arrays element by element).
void walk_metadata(const Metadata& meta);

// Builds the tokenizer (which validates the vocabulary) and encodes and
// decodes a fixed text that exercises every pre-tokenizer branch.
void walk_vocab(const tok::VocabData& vocab);

// Every slot and layer view: inside `file` (the bytes `bump` was parsed
// from), rows * row bytes == bytes, columns a whole number of blocks, shaped
// as the config says; then the metadata.
void walk_bump(const BumpFile& bump, std::span<const uint8_t> file);

}  // namespace ck::fuzz
