// llama.cpp's command-line spellings on top of CLI11, before CLI11 parses:
// - its multi-letter single-dash flags (-sys, -cnv, -tb, -pg, ...) are
//   respelled as our long options (CLI11 only takes one-letter short names);
// - its flags that mean nothing on a CPU runtime (-ngl, -fa, -ub, ...) are
//   dropped with their value and a one-line note;
// - any other unknown flag is refused naming it, instead of being split into
//   a one-letter flag and a value ("-ngl 0" read as "-n gl 0");
// - a value is always taken as the value of the option before it, also when
//   it starts with a dash ("-p -hello", "--top-k -1"), as llama.cpp does.
#pragma once
#include <CLI/CLI.hpp>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ck::app {

// {"-sys", "--system-prompt"}: applied only when the app has the target option.
using FlagAlias = std::pair<std::string_view, std::string_view>;

// How an ignored flag takes its value: none (-nkvo), one (-ngl 99), or an
// optional switch value (-fa, -fa on, -fa off: llama.cpp took both forms).
enum class IgnoredValue { None, One, OptionalSwitch };

struct IgnoredFlag {
  std::string_view names;  // its spellings, space-separated: "-ngl --gpu-layers --n-gpu-layers"
  IgnoredValue value;
  std::string_view why;  // the note's reason: "ck runs on the CPU only"
};

struct FlagSpellings {
  std::span<const FlagAlias> aliases;
  std::span<const IgnoredFlag> ignored;
};

struct NormalizedArgs {
  std::vector<std::string> args;   // argv[0] included
  std::vector<std::string> notes;  // "-ngl 99 ignored: ck runs on the CPU only"
};

// Throws std::invalid_argument("unknown flag -xyz") for a flag `app` does not
// have. The app must have all its options (and --help/--version) added.
NormalizedArgs normalize_args(const CLI::App& app, std::vector<std::string> args, const FlagSpellings& spellings);

// For --help: the respellings that apply to `app` and the flags it ignores.
// Empty when `spellings` is.
std::string describe_spellings(const CLI::App& app, const FlagSpellings& spellings);

}  // namespace ck::app
