#include "tests/reliability/fixtures.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "tests/kernels/oracle.h"
#include "tests/reliability/process.h"

namespace ck::reliability {

namespace fs = std::filesystem;

fs::path stories_gguf() { return fs::path(CK_SHARED_DATA) / "models" / "stories260K.gguf"; }
fs::path smollm_gguf() { return fs::path(CK_MODELS_DIR) / "SmolLM2-135M-Instruct.Q4_1.gguf"; }
fs::path wikitext_test() { return fs::path(CK_SHARED_DATA) / "wikitext-2" / "wikitext-2-raw-v1.test.txt"; }

const fs::path& stories_bump() {
  static const test::ScratchDir dir;
  static const fs::path bump = [] {
    const fs::path out = dir.file("stories260K.bump");
    const Outcome o = run({"ck-convert", stories_gguf().string(), "-o", out.string()});
    if (o.exit_code != 0) throw std::runtime_error("converting stories260K failed: " + describe(o));
    return out;
  }();
  return bump;
}

std::vector<uint8_t> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_file(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

void write_file(const fs::path& path, const std::vector<uint8_t>& bytes) {
  write_file(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

namespace {

// Offset of the u32 type id of u32 key `key`: the pattern is the u64 key
// length, the key, then type id 4 (U32); the value follows the type id.
size_t find_u32_key(const std::vector<uint8_t>& file, std::string_view key) {
  std::string pattern(8, '\0');
  const uint64_t len = key.size();
  std::memcpy(pattern.data(), &len, 8);
  pattern += key;
  pattern += std::string("\x04\x00\x00\x00", 4);
  const std::string_view hay(reinterpret_cast<const char*>(file.data()), file.size());
  const size_t at = hay.find(pattern);
  if (at == std::string_view::npos || at + pattern.size() + 4 > file.size()) {
    throw std::runtime_error("no u32 key " + std::string(key));
  }
  return at + pattern.size() - 4;
}

}  // namespace

void patch_u32(std::vector<uint8_t>& file, std::string_view key, uint32_t value) {
  std::memcpy(file.data() + find_u32_key(file, key) + 4, &value, 4);
}

void patch_u32_type(std::vector<uint8_t>& file, std::string_view key, uint32_t type) {
  std::memcpy(file.data() + find_u32_key(file, key), &type, 4);
}

}  // namespace ck::reliability
