// The first-run step: find or make the bump for a model path (convert.h).
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>

#include "loader/bump_cache.h"
#include "loader/bump_file.h"
#include "loader/bump_layout.h"
#include "loader/convert.h"
#include "loader/file_kind.h"
#include "loader/sha256.h"
#include "loader/source_fingerprint.h"

namespace ck {

namespace {

namespace fs = std::filesystem;

// access() says yes to root for every folder, so a folder whose mode has no
// write bit at all (a read-only data folder such as ../shared/data) also
// counts as not writable: a conversion must never drop files into it.
bool writable_dir(const fs::path& dir) {
  std::error_code ec;
  const fs::perms p = fs::status(dir, ec).permissions();
  if (ec) return false;
  const fs::perms any_write = fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write;
  return (p & any_write) != fs::perms::none && ::access(dir.c_str(), W_OK | X_OK) == 0;
}

// True when `bump` exists, loads, and records exactly this source.
bool bump_matches(const fs::path& bump, const SourceFingerprint& fp) {
  std::error_code ec;
  if (!fs::exists(bump, ec)) return false;
  try {
    const BumpFile b = BumpFile::open(bump);
    const auto recorded = recorded_fingerprint(b.metadata());
    if (recorded && *recorded == fp) return true;
    if (recorded && recorded->converter != fp.converter) {
      spdlog::info("{} was made by an older converter (version {}, now {}); converting again", bump.string(),
                   recorded->converter, fp.converter);
    } else {
      spdlog::info("{} was made from another version of its GGUF; converting again", bump.string());
    }
  } catch (const std::exception& e) {
    spdlog::info("{} is unusable ({}); converting again", bump.string(), e.what());
  }
  return false;
}

}  // namespace

fs::path prepare_model(const fs::path& path, const ConvertProgress& progress, const fs::path& bump_dir) {
  if (detect_file_kind(path) == FileKind::Bump) return path;
  const SourceFingerprint fp = fingerprint_file(path);
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const fs::path cached = cached_bump_path(path, bump_dir);
  // A folder the user chose is the only place looked at and written to.
  const bool chosen = !chosen_bump_dir(bump_dir).empty();
  const fs::path beside = chosen ? fs::path() : folder / (path.stem().string() + ".bump");

  for (const fs::path& candidate : {beside, cached}) {
    if (!candidate.empty() && bump_matches(candidate, fp)) {
      spdlog::info("using {} (converted from {})", candidate.string(), path.string());
      return candidate;
    }
  }
  fs::path target = beside;
  if (chosen || !writable_dir(folder)) {
    if (cached.empty()) {
      throw std::runtime_error(folder.string() + " is not writable and neither XDG_CACHE_HOME nor HOME is set: " +
                               "nowhere to put the converted " + path.filename().string() +
                               " (--bump-dir DIR or CK_BUMP_DIR chooses a folder)");
    }
    std::error_code ec;
    fs::create_directories(cached.parent_path(), ec);
    if (ec) {
      throw std::runtime_error("cannot create the folder " + cached.parent_path().string() + " for the bump (" +
                               ec.message() + ")");
    }
    target = cached;
  }
  // The notice waits for the first progress report, which comes once the GGUF
  // has been validated: a file about to be refused is not announced as being
  // converted.
  bool announced = false;
  convert_gguf_to_bump(path, target, [&](uint64_t done, uint64_t total) {
    if (!announced) {
      announced = true;
      spdlog::info("converting {} -> {}", path.string(), target.string());
      std::fprintf(stderr, "ck: converting %s to %s (once; later runs reuse it)\n", path.string().c_str(),
                   target.string().c_str());
    }
    if (progress) progress(done, total);
  });
  return target;
}

}  // namespace ck
