#include "apps/convert/cache.h"

#include <cstdint>
#include <cstdio>
#include <stdexcept>

#include "apps/common/plural.h"
#include "loader/bump_cache.h"
#include "loader/convert.h"

namespace ck::convert {
namespace {

namespace fs = std::filesystem;

fs::path folder(const fs::path& bump_dir) {
  const fs::path dir = bump_cache_dir(bump_dir);
  if (dir.empty()) throw std::runtime_error("no cache folder: none of --bump-dir, CK_BUMP_DIR, XDG_CACHE_HOME, HOME is set");
  return dir;
}

}  // namespace

int list_cache(const fs::path& bump_dir) {
  const fs::path dir = folder(bump_dir);
  uint64_t total = 0;
  const auto bumps = cached_bumps(bump_dir);
  for (const fs::path& b : bumps) {
    const uint64_t size = fs::file_size(b);
    total += size;
    std::printf("%10.1f MB  %s\n", size / 1e6, b.c_str());
  }
  std::printf("%s, %.1f MB in %s\n", app::count_of(static_cast<long long>(bumps.size()), "bump").c_str(), total / 1e6,
              dir.c_str());
  return 0;
}

int clean_cache(const fs::path& bump_dir) {
  const fs::path dir = folder(bump_dir);
  uint64_t freed = 0;
  const auto bumps = cached_bumps(bump_dir);
  for (const fs::path& b : bumps) {
    freed += fs::file_size(b);
    fs::remove(b);
    std::error_code ec;
    fs::remove(config_json_path(b), ec);  // written beside every bump; may be gone already
    std::printf("removed %s\n", b.c_str());
  }
  std::printf("removed %s from %s, %.1f MB freed\n", app::count_of(static_cast<long long>(bumps.size()), "bump").c_str(),
              dir.c_str(), freed / 1e6);
  return 0;
}

}  // namespace ck::convert
