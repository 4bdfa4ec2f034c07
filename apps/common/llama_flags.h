// llama.cpp's flag names that ck's command lines recognise beyond their own
// options (common/arg.cpp for ck-run, ck-chat and ck-perplexity; llama-bench's
// for ck-bench): respellings of its multi-letter single-dash flags, and the
// flags that have no meaning on a CPU runtime, accepted and ignored with a
// note. Every other unknown flag is refused naming it (flag_aliases.h).
#pragma once
#include "apps/common/flag_aliases.h"

namespace ck::app {

// ck-run, ck-chat, ck-perplexity (llama-cli, llama-completion, llama-perplexity).
const FlagSpellings& llama_common_flags();

// ck-server and ck-batch-bench (llama-server): the common ones and the
// server's own (-np, -cb, ...).
const FlagSpellings& llama_server_flags();

// ck-bench (llama-bench): its GPU and cache flags take value lists.
const FlagSpellings& llama_bench_flags();

}  // namespace ck::app
