// WikiText-2 tokenized exactly as the reference tokenizers do (the count and
// a digest of their ids are in golden/reference_ids.json, see
// golden/make_reference_ids.py), and decode(encode(text)) gives the text back, for real text (WikiText-2) and for
// random byte strings mixing ASCII, multi-byte characters and invalid UTF-8,
// in both vocabulary families. Invalid bytes are kept as bytes (byte-level
// BPE spells bytes, SPM falls back to its <0xNN> tokens), except bytes a
// byte-level vocabulary has no token for, which are dropped.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <random>

#include "tests/tokenizer/vocab_files.h"
#include "tokenizer/byte_unicode.h"

namespace {

std::string random_bytes(std::mt19937& rng) {
  static const char* const kPieces[] = {"a", "Z", " ", "  ", "\n", "\t", "'s", "123", "é", "ß", "Ж", "日本", "😀",
                                        "\xE2\x80\x94", ".", "<", "|", "\r\n"};
  std::uniform_int_distribution<int> kind(0, 3), len(0, 40), piece(0, std::size(kPieces) - 1), byte(0, 255);
  std::string s;
  for (int i = len(rng); i > 0; --i) {
    if (kind(rng) == 0) {
      s += static_cast<char>(byte(rng));  // often invalid UTF-8: stray continuation, truncated lead, 0xFF
    } else {
      s += kPieces[piece(rng)];
    }
  }
  return s;
}

// SPM writes spaces as U+2581, so a U+2581 in the input comes back as a space
// (as in sentencepiece and llama.cpp).
std::string spm_expected(std::string s) {
  for (size_t at; (at = s.find("\xE2\x96\x81")) != std::string::npos;) s.replace(at, 3, " ");
  return s;
}

// Byte-level BPE drops the bytes that no token spells (llama.cpp and HF do too).
std::string bpe_expected(const ck::tok::VocabData& vocab, const std::string& s) {
  std::string kept;
  for (char c : s) {
    std::string spelled;
    ck::tok::append_byte_level(std::string_view(&c, 1), spelled);
    if (std::find(vocab.tokens.begin(), vocab.tokens.end(), spelled) != vocab.tokens.end()) kept += c;
  }
  return kept;
}

void check_random(const std::filesystem::path& path) {
  const auto vocab = ck::test::read_vocab(path);
  const ck::tok::Tokenizer tokenizer(vocab);
  std::mt19937 rng(1234);
  for (int i = 0; i < 500; ++i) {
    const std::string text = random_bytes(rng);
    const auto ids = tokenizer.encode(text, /*add_special=*/true, /*parse_special=*/false);
    for (int32_t id : ids) REQUIRE((id >= 0 && id < tokenizer.n_vocab()));
    CHECK(tokenizer.decode(ids) == (tokenizer.is_spm() ? spm_expected(text) : bpe_expected(vocab, text)));
  }
}

// FNV-1a over the ids as little-endian int32 bytes (the generator's digest).
uint64_t fnv1a64(const std::vector<int32_t>& ids) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (int32_t id : ids) {
    const auto u = static_cast<uint32_t>(id);
    for (int shift = 0; shift < 32; shift += 8) h = (h ^ ((u >> shift) & 0xFF)) * 0x100000001B3ull;
  }
  return h;
}

void check_reference_digest(const std::vector<int32_t>& ids, const std::string& model) {
  const auto golden = nlohmann::json::parse(ck::test::read_file(
      std::filesystem::path(CK_SOURCE_DIR) / "tests" / "tokenizer" / "golden" / "reference_ids.json"));
  for (const auto& entry : golden.at("wikitext2")) {
    if (entry.at("model") != model) continue;
    CHECK(ids.size() == entry.at("count").get<size_t>());
    CHECK(fnv1a64(ids) == entry.at("fnv1a64").get<uint64_t>());
    return;
  }
  FAIL("no WikiText-2 reference for " << model);
}

const std::string& wikitext() {
  static const std::string text =
      ck::test::read_file(ck::test::shared_data() / "wikitext-2" / "wikitext-2-raw-v1.test.txt");
  return text;
}

}  // namespace

TEST_CASE("WikiText-2 as sentencepiece tokenizes it, and back, stories260K", "[tokenizer][roundtrip]") {
  const auto tokenizer = ck::test::load_tokenizer(ck::test::stories_gguf());
  check_reference_digest(tokenizer.encode(wikitext(), /*add_special=*/false, false), "stories260K");
  const auto ids = tokenizer.encode(wikitext(), /*add_special=*/true, false);
  CHECK(tokenizer.decode(ids) == wikitext());
}

TEST_CASE("WikiText-2 as Hugging Face tokenizes it, and back, SmolLM2", "[tokenizer][roundtrip]") {
  const auto tokenizer = ck::test::load_tokenizer(ck::test::smollm_gguf());
  const auto ids = tokenizer.encode(wikitext(), /*add_special=*/true, false);
  check_reference_digest(ids, "smollm2");  // add_bos is false for SmolLM2
  CHECK(tokenizer.decode(ids) == wikitext());
}

TEST_CASE("random and invalid UTF-8 round trip, stories260K", "[tokenizer][roundtrip]") {
  check_random(ck::test::stories_gguf());
}

TEST_CASE("random and invalid UTF-8 round trip, SmolLM2", "[tokenizer][roundtrip]") {
  check_random(ck::test::smollm_gguf());
}

TEST_CASE("WikiText-2 through llama.cpp's test vocabularies, as the references tokenize it", "[tokenizer][roundtrip]") {
  // llama-spm against sentencepiece, gpt-2 and starcoder against Hugging Face.
  for (const std::string name : {"llama-spm", "gpt-2", "starcoder"}) {
    INFO(name);
    const auto tokenizer = ck::test::load_tokenizer(ck::test::vectors_dir() / ("ggml-vocab-" + name + ".gguf"));
    const auto ids = tokenizer.encode(wikitext(), /*add_special=*/false, false);
    check_reference_digest(ids, name);
    CHECK(tokenizer.decode(ids) == wikitext());
  }
}
