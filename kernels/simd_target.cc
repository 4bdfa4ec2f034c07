// Target forcing through Highway's SetSupportedTargetsForTest mock (the
// mechanism Highway's own tests use to run every compiled target).
// active_simd_target() lives in gemv.cc, beside the dispatch it reports on.
#include "kernels/simd_target.h"

#include <hwy/highway.h>
#include <hwy/targets.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>

namespace ck {
namespace {

struct Target {
  std::string name;
  int64_t bit;
};

// Captured before any forcing: the mock changes what Highway reports.
const std::vector<Target>& real_targets() {
  static const std::vector<Target> targets = [] {
    std::vector<Target> out;
    for (int64_t bit : hwy::SupportedAndGeneratedTargets()) out.push_back({hwy::TargetName(bit), bit});
    return out;
  }();
  return targets;
}

void force_target(std::string_view name) {
  const std::vector<Target>& targets = real_targets();
  if (name.empty()) {
    hwy::SetSupportedTargetsForTest(0);
    return;
  }
  for (const Target& t : targets) {
    if (t.name == name) {
      hwy::SetSupportedTargetsForTest(t.bit);
      return;
    }
  }
  std::string known;
  for (const Target& t : targets) known += (known.empty() ? "" : ", ") + t.name;
  throw std::runtime_error("SIMD target '" + std::string(name) + "' is not available (available: " + known + ")");
}

}  // namespace

std::vector<std::string> available_simd_targets() {
  std::vector<std::string> names;
  for (const Target& t : real_targets()) names.push_back(t.name);
  return names;
}

void force_simd_target(std::string_view name) {
  apply_simd_target_from_env();  // consumed first, so that an explicit call wins over the environment
  force_target(name);
}

void apply_simd_target_from_env() {
  static std::once_flag once;
  std::call_once(once, [] {
    real_targets();
    if (const char* env = std::getenv("CK_SIMD_TARGET"); env != nullptr && *env != '\0') {
      try {
        force_target(env);
      } catch (const std::runtime_error& e) {
        throw std::runtime_error(std::string("CK_SIMD_TARGET: ") + e.what());
      }
    }
  });
}

}  // namespace ck
