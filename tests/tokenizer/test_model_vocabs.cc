// The vocabularies of the project's two real models against ids from
// independent tokenizers (golden/reference_ids.json: stories260K through
// Google's sentencepiece, SmolLM2 through Hugging Face tokenizers; see
// golden/make_reference_ids.py for how each list was obtained).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include "loader/bump_file.h"
#include "loader/convert.h"
#include "tests/tokenizer/vocab_files.h"

namespace {

nlohmann::json reference_cases(const std::string& model) {
  const auto path = std::filesystem::path(CK_SOURCE_DIR) / "tests" / "tokenizer" / "golden" / "reference_ids.json";
  return nlohmann::json::parse(ck::test::read_file(path)).at(model);
}

void check_reference(const ck::tok::Tokenizer& tokenizer, const std::string& model) {
  const auto cases = reference_cases(model);
  REQUIRE(cases.size() >= 6);
  for (const auto& c : cases) {
    const auto text = c.at("text").get<std::string>();
    const bool parse_special = c.value("parse_special", false);
    INFO(model << ": '" << text << "'");
    const auto ids = tokenizer.encode(text, /*add_special=*/false, parse_special);
    CHECK(ids == c.at("ids").get<std::vector<int32_t>>());
    CHECK(tokenizer.decode(ids, /*render_special=*/parse_special) == text);
  }
}

}  // namespace

TEST_CASE("stories260K matches sentencepiece", "[tokenizer][models]") {
  const auto tokenizer = ck::test::load_tokenizer(ck::test::stories_gguf());
  check_reference(tokenizer, "stories260K");
  REQUIRE(tokenizer.is_spm());
  CHECK(tokenizer.n_vocab() == 512);
  // No add_bos_token key: llama.cpp's SPM default adds BOS.
  CHECK(tokenizer.add_bos());
  const auto ids = tokenizer.encode("Once upon a time", /*add_special=*/true, false);
  REQUIRE(ids.size() > 1);
  CHECK(ids.front() == tokenizer.bos());
  CHECK(tokenizer.decode(ids) == "Once upon a time");
  CHECK(tokenizer.eog_ids() == std::vector<int32_t>{2});
  CHECK(tokenizer.chat_template().empty());
}

TEST_CASE("SmolLM2 matches Hugging Face tokenizers", "[tokenizer][models]") {
  const auto tokenizer = ck::test::load_tokenizer(ck::test::smollm_gguf());
  check_reference(tokenizer, "smollm2");
  REQUIRE_FALSE(tokenizer.is_spm());
  CHECK_FALSE(tokenizer.add_bos());
  CHECK(tokenizer.encode("Hi", /*add_special=*/true, false) == tokenizer.encode("Hi", false, false));
  // <|endoftext|> (0) by its text, <|im_end|> (2) as eos.
  CHECK(tokenizer.eog_ids() == std::vector<int32_t>{0, 2});
  CHECK(tokenizer.is_eog(2));
  CHECK_FALSE(tokenizer.is_eog(1));
}

TEST_CASE("special tokens are parsed only when asked", "[tokenizer][models]") {
  const auto tokenizer = ck::test::load_tokenizer(ck::test::smollm_gguf());
  const std::string text = "<|im_start|>user";
  const auto parsed = tokenizer.encode(text, false, /*parse_special=*/true);
  REQUIRE(parsed.size() == 2);
  CHECK(parsed[0] == 1);
  const auto plain = tokenizer.encode(text, false, /*parse_special=*/false);
  CHECK(plain.size() > 2);
  CHECK(std::find(plain.begin(), plain.end(), 1) == plain.end());
  CHECK(tokenizer.decode(plain) == text);
  // Control tokens render only when asked.
  CHECK(tokenizer.token_to_piece(1).empty());
  CHECK(tokenizer.token_to_piece(1, /*render_special=*/true) == "<|im_start|>");
}

TEST_CASE("the vocabulary survives GGUF -> bump conversion", "[tokenizer][models]") {
  const auto dir = std::filesystem::temp_directory_path() / ("ck-tok-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto bump = dir / "stories260K.bump";
  ck::convert_gguf_to_bump(ck::test::stories_gguf(), bump);
  const ck::tok::Tokenizer from_bump(ck::BumpFile::open(bump).vocab());
  const auto from_gguf = ck::test::load_tokenizer(ck::test::stories_gguf());
  std::filesystem::remove_all(dir);
  for (const auto& c : reference_cases("stories260K")) {
    const auto text = c.at("text").get<std::string>();
    CHECK(from_bump.encode(text, true, false) == from_gguf.encode(text, true, false));
  }
  CHECK(from_bump.eog_ids() == from_gguf.eog_ids());
  CHECK(from_bump.chat_template() == from_gguf.chat_template());
}
