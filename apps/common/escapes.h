// llama.cpp's escape processing of -p (on by default, -e/--escape; off with
// --no-escape): \n \r \t \' \" \\ and \xHH become the characters they name;
// a backslash before anything else stays as written.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

namespace ck::app {

std::string process_escapes(std::string_view text);

// -e/--escape and --no-escape into `escape` (on by default); `applies_to`
// names the texts they process, for --help.
void add_escape_flag(CLI::App& app, bool& escape, const std::string& applies_to);

}  // namespace ck::app
