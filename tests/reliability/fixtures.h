// Inputs of the reliability tests: the shared models, converted copies in a
// scratch folder, and metadata patched in place the way a hostile or broken
// file would have it.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ck::reliability {

std::filesystem::path stories_gguf();  // ../shared/data/models/stories260K.gguf
std::filesystem::path smollm_gguf();   // models/SmolLM2-135M-Instruct.Q4_1.gguf (scripts/fetch-models.sh)
std::filesystem::path wikitext_test();  // ../shared/data/wikitext-2/wikitext-2-raw-v1.test.txt

// stories260K converted once per test process into a private folder.
const std::filesystem::path& stories_bump();

std::vector<uint8_t> read_file(const std::filesystem::path& path);
void write_file(const std::filesystem::path& path, std::string_view bytes);
void write_file(const std::filesystem::path& path, const std::vector<uint8_t>& bytes);

// Overwrites the u32 value of metadata key `key` (GGUF v3 encoding, as in
// GGUF files and in the bump extension block). Found by its bytes, not
// through our loader, so the patch does not depend on the code under test.
// Throws when the key is absent or not a u32.
void patch_u32(std::vector<uint8_t>& file, std::string_view key, uint32_t value);
// Changes the GGUF type id of that u32 key (to another 4-byte type).
void patch_u32_type(std::vector<uint8_t>& file, std::string_view key, uint32_t type);

}  // namespace ck::reliability
