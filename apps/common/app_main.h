// What every ck app shares: the logging flags, the error convention (a clear
// message on stderr and exit code 1, never an uncaught exception), and where
// the default model lives.
#pragma once
#include <CLI/CLI.hpp>
#include <filesystem>
#include <functional>

namespace ck::app {

// Adds --log-level and -v/--verbose to `app`, parses argv, configures spdlog
// (stderr), then runs `body`. Returns the process exit code: CLI11's for
// --help and usage errors, 1 for any exception escaping `body`.
int run_app(CLI::App& app, int argc, char** argv, const std::function<int()>& body);

// The model used when no -m is given: models/SmolLM2-135M-Instruct.Q4_1.gguf
// (fetched by scripts/fetch-models.sh). CK_MODEL in the environment overrides.
std::filesystem::path default_model_path();

// Unblocks SIGINT in the calling thread: a parent may hand it down blocked
// (some job runners do), and an app that installs a Ctrl-C handler needs it.
void unblock_sigint();

}  // namespace ck::app
