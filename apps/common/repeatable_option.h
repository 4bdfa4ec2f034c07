// A flag that may be given several times, one value each (-r A -r B,
// --logit-bias, --dry-sequence-breaker), as llama.cpp's are: CLI11 would
// otherwise let one occurrence swallow the arguments after it.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace ck::app {

inline CLI::Option* add_repeatable_option(CLI::App& app, const std::string& names, std::vector<std::string>& values,
                                          const std::string& help) {
  return app.add_option(names, values, help)->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

}  // namespace ck::app
