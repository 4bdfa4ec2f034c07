#include "apps/common/context_size.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace ck::app {

void check_context_flag(int n_ctx) {
  if (n_ctx < 0) {
    throw std::runtime_error("-c must be 0 (the model's context) or a number of tokens, got " + std::to_string(n_ctx));
  }
}

int resolve_context_size(int n_ctx, bool given, int trained, std::string_view app_name) {
  check_context_flag(n_ctx);
  if (n_ctx == 0) return trained;
  if (!given) return std::min(n_ctx, trained);
  if (n_ctx > trained) {
    std::fprintf(stderr,
                 "%.*s: warning: -c %d is more than the %d tokens the model was trained for; running with it, "
                 "but text past %d tokens is likely to degrade\n",
                 static_cast<int>(app_name.size()), app_name.data(), n_ctx, trained, trained);
  }
  return n_ctx;
}

}  // namespace ck::app
