#include "apps/common/kv_cache_flags.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace ck::app {
namespace {

// llama.cpp's other values of -ctk/-ctv (its quantized and bf16 caches).
constexpr std::string_view kLlamaOnlyTypes[] = {"bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"};

constexpr std::string_view kSupported = "ck's KV cache holds f16 (the default) or f32";

}  // namespace

void add_kv_cache_flags(CLI::App& app, KvCacheFlags& f) {
  app.add_option("--cache-type-k", f.key,
                 "KV cache type of the keys, f16 or f32, as llama.cpp's -ctk (its quantized types are not "
                 "implemented; also -ctk)")
      ->capture_default_str();
  app.add_option("--cache-type-v", f.value, "KV cache type of the values, f16 or f32 (also -ctv)")
      ->capture_default_str();
}

bool parse_kv_cache_type(std::string_view value, std::string_view flag) {
  if (value == "f16") return true;
  if (value == "f32") return false;
  const std::string head = std::string(flag) + " " + std::string(value) + ": ";
  if (std::ranges::find(kLlamaOnlyTypes, value) != std::end(kLlamaOnlyTypes)) {
    throw std::runtime_error(head + "llama.cpp's " + std::string(value) + " cache is not implemented in ck; " +
                             std::string(kSupported));
  }
  throw std::runtime_error(head + "not a KV cache type; " + std::string(kSupported));
}

KvCacheTypes kv_cache_types(const KvCacheFlags& f) {
  return {.key_f16 = parse_kv_cache_type(f.key, "-ctk/--cache-type-k"),
          .value_f16 = parse_kv_cache_type(f.value, "-ctv/--cache-type-v")};
}

std::string_view kv_type_name(bool f16) { return f16 ? "f16" : "f32"; }

std::string kv_cache_summary(const ModelConfig& c, int n_ctx, int n_seq, KvCacheTypes kv) {
  const double rows = static_cast<double>(n_seq) * c.n_layers * n_ctx * c.kv_dim();
  const double bytes = rows * ((kv.key_f16 ? 2 : 4) + (kv.value_f16 ? 2 : 4));
  const int unit = bytes < (1 << 20) ? 1 : bytes < (1 << 30) ? 2 : 3;
  char size[32];
  std::snprintf(size, sizeof size, "%.1f %s", bytes / std::pow(1024.0, unit),
                unit == 1 ? "KiB" : unit == 2 ? "MiB" : "GiB");
  const std::string slots = n_seq > 1 ? std::to_string(n_seq) + " slots x " : "";
  char buf[200];
  if (kv.key_f16 == kv.value_f16) {
    std::snprintf(buf, sizeof buf, "KV cache: 2 x %s%d layers x %d ctx x %d %s = %s", slots.c_str(), c.n_layers, n_ctx,
                  c.kv_dim(), kv_type_name(kv.key_f16).data(), size);
  } else {
    std::snprintf(buf, sizeof buf, "KV cache: %s%d layers x %d ctx x %d x (K %s + V %s) = %s", slots.c_str(),
                  c.n_layers, n_ctx, c.kv_dim(), kv_type_name(kv.key_f16).data(), kv_type_name(kv.value_f16).data(),
                  size);
  }
  return buf;
}

}  // namespace ck::app
