// GGUF -> bump conversion, and the first-run step that finds or makes the
// bump for a model path. docs/bump-format.md describes the output.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>

#include "loader/bump_cache.h"

namespace ck {

// Called as conversion advances: source bytes done out of total. Apps pass
// their progress bar (apps/common/progress.h); libraries draw nothing.
using ConvertProgress = std::function<void(uint64_t done, uint64_t total)>;

struct ConvertStats {
  uint64_t bytes_written = 0;  // size of the bump file
  size_t slots = 0;            // tensor slots in the dtype table
  size_t transcoded = 0;       // source tensors re-encoded (logged one by one)
  double seconds = 0;
};

// Validates `gguf` against what the runtime supports (architecture, required
// tensors, shapes, GQA ratio, block alignment) before writing anything, then
// streams `bump` through a temporary file that is fsynced and renamed into
// place, and writes the seeds' config.json beside it (config_json_path).
// Types without a native kernel are transcoded to Q8_0 (F32 when the row
// length is not a multiple of 32); vectors become F32.
ConvertStats convert_gguf_to_bump(const std::filesystem::path& gguf, const std::filesystem::path& bump,
                                  const ConvertProgress& progress = {});

// "<folder>/<stem>.config.json" for "<folder>/<stem>.bump".
std::filesystem::path config_json_path(const std::filesystem::path& bump);

// A .bump file is returned as is. A .gguf file is matched to an existing bump
// (next to it, else in $XDG_CACHE_HOME/ck or ~/.cache/ck) by the source size,
// mtime and a SHA-256 of its first MiB recorded in the bump; when none
// matches it is converted next to it when that folder is writable, else into
// the cache folder. When the user chose a folder (`bump_dir`, else
// $CK_BUMP_DIR), the bump is looked for and made there only, as
// cached_bump_path(gguf, bump_dir) (bump_cache.h). The file kind is recognised by its magic, not its name.
// A conversion prints a one-line notice on stderr, once the GGUF has been
// validated (a file about to be refused is not announced), and reports to
// `progress`.
std::filesystem::path prepare_model(const std::filesystem::path& path, const ConvertProgress& progress = {},
                                    const std::filesystem::path& bump_dir = {});

}  // namespace ck
