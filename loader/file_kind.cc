#include "loader/file_kind.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "loader/bump_layout.h"

namespace ck {

FileKind detect_file_kind(const std::filesystem::path& path) {
  // An ifstream opens a directory on Linux and reads nothing from it, which
  // would be reported as a bad magic.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw std::runtime_error(path.string() + ": is a directory, not a model file (give the .gguf or .bump in it)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot open: " + std::strerror(errno));
  char magic[8] = {};
  in.read(magic, sizeof magic);
  if (in.gcount() >= 4 && std::memcmp(magic, "GGUF", 4) == 0) return FileKind::Gguf;
  if (in.gcount() == 8 && std::memcmp(magic, kBumpMagic, 8) == 0) return FileKind::Bump;
  throw std::runtime_error(path.string() + ": byte 0: not a GGUF or bump file (magic is neither \"GGUF\" nor \"BUMPWGT3\")");
}

}  // namespace ck
