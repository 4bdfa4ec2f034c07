// The flags ck-run and ck-chat share, with llama.cpp's names and meanings:
// model, prompt (-p/-f), -n, -c, --context-shift, -ctk/-ctv, -t/-tb, -b, -s, the
// sampler, -sp, -e, -r, --verbose-prompt. One
// definition, so that a flag means the same and is checked with the same
// message in both apps.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include <vector>

#include "apps/common/grammar_flags.h"
#include "apps/common/kv_cache_flags.h"
#include "apps/common/sampling_flags.h"

namespace ck::app {

struct GenerationOptions {
  std::string model;         // -m; empty = the default model (model_path.h)
  std::string bump_dir;      // --bump-dir; empty = $CK_BUMP_DIR or the default places (bump_dir_flag.h)
  std::string prompt;        // -p
  std::string prompt_file;   // -f
  int n_predict = -1;        // -n; -1 = until end of generation or a full context
  int n_ctx = 4096;          // -c; 0 = the model's training context (context_size.h)
  bool context_shift = false;  // --context-shift: a full context shifts (runtime/context_shift.h) instead of stopping
  KvCacheFlags kv_cache;     // -ctk/-ctv (kv_cache_flags.h)
  int n_threads = 0;         // -t; 0 = one per physical core; the count itself after validation
  int n_threads_batch = 0;   // -tb; 0 = same as -t; the count itself after validation
  int n_batch = 512;         // -b; prompt tokens per forward pass
  int64_t seed = -1;         // -s; -1 = random
  SamplingOptions sampling;  // --temp --top-k ... (sampling_flags.h)
  bool special = false;      // -sp: print special tokens (<|im_end|>, ...) as text
  bool escape = true;        // -e / --no-escape: process escapes in -p, -f, -r (escapes.h)
  std::vector<std::string> reverse_prompts;  // -r: stop strings
  bool verbose_prompt = false;               // --verbose-prompt
  GrammarOptions grammar;                    // --grammar, --json-schema (grammar_flags.h)

  // Set by validate_generation_options from what was on the command line.
  bool prompt_given = false;  // -p (an empty one is an error)
  bool n_ctx_given = false;   // -c: never lowered silently
  KvCacheTypes kv_types;      // -ctk/-ctv parsed
};

// `prompt_help` says what -p is in this app (a text to continue, the first
// chat message, ...).
void add_generation_flags(CLI::App& app, GenerationOptions& opts, std::string_view prompt_help);

// Checks the ranges that need no model, naming the flag; resolves -t/-tb to
// thread counts (warning above the CPU count) and --top-k <= 0 to "off";
// records which flags were given. Call after parsing.
void validate_generation_options(const CLI::App& app, GenerationOptions& opts);

// The prompt from -p or -f ("" when neither was given). -f drops one final
// newline, as llama.cpp does. Throws for both at once, an unreadable or empty
// file, an empty -p, or text that is not valid UTF-8 (naming "the prompt" or
// the file, the byte offset and, for a file, the line).
std::string read_prompt(const GenerationOptions& opts);

// The sampler parameters with the seed of -s (-1: Sampler::kRandomSeed).
SamplerParams seeded_params(const GenerationOptions& opts);

}  // namespace ck::app
