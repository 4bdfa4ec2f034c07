// ck-run's command line: the generation flags it shares with ck-chat
// (apps/common/generation_flags.h) plus its own, with llama.cpp's names.
#pragma once
#include <CLI/CLI.hpp>

#include "apps/common/generation_flags.h"

namespace ck::app {

struct RunOptions {
  GenerationOptions gen;
  bool no_display_prompt = false;  // --no-display-prompt
  bool chat = false;               // --chat / -cnv
  bool no_chat = false;            // --no-chat / -no-cnv
  int keep = 0;                    // --keep: prompt tokens a context shift keeps after BOS; -1 = all
};

void add_run_flags(CLI::App& app, RunOptions& opts);

// validate_generation_options plus ck-run's own checks; throws naming the flag.
void validate_run_options(const CLI::App& app, RunOptions& opts);

}  // namespace ck::app
