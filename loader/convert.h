// GGUF -> bump conversion, and the first-run step that finds or makes the
// bump for a model path. docs/bump-format.md describes the output.
#pragma once
#include <filesystem>

namespace ck {

// Validates `gguf` against what the runtime supports (architecture, required
// tensors, shapes, GQA ratio, block alignment) before writing anything, then
// streams `bump` through a temporary file that is fsynced and renamed into
// place, and writes the seeds' config.json beside it (config_json_path).
// Types without a native kernel are transcoded to Q8_0 (F32 when the row
// length is not a multiple of 32); vectors become F32. `progress`: draw a
// progress bar when stderr is a terminal.
void convert_gguf_to_bump(const std::filesystem::path& gguf, const std::filesystem::path& bump, bool progress);

// "<folder>/<stem>.config.json" for "<folder>/<stem>.bump".
std::filesystem::path config_json_path(const std::filesystem::path& bump);

// A .bump file is returned as is. A .gguf file is matched to an existing bump
// (next to it, else in $XDG_CACHE_HOME/ck or ~/.cache/ck) by the source size,
// mtime and a SHA-256 of its first MiB recorded in the bump; when none
// matches it is converted next to it when that folder is writable, else into
// the cache folder. The file kind is recognised by its magic, not its name.
std::filesystem::path prepare_model(const std::filesystem::path& path);

}  // namespace ck
