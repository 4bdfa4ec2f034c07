#include "apps/common/text_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "apps/common/utf8_input.h"

namespace ck::app {

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw std::runtime_error(path + ": is a directory, not a text file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open (" + std::strerror(errno) + ")");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw std::runtime_error(path + ": cannot read (" + std::strerror(errno) + ")");
  std::string s = text.str();
  require_utf8(s, path, /*with_line=*/true);
  return s;
}

std::string read_all_stdin() {
  std::ostringstream text;
  text << std::cin.rdbuf();
  if (std::cin.bad()) throw std::runtime_error(std::string("cannot read standard input (") + std::strerror(errno) + ")");
  return text.str();
}

void drop_final_newline(std::string& text) {
  if (text.empty() || text.back() != '\n') return;
  text.pop_back();
  if (!text.empty() && text.back() == '\r') text.pop_back();
}

}  // namespace ck::app
