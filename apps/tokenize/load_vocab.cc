#include "apps/tokenize/load_vocab.h"

#include "loader/bump_file.h"
#include "loader/file_kind.h"
#include "loader/gguf_reader.h"
#include "loader/vocab_reader.h"

namespace ck::app {

tok::VocabData load_vocab(const std::filesystem::path& model) {
  switch (detect_file_kind(model)) {
    case FileKind::Bump:
      return BumpFile::open(model).vocab();
    case FileKind::Gguf:
      break;
  }
  const GgufFile file = GgufFile::open(model);
  return vocab_from_metadata(file.metadata(), model.string());
}

}  // namespace ck::app
