#include "apps/common/app_main.h"

#include <signal.h>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <exception>
#include <string>

#include "apps/common/version.h"
#include "apps/common/wait_policy.h"

namespace ck::app {
namespace {

// Before main: see wait_policy.h.
const bool g_wait_policy_chosen = (choose_omp_wait_policy(), true);

// CLI11's messages can span lines; the convention is one.
std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n') c = ' ';
  }
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

int usage_error(const CLI::App& app, const std::string& what) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: error: %s (see %s --help)\n", app.get_name().c_str(), one_line(what).c_str(),
               app.get_name().c_str());
  return 1;
}

}  // namespace

int run_app(CLI::App& app, int argc, char** argv, const FlagSpellings& spellings, const std::function<int()>& body) {
  std::string log_level = "warn";
  bool verbose = false;
  app.add_option("--log-level", log_level,
                 "Log level on stderr: trace, debug (also the chat template, SIMD target and rendered prompt), "
                 "info, warn, error, off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}))
      ->capture_default_str();
  app.add_flag("-v,--verbose", verbose, "Same as --log-level info");
  app.set_version_flag("--version", version_text(app.get_name()), "Print the version and the commit built, then exit");
  if (const std::string s = describe_spellings(app, spellings); !s.empty()) {
    app.footer(app.get_footer().empty() ? s : app.get_footer() + "\n\n" + s);
  }
  NormalizedArgs args;
  try {
    args = normalize_args(app, std::vector<std::string>(argv, argv + argc), spellings);
    std::vector<std::string> rest(args.args.rbegin(), args.args.rend() - 1);  // CLI11 wants them reversed
    app.parse(rest);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return usage_error(app, e.what());
  } catch (const std::invalid_argument& e) {  // normalize_args: an unknown flag
    return usage_error(app, e.what());
  }
  for (const std::string& note : args.notes) {
    std::fprintf(stderr, "%s: note: %s\n", app.get_name().c_str(), note.c_str());
  }
  auto logger = spdlog::stderr_color_mt("ck");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
  spdlog::set_level(spdlog::level::from_str(verbose && log_level == "warn" ? "info" : log_level));
  try {
    return body();
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s: error: %s\n", app.get_name().c_str(), one_line(e.what()).c_str());
    return 1;
  }
}

int run_app(CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
  static const FlagSpellings kNone{};
  return run_app(app, argc, argv, kNone, body);
}

void unblock_sigint() {
  sigset_t sigint;
  sigemptyset(&sigint);
  sigaddset(&sigint, SIGINT);
  pthread_sigmask(SIG_UNBLOCK, &sigint, nullptr);
}

}  // namespace ck::app
