// utf8::find_invalid: where the first byte that is not valid UTF-8 is (the
// apps refuse prompts and texts at that offset), with copy_valid's notion of
// validity.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "tokenizer/utf8.h"

namespace {

constexpr size_t npos = std::string_view::npos;

size_t find(std::string_view s) { return ck::tok::utf8::find_invalid(s); }

}  // namespace

TEST_CASE("find_invalid accepts valid UTF-8 of every length", "[tokenizer][utf8]") {
  CHECK(find("") == npos);
  CHECK(find("plain ASCII, with\ttabs\nand newlines") == npos);
  CHECK(find(std::string_view("nul\0inside", 10)) == npos);  // U+0000 is valid UTF-8
  CHECK(find("caf\xC3\xA9") == npos);                         // U+00E9, 2 bytes
  CHECK(find("\xC2\x80\xDF\xBF") == npos);                    // U+0080 and U+07FF: the 2-byte bounds
  CHECK(find("\xE0\xA0\x80\xE2\x82\xAC\xEF\xBF\xBF") == npos);  // U+0800, U+20AC, U+FFFF
  CHECK(find("\xED\x9F\xBF\xEE\x80\x80") == npos);            // U+D7FF and U+E000 around the surrogates
  CHECK(find("\xF0\x9F\x98\x80") == npos);                    // U+1F600, 4 bytes
  CHECK(find("\xF0\x90\x80\x80") == npos);                    // U+10000, the smallest 4-byte one
  CHECK(find("\xF4\x8F\xBF\xBF") == npos);                    // U+10FFFF, the largest code point
  CHECK(find("a\xF0\x9F\x98\x80z\xF0\x9F\x98\x81") == npos);
}

TEST_CASE("find_invalid gives the offset of the first invalid sequence", "[tokenizer][utf8]") {
  SECTION("truncated sequences at the end") {
    CHECK(find("abc\xC3") == 3);
    CHECK(find("abc\xE2\x82") == 3);
    CHECK(find("ab\xF0\x9F\x98") == 2);
    CHECK(find("\xF0") == 0);
  }
  SECTION("truncated sequences followed by other bytes") {
    CHECK(find("caf\xC3 x") == 3);
    CHECK(find("x\xE2\x82y") == 1);
  }
  SECTION("overlong forms") {
    CHECK(find("\xC0\x80") == 0);          // overlong U+0000
    CHECK(find("ok \xC1\xBF") == 3);       // overlong U+007F
    CHECK(find("\xE0\x80\xAF") == 0);      // overlong '/'
    CHECK(find("\xF0\x8F\xBF\xBF") == 0);  // overlong U+FFFF
  }
  SECTION("surrogates") {
    CHECK(find("\xED\xA0\x80") == 0);  // U+D800
    CHECK(find("hi \xED\xBF\xBF") == 3);  // U+DFFF
    CHECK(find("\xED\xA0\xBD\xED\xB8\x80") == 0);  // a CESU-8 surrogate pair
  }
  SECTION("above U+10FFFF and bytes that start nothing") {
    CHECK(find("\xF4\x90\x80\x80") == 0);  // U+110000
    CHECK(find("ab\xF5\x80\x80\x80") == 2);
    CHECK(find("\xF8\x88\x80\x80\x80") == 0);
    CHECK(find("x\xFE") == 1);
    CHECK(find("xy\xFF") == 2);
  }
  SECTION("stray continuation bytes") {
    CHECK(find("\x80") == 0);
    CHECK(find("caf\xC3\xA9\xA9") == 5);
  }
  SECTION("the first of several") {
    CHECK(find("\xC3\xA9 ok \xFF then \xC0\x80") == 6);
  }
}

TEST_CASE("find_invalid agrees with copy_valid", "[tokenizer][utf8]") {
  // copy_valid changes nothing exactly when find_invalid finds nothing, and
  // copies the bytes before the offset unchanged.
  for (std::string_view s : {std::string_view("abc"), std::string_view("caf\xC3\xA9"), std::string_view("a\xC3"),
                             std::string_view("\xED\xA0\x80"), std::string_view("x\xF0\x9F\x98\x80y\xFF"),
                             std::string_view("\xC0\x80"), std::string_view("\xE2\x82\xAC\xF5")}) {
    std::string out;
    ck::tok::utf8::copy_valid(s, /*final=*/true, out);
    const size_t at = find(s);
    INFO(std::string(s));
    CHECK((at == npos) == (out == s));
    if (at != npos) CHECK(out.substr(0, at) == s.substr(0, at));
  }
}
