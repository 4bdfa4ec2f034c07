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

// Where and how the child runs, beyond its arguments and stdin.
struct ProcessOptions {
  std::vector<std::pair<std::string, std::string>> set_env;  // variables set in the child
  std::vector<std::string> unset_env;                        // variables removed in the child
  std::string cwd;         // working directory; empty = the test's
  std::string executable;  // a path to run instead of ${CK_BINARY_DIR}/bin/argv[0]
};

// argv[0] is a program name under ${CK_BINARY_DIR}/bin. `input` goes to stdin.
ProcessResult run_app(const std::vector<std::string>& argv, const std::string& input = "",
                      const ProcessOptions& opts = {});

std::string app_path(const std::string& name);

// A path in the temporary folder unique to this test process, so suites
// running side by side (several build folders) never share files.
std::string temp_path(const std::string& name);

}  // namespace ck::test
