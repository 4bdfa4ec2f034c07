// Tells GGUF and bump files apart by their magic bytes, not their names.
#pragma once
#include <filesystem>

namespace ck {

enum class FileKind { Gguf, Bump };

// Throws naming the file when it cannot be read or is neither kind.
FileKind detect_file_kind(const std::filesystem::path& path);

}  // namespace ck
