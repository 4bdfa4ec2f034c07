// Where the model comes from when no -m is given. Resolved at run time, never
// a folder fixed at build time: $CK_MODEL first, then models/ of the checkout
// the executable belongs to (build/bin/ck-run -> models/ two folders up), then
// models/ in the working directory.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace ck::app {

inline constexpr std::string_view kDefaultModelName = "SmolLM2-135M-Instruct.Q4_1.gguf";

struct DefaultModel {
  std::filesystem::path path;
  std::string found_by;  // "$CK_MODEL", "the checkout of the executable", "the working directory"
};

// The default model; throws, naming every place looked at, when it is in none.
DefaultModel find_default_model();

// The model to load: `given` (-m) when not empty, else find_default_model(),
// announced on stderr as "APP: no -m given, using the default model PATH (from ...)".
std::filesystem::path model_or_default(const std::string& given, std::string_view app_name);

// For --help: how the default is found.
std::string default_model_help();

}  // namespace ck::app
