#include "loader/bump_cache.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "loader/sha256.h"

namespace ck {

namespace fs = std::filesystem;

fs::path chosen_bump_dir(const fs::path& bump_dir) {
  if (!bump_dir.empty()) return bump_dir;
  if (const char* env = std::getenv("CK_BUMP_DIR"); env && *env) return env;
  return {};
}

fs::path bump_cache_dir(const fs::path& bump_dir) {
  if (fs::path chosen = chosen_bump_dir(bump_dir); !chosen.empty()) return chosen;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "ck";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "ck";
  return {};
}

fs::path cached_bump_path(const fs::path& gguf, const fs::path& bump_dir) {
  const fs::path dir = bump_cache_dir(bump_dir);
  if (dir.empty()) return {};
  const std::string abs = fs::absolute(gguf).lexically_normal().string();
  const std::string tag = to_hex(sha256({reinterpret_cast<const uint8_t*>(abs.data()), abs.size()})).substr(0, 12);
  return dir / (gguf.stem().string() + "." + tag + ".bump");
}

std::vector<fs::path> cached_bumps(const fs::path& bump_dir) {
  std::vector<fs::path> bumps;
  const fs::path dir = bump_cache_dir(bump_dir);
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return bumps;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file(ec) && e.path().extension() == ".bump") bumps.push_back(e.path());
  }
  std::sort(bumps.begin(), bumps.end());
  return bumps;
}

}  // namespace ck
