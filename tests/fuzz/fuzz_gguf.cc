// The GGUF reader on arbitrary bytes: parse, then walk every metadata value
// and tensor info and read the config and vocabulary the way the converter
// does. Only std::runtime_error (the loader's error contract) may escape.
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>

#include "loader/gguf_reader.h"
#include "loader/model_config.h"
#include "loader/vocab_reader.h"
#include "tests/fuzz/walk.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ck::fuzz::quiet_logs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ck;
  const std::span<const uint8_t> bytes(data, size);
  try {
    const GgufFile file = GgufFile::parse(bytes, "fuzz.gguf");
    fuzz::walk_metadata(file.metadata());
    for (const GgufTensorInfo& t : file.tensors()) {
      fuzz::require(!t.ne.empty() && t.ne.size() <= 4, "a tensor has 1 to 4 dims");
      fuzz::require(file.find(t.name) == &t, "GgufFile::find returns the tensor it listed");
      fuzz::require(t.offset >= file.data_offset() && t.nbytes <= size - t.offset, "tensor data lies inside the file");
      fuzz::require(t.n_elements() >= 0, "element count does not overflow");
      fuzz::touch(file.tensor_data(t));
    }
    try {
      (void)config_from_metadata(file.metadata(), file.source());
    } catch (const std::runtime_error&) {
    }
    fuzz::walk_vocab(vocab_from_metadata(file.metadata(), file.source()));
  } catch (const std::runtime_error&) {
  }
  return 0;
}
