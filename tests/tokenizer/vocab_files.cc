#include "tests/tokenizer/vocab_files.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ck::test {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace ck::test
