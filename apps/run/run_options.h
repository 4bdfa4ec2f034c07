// ck-run's command line: llama.cpp's flag names, our defaults, and the checks
// that need no model (the rest are in main.cc once the model is loaded).
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "runtime/sampler.h"

namespace ck::app {

struct RunOptions {
  std::string model;              // -m; empty = default_model_path()
  std::string prompt;             // -p
  bool prompt_given = false;      // -p on the command line (an empty one is an error)
  std::string prompt_file;        // -f
  int n_predict = -1;             // -n; -1 = until end of generation or a full context
  int n_ctx = 4096;               // -c; 0 = the model's training context
  bool n_ctx_given = false;       // -c on the command line: never capped silently
  int n_threads = 0;              // -t; set to default_threads() by add_run_flags
  int n_batch = 512;              // -b; prompt tokens per forward pass
  int64_t seed = -1;              // -s; -1 = random
  SamplerParams sampling;         // --temp --top-k --top-p --min-p --repeat-penalty --repeat-last-n
  bool no_display_prompt = false; // --no-display-prompt
  bool chat = false;              // --chat / -cnv
  bool no_chat = false;           // --no-chat / -no-cnv
};

void add_run_flags(CLI::App& app, RunOptions& opts);

// Checks the ranges that do not depend on the model; throws naming the flag.
void validate_run_options(const RunOptions& opts);

// The prompt from -p or -f ("" when neither was given); throws for both at
// once, an unreadable file, an empty prompt, or one that is not valid UTF-8
// (naming "the prompt" or the file, the byte offset and, for a file, the line).
std::string read_prompt(const RunOptions& opts);

}  // namespace ck::app
