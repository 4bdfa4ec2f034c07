// -c, the context size, with one meaning in every app (llama.cpp's): a
// number of tokens, 0 = the context the model was trained for. More than the
// trained context is allowed with a warning, as in llama.cpp.
#pragma once
#include <string_view>

namespace ck::app {

// Throws "-c must be 0 (the model's context) or a number of tokens, got N"
// for a negative value: the one range message of -c.
void check_context_flag(int n_ctx);

// The context to run with. `given`: -c was on the command line; otherwise
// `n_ctx` is the app's default and is lowered to the trained context when
// that is smaller. A given -c above the trained context prints
// "APP: warning: ..." on stderr and is used.
int resolve_context_size(int n_ctx, bool given, int trained, std::string_view app_name);

}  // namespace ck::app
