// llama.cpp's escape processing of -p (on by default, -e/--escape; off with
// --no-escape): \n \r \t \' \" \\ and \xHH become the characters they name;
// a backslash before anything else stays as written.
#pragma once
#include <string>
#include <string_view>

namespace ck::app {

std::string process_escapes(std::string_view text);

}  // namespace ck::app
