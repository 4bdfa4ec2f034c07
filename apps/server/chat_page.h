// GET /: the chat page, chat_page.html compiled into the binary (CMake
// copies the file into a raw string literal at configure time: no other
// build step, nothing fetched).
#pragma once
#include <string_view>

namespace ck::server {

std::string_view chat_page_html();

}  // namespace ck::server
