// Text files the user names (-f prompt files, -sysf system prompts, texts to
// tokenize or evaluate): read whole, as bytes, refused when not valid UTF-8.
#pragma once
#include <string>
#include <string_view>

namespace ck::app {

// The file's bytes. Throws "PATH: cannot open (REASON)" when it cannot be
// read, and "PATH is not valid UTF-8: ..." (with the byte offset and line)
// when it is not valid UTF-8.
std::string read_text_file(const std::string& path);

// All of standard input, as bytes (ck-tokenize --stdin); the caller checks
// the encoding. Throws when it cannot be read.
std::string read_all_stdin();

// Removes one trailing line break ("\n" or "\r\n"), as llama.cpp does with
// -f and -sysf: the newline an editor puts at the end of a file is not part
// of the prompt.
void drop_final_newline(std::string& text);

}  // namespace ck::app
