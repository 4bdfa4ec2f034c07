// --context-shift / --no-context-shift and --keep, with llama.cpp's names and
// meanings, for ck-run, ck-chat and ck-server (the shift itself:
// runtime/context_shift.h).
#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace ck::app {

// `kept` says what stays at the start, `without` what a full context does
// when the flag is off.
void add_context_shift_flag(CLI::App& app, bool& context_shift, const std::string& kept, const std::string& without);

// --keep N: tokens of the prompt a shift keeps after BOS; -1 = the whole prompt.
void add_keep_flag(CLI::App& app, int& keep);

// Throws, naming --keep, for a value below -1.
void validate_keep(int keep);

}  // namespace ck::app
