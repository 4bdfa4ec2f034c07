// The first-run step: find or make the bump for a model path (convert.h).
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "loader/bump_file.h"
#include "loader/bump_layout.h"
#include "loader/convert.h"
#include "loader/sha256.h"
#include "loader/source_fingerprint.h"

namespace ck {

namespace {

namespace fs = std::filesystem;

enum class FileKind { Gguf, Bump };

FileKind sniff(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot open: " + std::strerror(errno));
  char magic[8] = {};
  in.read(magic, sizeof magic);
  if (in.gcount() >= 4 && std::memcmp(magic, "GGUF", 4) == 0) return FileKind::Gguf;
  if (in.gcount() == 8 && std::memcmp(magic, kBumpMagic, 8) == 0) return FileKind::Bump;
  throw std::runtime_error(path.string() + ": byte 0: not a GGUF or bump file (magic is neither \"GGUF\" nor \"BUMPWGT3\")");
}

fs::path cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "ck";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "ck";
  throw std::runtime_error("no cache folder for converted models: neither XDG_CACHE_HOME nor HOME is set");
}

bool writable_dir(const fs::path& dir) { return ::access(dir.c_str(), W_OK | X_OK) == 0; }

// True when `bump` exists, loads, and records exactly this source.
bool bump_matches(const fs::path& bump, const SourceFingerprint& fp) {
  std::error_code ec;
  if (!fs::exists(bump, ec)) return false;
  try {
    const BumpFile b = BumpFile::open(bump);
    const auto recorded = recorded_fingerprint(b.metadata());
    if (recorded && *recorded == fp) return true;
    spdlog::info("{} was made from another version of its GGUF; converting again", bump.string());
  } catch (const std::exception& e) {
    spdlog::info("{} is unusable ({}); converting again", bump.string(), e.what());
  }
  return false;
}

}  // namespace

fs::path prepare_model(const fs::path& path) {
  if (sniff(path) == FileKind::Bump) return path;
  const SourceFingerprint fp = fingerprint_file(path);
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const fs::path beside = folder / (path.stem().string() + ".bump");
  // Cache names carry a hash of the source's absolute path: two models with
  // the same file name in different folders must not share a cache entry.
  const std::string abs = fs::absolute(path).lexically_normal().string();
  const std::string tag = to_hex(sha256({reinterpret_cast<const uint8_t*>(abs.data()), abs.size()})).substr(0, 12);
  const fs::path cached = cache_dir() / (path.stem().string() + "." + tag + ".bump");

  for (const fs::path& candidate : {beside, cached}) {
    if (bump_matches(candidate, fp)) {
      spdlog::info("using {} (converted from {})", candidate.string(), path.string());
      return candidate;
    }
  }
  fs::path target = beside;
  if (!writable_dir(folder)) {
    fs::create_directories(cached.parent_path());
    target = cached;
  }
  spdlog::info("converting {} -> {}", path.string(), target.string());
  std::fprintf(stderr, "ck: converting %s to %s (once; later runs reuse it)\n", path.string().c_str(),
               target.string().c_str());
  convert_gguf_to_bump(path, target, true);
  return target;
}

}  // namespace ck
