// Runs an app of this build as a child process and captures what it printed,
// so tests check the programs exactly as users run them.
#pragma once
#include <string>
#include <vector>

namespace ck::test {

struct ProcessResult {
  int exit_code = -1;  // 128 + signal number when killed by a signal
  std::string out;
  std::string err;
};

// argv[0] is a program name under ${CK_BINARY_DIR}/bin. `input` goes to stdin.
ProcessResult run_app(const std::vector<std::string>& argv, const std::string& input = "");

std::string app_path(const std::string& name);

// A path in the temporary folder unique to this test process, so suites
// running side by side (several build folders) never share files.
std::string temp_path(const std::string& name);

}  // namespace ck::test
