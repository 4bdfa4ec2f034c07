// -ctk/--cache-type-k and -ctv/--cache-type-v, llama.cpp's flags for the
// element types of the KV cache, in every app that builds a Session; and the
// one line each of them prints about the cache it allocates.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

#include "loader/model_config.h"
#include "runtime/run_state.h"

namespace ck::app {

// The flags' values as given (llama.cpp's spellings); f16 by default, as llama.cpp.
struct KvCacheFlags {
  std::string key = "f16";
  std::string value = "f16";
};

void add_kv_cache_flags(CLI::App& app, KvCacheFlags& flags);

// True for "f16", false for "f32". Throws naming `flag` and the value: one
// of llama.cpp's other cache types (q8_0, bf16, ...) is not implemented in ck,
// anything else is unknown; both messages list what is supported.
bool parse_kv_cache_type(std::string_view value, std::string_view flag);

// Both flags parsed (throws as parse_kv_cache_type).
KvCacheTypes kv_cache_types(const KvCacheFlags& flags);

std::string_view kv_type_name(bool f16);

// "KV cache: 2 x 30 layers x 4096 ctx x 192 f16 = 90.0 MiB": keys and values
// (each: layers x positions x KV width), per slot when there are several.
// The padding RunState adds (16 to 31 positions per key row) is not counted.
std::string kv_cache_summary(const ModelConfig& c, int n_ctx, int n_seq, KvCacheTypes kv);

}  // namespace ck::app
