// The GBNF parser: each construct of llama.cpp's grammars/README.md, checked
// by what the parsed grammar matches, and the errors for bad grammars.
#include <catch2/catch.hpp>

#include "grammar/parser.h"
#include "match_text.h"

using ck::grammar::parse_grammar;
using ck::test::is_prefix;
using ck::test::matches;

TEST_CASE("literals, sequences, alternation and rule references", "[grammar]") {
  const auto g = parse_grammar(R"(root ::= greeting " " name
greeting ::= "hello" | "hi"
name ::= "world")");
  CHECK(matches(g, "hello world"));
  CHECK(matches(g, "hi world"));
  CHECK_FALSE(matches(g, "hey world"));
  CHECK_FALSE(matches(g, "hello"));
  CHECK(is_prefix(g, "hello"));
}

TEST_CASE("repetition: * + ? {m} {m,} {m,n}, on a character, a literal and a group", "[grammar]") {
  const auto star = parse_grammar(R"(root ::= "a"*)");
  CHECK(matches(star, ""));
  CHECK(matches(star, "aaaa"));
  const auto plus = parse_grammar(R"(root ::= "ab"+)");  // the whole literal repeats
  CHECK_FALSE(matches(plus, ""));
  CHECK(matches(plus, "abab"));
  CHECK_FALSE(matches(plus, "aba"));
  const auto opt = parse_grammar(R"(root ::= "x" ("y" | "z")? "!")");
  CHECK(matches(opt, "x!"));
  CHECK(matches(opt, "xz!"));
  CHECK_FALSE(matches(opt, "xyz!"));
  const auto exactly = parse_grammar(R"(root ::= [0-9]{3})");
  CHECK(matches(exactly, "123"));
  CHECK_FALSE(matches(exactly, "12"));
  CHECK_FALSE(matches(exactly, "1234"));
  const auto at_least = parse_grammar(R"(root ::= "a"{2,})");
  CHECK_FALSE(matches(at_least, "a"));
  CHECK(matches(at_least, "aaaaa"));
  const auto between = parse_grammar(R"(root ::= ("a" "b"){1,3})");
  CHECK_FALSE(matches(between, ""));
  CHECK(matches(between, "ab"));
  CHECK(matches(between, "ababab"));
  CHECK_FALSE(matches(between, "abababab"));
}

TEST_CASE("character classes: ranges, negation, escapes, any character", "[grammar]") {
  const auto g = parse_grammar(R"(root ::= [a-cx] [^0-9\]] . [\x41-\x42] "\u00e9\t\"\\")");
  CHECK(matches(g, "b!zA\xC3\xA9\t\"\\"));
  CHECK(matches(g, "x\xE2\x82\xAC" "\xF0\x9F\x98\x80" "B\xC3\xA9\t\"\\"));  // any character: a 4-byte one
  CHECK_FALSE(matches(g, "d!zA\xC3\xA9\t\"\\"));  // d not in [a-cx]
  CHECK_FALSE(matches(g, "a5zA\xC3\xA9\t\"\\"));  // 5 in [0-9]
  CHECK_FALSE(matches(g, "a]zA\xC3\xA9\t\"\\"));  // \] negated
  CHECK_FALSE(matches(g, "a!zC\xC3\xA9\t\"\\"));  // C after [A-B]
}

TEST_CASE("comments, blank lines and rules over several lines", "[grammar]") {
  const auto g = parse_grammar(R"(# a list of numbers
root ::= "[" (
    num ("," num)*   # at least one
  )? "]"

num ::=
  [0-9]+ |
  "-" [0-9]+
)");
  CHECK(matches(g, "[]"));
  CHECK(matches(g, "[1,-22,333]"));
  CHECK_FALSE(matches(g, "[1,]"));
}

TEST_CASE("bad grammars: the line, the column and what is wrong", "[grammar]") {
  auto error_of = [](const char* text) {
    try {
      parse_grammar(text);
    } catch (const ck::grammar::GrammarError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("root ::= \"abc") == "line 1, column 10: unterminated string literal");
  CHECK(error_of("root ::= item\nitem ::= [a-z") == "line 2, column 10: unterminated character class");
  CHECK(error_of("root ::= item") == "line 1, column 10: undefined rule 'item'");
  CHECK(error_of("start ::= \"a\"") == "line 1, column 14: the grammar has no rule 'root' (where it starts)");
  CHECK(error_of("root ::= (\"a\" | \"b\"") == "line 1, column 20: missing ')' before the end of the grammar");
  CHECK(error_of("root ::= \"a\"\nroot ::= \"b\"") == "line 2, column 1: rule 'root' is defined twice");
  CHECK(error_of("root ::= * \"a\"") == "line 1, column 10: '*' has nothing before it to repeat");
  CHECK(error_of("root ::= \"a\"{3,2}") == "line 1, column 13: repetition {m,n} with n < m");
  CHECK(error_of("root ::= \"a\"{5000}") == "line 1, column 13: repetition count above 1000");
  CHECK(error_of(("root ::= " + std::string(101, '(') + "\"a\"" + std::string(101, ')')).c_str()) ==
        "line 1, column 110: groups nested more than 100 deep");  // found by fuzz_grammar (stack overflow)
  CHECK(error_of("root ::= [z-a]") == "line 1, column 11: character range with its end before its start");
  CHECK(error_of("root ::= \"\\q\"") == "line 1, column 11: unknown escape '\\q'");
  CHECK(error_of("root = \"a\"") == "line 1, column 6: expected '::=' after the rule name 'root'");
  CHECK(error_of("root ::= \"a\" ) \"b\"") == "line 1, column 14: unexpected ')' in rule 'root'");
  CHECK(error_of("root ::= expr\nexpr ::= expr \"+\" \"1\" | \"1\"") ==
        "line 2, column 1: left recursion: rule 'expr' can reach itself before matching a character");
  CHECK(error_of("root ::= x\nx ::= \"a\"? root") ==
        "line 1, column 1: left recursion: rule 'root' can reach itself before matching a character");
  ck::grammar::GrammarError e(3, 7, "x");
  CHECK(e.line() == 3);
  CHECK(e.column() == 7);
}

TEST_CASE("a grammar too ambiguous to match is refused, not run out of memory", "[grammar]") {
  const auto g = parse_grammar(R"(root ::= ("a"?){0,1000} "b")");
  CHECK_THROWS_WITH(matches(g, "aab"), Catch::Contains("too ambiguous"));
}
