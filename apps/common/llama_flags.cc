#include "apps/common/llama_flags.h"

#include <iterator>
#include <vector>

namespace ck::app {
namespace {

constexpr std::string_view kCpuOnly = "ck runs on the CPU only";
constexpr std::string_view kMapped = "ck always memory-maps the weights (the .bump file)";

// Each alias applies only where the app has the target option, so that one
// table serves every app: ck-perplexity has no --system-prompt, and -sys there
// is refused as unknown.
constexpr FlagAlias kCommonAliases[] = {
    {"-sys", "--system-prompt"},     {"-sysf", "--system-prompt-file"},
    {"-cnv", "--conversation"},      {"-no-cnv", "--no-conversation"},
    {"-st", "--single-turn"},        {"-tb", "--threads-batch"},
    {"-sp", "--special"},            {"--predict", "--n-predict"},
    {"-jf", "--json-schema-file"},   {"-ctk", "--cache-type-k"},
    {"-ctv", "--cache-type-v"},
    // Not llama.cpp's (its flag is --no-display-prompt), but typed by analogy
    // with -no-cnv often enough to accept.
    {"-no-display-prompt", "--no-display-prompt"},
};

constexpr IgnoredFlag kCommonIgnored[] = {
    {"-ngl --gpu-layers --n-gpu-layers", IgnoredValue::One, kCpuOnly},
    {"-sm --split-mode", IgnoredValue::One, kCpuOnly},
    {"-ts --tensor-split", IgnoredValue::One, kCpuOnly},
    {"-mg --main-gpu", IgnoredValue::One, kCpuOnly},
    {"-dev --device", IgnoredValue::One, kCpuOnly},
    {"-ot --override-tensor", IgnoredValue::One, kCpuOnly},
    {"-ncmoe --n-cpu-moe", IgnoredValue::One, kCpuOnly},
    {"-fit --fit", IgnoredValue::One, kCpuOnly},
    {"-fitt --fit-target", IgnoredValue::One, kCpuOnly},
    {"-fitc --fit-ctx", IgnoredValue::One, kCpuOnly},
    {"-kvo --kv-offload -nkvo --no-kv-offload", IgnoredValue::None, kCpuOnly},
    {"-cmoe --cpu-moe --no-host --op-offload --no-op-offload", IgnoredValue::None, kCpuOnly},
    {"-fa --flash-attn", IgnoredValue::OptionalSwitch,
     "ck's attention is one fused CPU loop, there is no other kind to switch to"},
    {"-ub --ubatch-size", IgnoredValue::One, "ck has one batch size, -b"},
    {"--mmap --no-mmap --mlock", IgnoredValue::None, kMapped},
    {"-nr --no-repack --repack", IgnoredValue::None, "ck uses the weights as the bump file lays them out"},
    {"--numa", IgnoredValue::One, "ck does no NUMA placement"},
    {"--warmup --no-warmup", IgnoredValue::None, "ck runs no warm-up pass"},
    {"--perf --no-perf", IgnoredValue::None, "ck always reports its timings"},
    {"--jinja --no-jinja", IgnoredValue::None,
     "ck never runs a template's Jinja, it renders the recognised template family itself (--chat-template)"},
    {"-mli --multiline-input", IgnoredValue::None,
     "the chat keeps pasted lines as one message and joins lines ending in \\ already"},
    {"-co --color", IgnoredValue::OptionalSwitch, "ck colours its notices whenever stderr is a terminal"},
    {"-dt --defrag-thold", IgnoredValue::One, "ck's KV cache needs no defragmentation"},
};

constexpr FlagAlias kServerAliases[] = {{"-np", "--parallel"}, {"-to", "--timeout"}};
constexpr IgnoredFlag kServerIgnored[] = {
    {"-cb --cont-batching", IgnoredValue::None, "ck-server always batches continuously"},
    {"--metrics", IgnoredValue::None, "ck-server always serves /metrics"},
    {"--slots --no-slots", IgnoredValue::None, "ck-server has no /slots endpoint; /metrics shows the slots"},
    {"--webui --no-webui", IgnoredValue::None, "ck-server always serves its chat page at /"},
};

// The common tables followed by the server's.
template <typename T, size_t A, size_t B>
std::vector<T> joined(const T (&a)[A], const T (&b)[B]) {
  std::vector<T> out(std::begin(a), std::end(a));
  out.insert(out.end(), std::begin(b), std::end(b));
  return out;
}

constexpr FlagAlias kBenchAliases[] = {{"-pg", "--pg"}, {"-ctk", "--cache-type-k"}, {"-ctv", "--cache-type-v"}};

// llama-bench's flags take comma-separated lists ("-ngl 0,99", "-fa 0,1"),
// always one argument.
constexpr IgnoredFlag kBenchIgnored[] = {
    {"-ngl --n-gpu-layers -sm --split-mode -mg --main-gpu -ts --tensor-split -dev --device -nkvo --no-kv-offload "
     "-ot --override-tensors -ncmoe --n-cpu-moe -nopo --no-op-offload",
     IgnoredValue::One, kCpuOnly},
    {"-fa --flash-attn", IgnoredValue::One,
     "ck's attention is one fused CPU loop, there is no other kind to switch to"},
    {"-ub --ubatch-size", IgnoredValue::One, "ck has one batch size, -b"},
    {"-mmp --mmap", IgnoredValue::One, kMapped},
    {"--numa", IgnoredValue::One, "ck does no NUMA placement"},
    {"--progress", IgnoredValue::None, "ck-bench shows its progress whenever stderr is a terminal"},
};

}  // namespace

const FlagSpellings& llama_common_flags() {
  static const FlagSpellings s{kCommonAliases, kCommonIgnored};
  return s;
}

const FlagSpellings& llama_server_flags() {
  static const std::vector<FlagAlias> aliases = joined(kCommonAliases, kServerAliases);
  static const std::vector<IgnoredFlag> ignored = joined(kCommonIgnored, kServerIgnored);
  static const FlagSpellings s{aliases, ignored};
  return s;
}

const FlagSpellings& llama_bench_flags() {
  static const FlagSpellings s{kBenchAliases, kBenchIgnored};
  return s;
}

}  // namespace ck::app
