// ck-convert --cache-list / --cache-clean: the bumps in the bump folder
// (--bump-dir, $CK_BUMP_DIR) or the cache folder (~/.cache/ck), listed with
// their sizes, or removed with their .config.json. Bumps beside their GGUF
// are not in a cache and are left alone.
#pragma once
#include <filesystem>

namespace ck::convert {

int list_cache(const std::filesystem::path& bump_dir);
int clean_cache(const std::filesystem::path& bump_dir);

}  // namespace ck::convert
