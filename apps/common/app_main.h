// What every ck app shares: the logging flags, --version, llama.cpp's flag
// spellings, and the error convention: bad input (a usage error or any
// exception from the app's body) is one line "NAME: error: ..." on stderr and
// exit code 1, never an uncaught exception.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

#include "apps/common/flag_aliases.h"

namespace ck::app {

// Adds --log-level, -v/--verbose and --version to `app`, respells and
// filters argv by `spellings` (flag_aliases.h; notes for ignored flags go to
// stderr as "NAME: note: ..."), parses, configures spdlog (stderr), then runs
// `body`. Returns the exit code: 0 for --help and --version, 1 for a usage
// error or an exception escaping `body`, else body's.
int run_app(CLI::App& app, int argc, char** argv, const FlagSpellings& spellings, const std::function<int()>& body);
int run_app(CLI::App& app, int argc, char** argv, const std::function<int()>& body);

// Unblocks SIGINT in the calling thread: a parent may hand it down blocked
// (some job runners do), and an app that installs a Ctrl-C handler needs it.
void unblock_sigint();

}  // namespace ck::app
