#include "apps/common/version.h"

#include "ck_version.h"  // generated at build time (apps/common/write_version.cmake)

namespace ck::app {
namespace {

std::string compiler() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "GCC " __VERSION__;
#else
  return "an unknown compiler";
#endif
}

std::string target() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "an unknown CPU";
#endif
}

}  // namespace

std::string_view build_commit() { return CK_BUILD_COMMIT; }

std::string version_text(std::string_view app_name) {
  return std::string(app_name) + " " CK_VERSION " (commit " CK_BUILD_COMMIT "), built with " + compiler() + " for " +
         target();
}

}  // namespace ck::app
