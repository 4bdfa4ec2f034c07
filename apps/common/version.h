// The version every app prints with --version and ck-bench records as
// build_commit: the project version and the git commit of the build.
#pragma once
#include <string>
#include <string_view>

namespace ck::app {

// The short git commit the binaries were built from ("bbfe3ae"), or
// "unknown" when the source tree is not a git checkout.
std::string_view build_commit();

// "ck-run 0.1.0 (commit bbfe3ae), built with GCC 12.2.0 for x86_64".
std::string version_text(std::string_view app_name);

}  // namespace ck::app
