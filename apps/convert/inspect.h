// ck-convert --inspect: what is in a GGUF or bump file, printed on stdout.
#pragma once
#include <cstdio>

#include "loader/bump_file.h"
#include "loader/gguf_reader.h"

namespace ck::convert {

void inspect_gguf(const GgufFile& file, std::FILE* out);
void inspect_bump(const BumpFile& file, std::FILE* out);

}  // namespace ck::convert
