// What the end-to-end app tests share: the models they run and small checks
// on what a program printed.
#pragma once
#include <filesystem>
#include <string>

namespace ck::test {

// stories260K (shared data, read-only: its bump goes to the cache folder).
std::string stories_model();
// SmolLM2 from scripts/fetch-models.sh. A test that needs it fails (never
// skips) when it is missing: REQUIRE(have_smollm2()) with the INFO below.
std::string smollm2_model();
bool have_smollm2();
inline constexpr const char* kFetchSmol = "SmolLM2 comes from scripts/fetch-models.sh";

// How often `needle` occurs in `text`.
size_t occurrences(const std::string& text, const std::string& needle);

// The usage-error convention: exactly one line, "NAME: error: ...".
bool is_one_error_line(const std::string& err, const std::string& app);

// A file holding `text` in this test process's temporary folder.
std::string temp_file(const std::string& name, const std::string& text);

}  // namespace ck::test
