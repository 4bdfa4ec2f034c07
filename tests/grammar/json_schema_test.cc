// JSON schema -> grammar: what the grammar of each schema accepts and
// refuses, and the keywords the converter refuses.
#include <catch2/catch.hpp>

#include "grammar/json_schema.h"
#include "grammar/parser.h"
#include "match_text.h"

using ck::test::matches;

namespace {

ck::grammar::Grammar of(const char* schema) {
  return ck::grammar::parse_grammar(ck::grammar::json_schema_to_gbnf(schema));
}

}  // namespace

TEST_CASE("object: required properties always, optional ones may be left out", "[grammar][json]") {
  const auto g = of(R"({"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"},
                        "ok": {"type": "boolean"}}, "required": ["name"]})");
  CHECK(matches(g, R"({"name": "Ann"})"));
  CHECK(matches(g, R"({ "name": "Ann", "age": -3, "ok": true })"));
  CHECK(matches(g, R"({"name": "A\"n\\n\u00e9", "ok": false})"));
  CHECK_FALSE(matches(g, R"({"age": 3})"));                  // name is required
  CHECK_FALSE(matches(g, R"({"name": "Ann", "age": 3.5})"));  // integer
  CHECK_FALSE(matches(g, R"({"name": "Ann", "other": 1})"));  // no other properties
  CHECK_FALSE(matches(g, "{\"name\": \"A\nn\"}"));            // control characters must be escaped
}

TEST_CASE("object with no required property", "[grammar][json]") {
  const auto g = of(R"({"type": "object", "properties": {"a": {"type": "null"}, "b": {"type": "number"}}})");
  CHECK(matches(g, "{}"));
  CHECK(matches(g, R"({"b": 1.5e3})"));
  CHECK(matches(g, R"({"a": null, "b": -0.25})"));
  CHECK_FALSE(matches(g, R"({, "b": 1})"));
  CHECK_FALSE(matches(g, R"({"b": 1, "a": null})"));  // the schema's order
}

TEST_CASE("array with items and bounds, string lengths", "[grammar][json]") {
  const auto g = of(R"({"type": "array", "items": {"type": "string", "maxLength": 3}, "minItems": 1, "maxItems": 2})");
  CHECK(matches(g, R"(["abc"])"));
  CHECK(matches(g, R"(["a", ""])"));
  CHECK_FALSE(matches(g, "[]"));
  CHECK_FALSE(matches(g, R"(["a", "b", "c"])"));
  CHECK_FALSE(matches(g, R"(["abcd"])"));
}

TEST_CASE("enum, const, anyOf, a list of types, and any value", "[grammar][json]") {
  const auto e = of(R"({"enum": ["red", 3, null]})");
  CHECK(matches(e, R"("red")"));
  CHECK(matches(e, "3"));
  CHECK(matches(e, "null"));
  CHECK_FALSE(matches(e, R"("blue")"));
  CHECK(matches(of(R"({"const": {"k": [1, true]}})"), R"({"k":[1,true]})"));
  const auto any_of = of(R"({"anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "boolean"}}]})");
  CHECK(matches(any_of, "12"));
  CHECK(matches(any_of, "[true, false]"));
  CHECK_FALSE(matches(any_of, R"("x")"));
  const auto types = of(R"({"type": ["string", "null"]})");
  CHECK(matches(types, "null"));
  CHECK(matches(types, R"("x")"));
  const auto any = of("{}");
  CHECK(matches(any, R"({"a": [1, {"b": null}], "c": "d"})"));
  CHECK_FALSE(matches(any, R"({"a": })"));
}

TEST_CASE("unsupported keywords and bad schemas are refused by name", "[grammar][json]") {
  using Catch::Contains;
  CHECK_THROWS_WITH(of(R"({"type": "string", "pattern": "^a"})"), Contains("'pattern' is not supported"));
  CHECK_THROWS_WITH(of(R"({"$ref": "#/defs/x"})"), Contains("'$ref' is not supported"));
  CHECK_THROWS_WITH(of(R"({"type": "integer", "minimum": 0})"), Contains("'minimum' is not supported"));
  CHECK_THROWS_WITH(of(R"({"type": "object", "properties": {}, "additionalProperties": true})"),
                    Contains("additionalProperties"));
  CHECK_THROWS_WITH(of(R"({"type": "decimal"})"), Contains("unknown type 'decimal'"));
  CHECK_THROWS_WITH(of(R"({"type": )"), Contains("not valid JSON"));
  CHECK_THROWS_WITH(of(R"({"ty": 1e6660})"), Contains("not valid JSON"));  // found by fuzz_grammar
  CHECK_THROWS_WITH(of(R"({"type": "object", "properties": {"a": {}}, "required": ["b"]})"),
                    Contains("required property 'b'"));
  // Annotations are fine.
  CHECK_NOTHROW(of(R"({"title": "T", "description": "d", "type": "string", "format": "date"})"));
}
