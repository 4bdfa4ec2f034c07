#include "apps/common/context_shift_flags.h"

#include <stdexcept>

namespace ck::app {

void add_context_shift_flag(CLI::App& app, bool& context_shift, const std::string& kept, const std::string& without) {
  app.add_flag("--context-shift,!--no-context-shift", context_shift,
               "When the context is full, keep " + kept +
                   " and the newer half of the rest, which is evaluated again at its new positions, and go on. "
                   "Off by default: " + without);
}

void add_keep_flag(CLI::App& app, int& keep) {
  app.add_option("--keep", keep,
                 "Tokens of the prompt a context shift keeps at the start, after BOS; -1 = the whole prompt "
                 "(at most half the context)")
      ->capture_default_str();
}

void validate_keep(int keep) {
  if (keep < -1) throw std::runtime_error("--keep must be -1 (the whole prompt) or >= 0, got " + std::to_string(keep));
}

}  // namespace ck::app
