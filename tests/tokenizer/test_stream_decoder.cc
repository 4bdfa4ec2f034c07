// Streaming detokenization never emits half a character.
#include <catch2/catch.hpp>

#include "tests/tokenizer/vocab_files.h"
#include "tokenizer/utf8.h"

using ck::tok::StreamDecoder;

TEST_CASE("copy_valid holds back cut-off sequences and replaces invalid ones", "[tokenizer][utf8]") {
  auto run = [](std::string_view in, bool final) {
    std::string out;
    const size_t used = ck::tok::utf8::copy_valid(in, final, out);
    return std::make_pair(used, out);
  };
  CHECK(run("a\xE6\x97", false) == std::make_pair(size_t{1}, std::string("a")));
  CHECK(run("a\xE6\x97", true) == std::make_pair(size_t{3}, std::string("a\xEF\xBF\xBD")));
  CHECK(run("\xFF" "b", false) == std::make_pair(size_t{2}, std::string("\xEF\xBF\xBD" "b")));
  CHECK(run("\xE6" "b", false) == std::make_pair(size_t{2}, std::string("\xEF\xBF\xBD" "b")));
  CHECK(run("\xED\xA0\x80", false).second == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate: invalid
  CHECK(run("\xF0\x9F\x98\x80", false) == std::make_pair(size_t{4}, std::string("\xF0\x9F\x98\x80")));
}

TEST_CASE("a character split over byte tokens is emitted whole", "[tokenizer][stream]") {
  for (const auto& path : {ck::test::stories_gguf(), ck::test::smollm_gguf()}) {
    const auto tokenizer = ck::test::load_tokenizer(path);
    const std::string text = "Hi \xF0\x9F\x98\x80 \xE6\x97\xA5\xE6\x9C\xAC!";  // "Hi 😀 日本!"
    const auto ids = tokenizer.encode(text, false, false);
    StreamDecoder stream(tokenizer);
    std::string streamed;
    for (int32_t id : ids) {
      const std::string part = stream.push(id);
      std::string valid;
      CHECK(ck::tok::utf8::copy_valid(part, true, valid) == part.size());
      CHECK(valid == part);  // every chunk is complete, valid UTF-8
      streamed += part;
    }
    streamed += stream.flush();
    // The pieces as they are: a stream is a continuation, so unlike decode()
    // it keeps an SPM token's leading space.
    std::string pieces;
    for (int32_t id : ids) pieces += tokenizer.token_to_piece(id);
    CHECK(streamed == pieces);
    CHECK(ids.size() > 6);  // the emoji and the CJK really came as several tokens
  }
}

TEST_CASE("bytes that never complete a character come out as U+FFFD", "[tokenizer][stream]") {
  const auto tokenizer = ck::test::load_tokenizer(ck::test::stories_gguf());
  const int32_t e6 = 3 + 0xE6, ff = 3 + 0xFF;  // stories260K's byte tokens <0xE6>, <0xFF>
  REQUIRE(tokenizer.token_text(e6) == "<0xE6>");
  StreamDecoder stream(tokenizer);
  CHECK(stream.push(e6).empty());                    // may still be completed
  CHECK(stream.push(ff) == "\xEF\xBF\xBD\xEF\xBF\xBD");  // neither can be now
  CHECK(stream.push(e6).empty());
  CHECK(stream.flush() == "\xEF\xBF\xBD");
  CHECK(stream.flush().empty());
}
