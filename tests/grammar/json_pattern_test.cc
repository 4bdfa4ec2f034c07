// JSON schema "pattern": the grammar of each pattern accepts exactly the
// strings std::regex (ECMAScript, searching, as JSON schema does) finds the
// pattern in, over a set of strings around each pattern, written as JSON.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "grammar/json_schema.h"
#include "grammar/parser.h"
#include "match_text.h"

namespace {

void agrees_with_std_regex(const std::string& pattern, const std::vector<std::string>& texts) {
  const auto grammar = ck::grammar::parse_grammar(
      ck::grammar::json_schema_to_gbnf(nlohmann::json{{"type", "string"}, {"pattern", pattern}}.dump()));
  const std::regex re(pattern, std::regex::ECMAScript);
  for (const std::string& text : texts) {
    const std::string json = nlohmann::json(text).dump();
    INFO("pattern " << pattern << ", string " << json);
    CHECK(ck::test::matches(grammar, json) == std::regex_search(text, re));
  }
}

}  // namespace

TEST_CASE("pattern: literals, classes, groups, alternation, repetition and anchors", "[grammar][json][issue13]") {
  const std::vector<std::string> words = {"", "a", "ab", "abc", "abcabc", "xabc", "abcx", "ba", "a-b", "A_1",
                                          "2024-01-31", "2024-1-31", "12-34", "x12-34y", "cat", "dog", "cow",
                                          "catdog", "dogs", " cat", "a.b", "a\"b", "a\\b", "a\nb", "\t", "é", "ée"};
  agrees_with_std_regex("^abc$", words);
  agrees_with_std_regex("abc", words);  // unanchored: anywhere
  agrees_with_std_regex("^ab", words);
  agrees_with_std_regex("bc$", words);
  agrees_with_std_regex("^(abc)+$", words);
  agrees_with_std_regex("^(?:cat|dog)s?$", words);
  agrees_with_std_regex("^cat$|^dog", words);
  agrees_with_std_regex("^\\d{4}-\\d{2}-\\d{2}$", words);
  agrees_with_std_regex("^\\d{1,4}-\\d{2,}$", words);
  agrees_with_std_regex("\\d+-\\d+", words);
  agrees_with_std_regex("^[a-c]*$", words);
  agrees_with_std_regex("^[^a-c]+$", words);
  agrees_with_std_regex("^\\w+$", words);
  agrees_with_std_regex("^\\W*$", words);
  agrees_with_std_regex("^a.b$", words);
  agrees_with_std_regex("^a\\.b$", words);
  agrees_with_std_regex("^a[\"\\\\]b$", words);
  agrees_with_std_regex("^a\\nb$", words);
  agrees_with_std_regex("^\\s$", words);
  agrees_with_std_regex("^\\S+$", words);
  agrees_with_std_regex("^[\\d_A-Z-]+$", words);
  agrees_with_std_regex("^(a|ab)(c|bcd)?$", words);
  agrees_with_std_regex("^a*?b?$", words);
  agrees_with_std_regex("^\\x61\\u0062$", words);
  agrees_with_std_regex("^()a$", words);
}

TEST_CASE("pattern: a named group matches as a plain one", "[grammar][json][issue13]") {
  // std::regex has no named groups: checked by hand.
  const auto g = ck::grammar::parse_grammar(
      ck::grammar::json_schema_to_gbnf(R"({"type": "string", "pattern": "^(?<first>[a-z])b"})"));
  CHECK(ck::test::matches(g, R"("ab")"));
  CHECK(ck::test::matches(g, R"("zb and more")"));
  CHECK_FALSE(ck::test::matches(g, R"("Ab")"));
}
