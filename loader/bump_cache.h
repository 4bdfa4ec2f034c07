// Where converted bumps live when they are not beside their GGUF: the bump
// folder (--bump-dir / $CK_BUMP_DIR, where every conversion then goes), else
// the cache folder $XDG_CACHE_HOME/ck or ~/.cache/ck (used when the GGUF's
// folder is not writable). ck-convert --cache-list / --cache-clean show and
// remove what is there.
#pragma once
#include <filesystem>
#include <vector>

namespace ck {

// The folder chosen by the user: `bump_dir` when given, else $CK_BUMP_DIR;
// empty when neither is set.
std::filesystem::path chosen_bump_dir(const std::filesystem::path& bump_dir = {});

// chosen_bump_dir(bump_dir), else $XDG_CACHE_HOME/ck, else ~/.cache/ck;
// empty when none of these is set.
std::filesystem::path bump_cache_dir(const std::filesystem::path& bump_dir = {});

// bump_cache_dir(bump_dir) / "<stem>.<hash of the absolute path>.bump": two
// models with the same file name in different folders never share an entry.
// Empty when there is no such folder.
std::filesystem::path cached_bump_path(const std::filesystem::path& gguf, const std::filesystem::path& bump_dir = {});

// The .bump files in bump_cache_dir(bump_dir), sorted by name; none when the
// folder does not exist.
std::vector<std::filesystem::path> cached_bumps(const std::filesystem::path& bump_dir = {});

}  // namespace ck
