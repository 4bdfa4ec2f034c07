// GGUF -> bump conversion of small models (seeds: tiny llama GGUFs made by
// make_seeds.py, and stories260K): whatever the input, conversion either
// throws std::runtime_error and leaves no .bump behind, or writes a bump that
// loads, verifies and has every view in bounds and shaped as its config says.
// Files go to a private folder on /dev/shm (tmpfs: fsync costs nothing).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "loader/bump_file.h"
#include "loader/convert.h"
#include "tests/fuzz/walk.h"

namespace {

namespace fs = std::filesystem;
fs::path* work_dir;

std::vector<uint8_t> read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ck::fuzz::quiet_logs();
  const fs::path base = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
  work_dir = new fs::path(base / ("ck-fuzz-convert-" + std::to_string(getpid())));
  fs::create_directories(*work_dir);
  std::atexit([] { fs::remove_all(*work_dir); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ck;
  const fs::path gguf = *work_dir / "in.gguf", bump = *work_dir / "out.bump";
  {
    std::ofstream out(gguf, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  fs::remove(bump);
  bool converted = false;
  try {
    convert_gguf_to_bump(gguf, bump);
    converted = true;
  } catch (const std::runtime_error&) {
  }
  if (!converted) {
    fuzz::require(!fs::exists(bump), "a failed conversion leaves no .bump");
    for (const auto& e : fs::directory_iterator(*work_dir)) {
      const std::string name = e.path().filename().string();
      fuzz::require(name == "in.gguf", "a failed conversion leaves no temporary file");
    }
    return 0;
  }
  // What the converter accepted, the loader must accept and hand out safely.
  const std::vector<uint8_t> bytes = read_all(bump);
  const BumpFile loaded = BumpFile::parse(bytes, bump.string(), {.verify = true});
  fuzz::walk_bump(loaded, bytes);
  // The converter does not promise a usable vocabulary (the tokenizer judges
  // it when a model is loaded), only that the check fails cleanly.
  try {
    fuzz::walk_vocab(loaded.vocab());
  } catch (const std::runtime_error&) {
  }
  fs::remove(config_json_path(bump));
  return 0;
}
