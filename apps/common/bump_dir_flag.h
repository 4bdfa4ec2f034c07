// --bump-dir DIR, on every app that converts a GGUF on first use (ck-run,
// ck-chat, ck-perplexity, ck-bench, ck-convert): the folder where the .bump
// is looked for and written (loader/bump_cache.h). Without it $CK_BUMP_DIR
// chooses; without both the bump goes beside the GGUF, or into
// ~/.cache/ck when that folder is not writable.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace ck::app {

void add_bump_dir_flag(CLI::App& app, std::string& dir);

}  // namespace ck::app
