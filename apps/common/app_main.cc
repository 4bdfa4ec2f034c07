#include "apps/common/app_main.h"

#include "apps/common/wait_policy.h"

#include <signal.h>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

namespace ck::app {
namespace {
// Before main: see wait_policy.h.
const bool g_wait_policy_chosen = (choose_omp_wait_policy(), true);
}  // namespace

int run_app(CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
  std::string log_level = "warn";
  bool verbose = false;
  app.add_option("--log-level", log_level, "Log level on stderr: trace, debug, info, warn, error, off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}))
      ->capture_default_str();
  app.add_flag("-v,--verbose", verbose, "Same as --log-level info");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  auto logger = spdlog::stderr_color_mt("ck");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
  spdlog::set_level(spdlog::level::from_str(verbose && log_level == "warn" ? "info" : log_level));
  try {
    return body();
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s: error: %s\n", app.get_name().c_str(), e.what());
    return 1;
  }
}

std::filesystem::path default_model_path() {
  if (const char* env = std::getenv("CK_MODEL"); env && *env) return env;
  return std::filesystem::path(CK_MODELS_DIR) / "SmolLM2-135M-Instruct.Q4_1.gguf";
}

void unblock_sigint() {
  sigset_t sigint;
  sigemptyset(&sigint);
  sigaddset(&sigint, SIGINT);
  pthread_sigmask(SIG_UNBLOCK, &sigint, nullptr);
}

}  // namespace ck::app
