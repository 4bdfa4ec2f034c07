#include "apps/common/model_path.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace ck::app {
namespace {

namespace fs = std::filesystem;

// build/bin, build and the checkout itself: the folders a models/ folder of
// the executable's own checkout can be in (also for an installed bin/).
std::vector<fs::path> executable_checkout_dirs() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  std::vector<fs::path> dirs;
  if (ec || exe.empty()) return dirs;
  fs::path dir = exe.parent_path();
  for (int up = 0; up < 3 && !dir.empty(); ++up) {
    dirs.push_back(dir);
    if (dir == dir.root_path()) break;
    dir = dir.parent_path();
  }
  return dirs;
}

}  // namespace

DefaultModel find_default_model() {
  if (const char* env = std::getenv("CK_MODEL"); env && *env) {
    if (!fs::exists(env)) throw std::runtime_error(std::string("CK_MODEL names ") + env + ", which does not exist");
    return {env, "$CK_MODEL"};
  }
  std::string looked;
  for (const fs::path& dir : executable_checkout_dirs()) {
    const fs::path p = dir / "models" / kDefaultModelName;
    if (fs::exists(p)) return {p, "the checkout of the executable"};
    looked += (looked.empty() ? "" : ", ") + (dir / "models").string();
  }
  const fs::path here = fs::path("models") / kDefaultModelName;
  if (fs::exists(here)) return {here, "the working directory"};
  looked += (looked.empty() ? "" : ", ") + (fs::current_path() / "models").string();
  throw std::runtime_error("no -m given and the default model " + std::string(kDefaultModelName) +
                           " is in none of " + looked + ": run scripts/fetch-models.sh, set CK_MODEL or give -m");
}

std::filesystem::path model_or_default(const std::string& given, std::string_view app_name) {
  if (!given.empty()) return given;
  const DefaultModel m = find_default_model();
  std::fprintf(stderr, "%.*s: no -m given, using the default model %s (from %s)\n", static_cast<int>(app_name.size()),
               app_name.data(), m.path.c_str(), m.found_by.c_str());
  return m.path;
}

std::string default_model_help() {
  return "default: $CK_MODEL, else models/" + std::string(kDefaultModelName) +
         " in the checkout this program is in (models/ beside build/), else in the working directory";
}

}  // namespace ck::app
