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
  CHECK_THROWS_WITH(of(R"({"type": "number", "multipleOf": 2})"), Contains("'multipleOf' is not supported"));
  CHECK_THROWS_WITH(of(R"({"type": "number", "minimum": 0})"), Contains("'minimum' is supported on integers only"));
  CHECK_THROWS_WITH(of(R"({"minimum": 0})"), Contains("need \"type\": \"integer\""));
  CHECK_THROWS_WITH(of(R"({"$ref": "https://example.com/s.json"})"), Contains("only references into this schema"));
  CHECK_THROWS_WITH(of(R"({"$ref": "#/$defs/missing"})"), Contains("points at nothing"));
  CHECK_THROWS_WITH(of(R"({"type": "string", "pattern": "^(?=a)b$"})"), Contains("lookarounds"));
  CHECK_THROWS_WITH(of(R"({"type": "string", "pattern": "^(a)\\1$"})"), Contains("backreferences"));
  CHECK_THROWS_WITH(of(R"({"type": "string", "pattern": "a^b"})"), Contains("anchor inside the pattern"));
  CHECK_THROWS_WITH(of(R"({"type": "string", "pattern": "^[a-"})"), Contains("unterminated character class"));
  CHECK_THROWS_WITH(of(R"({"type": "string", "pattern": "^a{3,2}$"})"), Contains("out of order"));
  CHECK_THROWS_WITH(of(R"({"type": "string", "pattern": "^a", "maxLength": 3})"), Contains("together with"));
  CHECK_THROWS_WITH(of(R"({"type": "integer", "minimum": 5, "maximum": 4})"), Contains("no integer lies between"));
  CHECK_THROWS_WITH(of(R"({"allOf": [{"type": "string"}, {"type": "integer"}]})"), Contains("nothing in common"));
  CHECK_THROWS_WITH(of(R"({"allOf": [{"pattern": "^a"}, {"pattern": "^b"}]})"), Contains("'pattern' differs"));
  CHECK_THROWS_WITH(of(R"({"type": "decimal"})"), Contains("unknown type 'decimal'"));
  CHECK_THROWS_WITH(of(R"({"type": )"), Contains("not valid JSON"));
  CHECK_THROWS_WITH(of(R"({"ty": 1e6660})"), Contains("not valid JSON"));  // found by fuzz_grammar
  CHECK_THROWS_WITH(of(R"({"type": "object", "properties": {"a": {}}, "required": ["b"]})"),
                    Contains("required property 'b'"));
  CHECK_THROWS_WITH(of(R"({"type": "object", "required": ["b"]})"), Contains("required property 'b'"));
  CHECK_THROWS_WITH(of(R"({"type": "array", "minItems": -1})"), Contains("'minItems' must be an integer"));
  CHECK_THROWS_WITH(of(R"({"type": "string", "maxLength": 1001})"), Contains("from 0 to 1000"));
  // Left recursion through a reference: the converter refuses it (with the
  // grammar parser's words), so that every schema it accepts gives a grammar.
  CHECK_THROWS_WITH(ck::grammar::json_schema_to_gbnf(
                        R"({"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "null"}]}}, "$ref": "#/$defs/a"})"),
                    Contains("JSON schema: its grammar cannot be used") && Contains("left recursion"));
  // Annotations are fine.
  CHECK_NOTHROW(of(R"({"title": "T", "description": "d", "type": "string", "format": "date"})"));
}

TEST_CASE("$ref: local definitions, $defs, JSON pointers and recursion", "[grammar][json][issue13]") {
  const auto g = of(R"({"definitions": {"pt": {"type": "object", "properties": {"x": {"type": "integer"}},
                        "required": ["x"]}}, "type": "array", "items": {"$ref": "#/definitions/pt"}})");
  CHECK(matches(g, R"([{"x": 1}, {"x": -2}])"));
  CHECK_FALSE(matches(g, R"([{"x": "1"}])"));
  CHECK_FALSE(matches(g, R"([{"y": 1}])"));
  // A tree: recursion through $defs; ~1 in a pointer is '/'.
  const auto tree = of(R"({"$defs": {"a/b": {"type": "object", "properties": {"v": {"type": "integer"},
      "kids": {"type": "array", "items": {"$ref": "#/$defs/a~1b"}, "maxItems": 2}}, "required": ["v"]}},
      "$ref": "#/$defs/a~1b"})");
  CHECK(matches(tree, R"({"v": 1, "kids": [{"v": 2}, {"v": 3, "kids": [{"v": 4, "kids": []}]}]})"));
  CHECK_FALSE(matches(tree, R"({"v": 1, "kids": [{"v": 2}, {"v": 3}, {"v": 4}]})"));
  CHECK_FALSE(matches(tree, R"({"v": 1, "kids": [{"kids": []}]})"));
  // "#" is the whole schema; a $ref with keywords beside it means both.
  const auto list = of(R"({"type": "object", "properties": {"next": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}},
                           "required": ["next"]})");
  CHECK(matches(list, R"({"next": {"next": {"next": null}}})"));
  CHECK_FALSE(matches(list, R"({"next": {}})"));
  const auto both = of(R"({"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s", "maxLength": 2})");
  CHECK(matches(both, R"("ab")"));
  CHECK_FALSE(matches(both, R"("abc")"));
}

TEST_CASE("allOf merges the parts; anyOf's siblings apply to each alternative", "[grammar][json][issue13]") {
  const auto g = of(R"({"$defs": {"named": {"type": "object", "properties": {"name": {"type": "string"}},
      "required": ["name"]}}, "allOf": [{"$ref": "#/$defs/named"},
      {"properties": {"age": {"type": "integer", "minimum": 0}}, "required": ["age"]},
      {"properties": {"age": {"maximum": 150}}}]})");
  CHECK(matches(g, R"({"name": "a", "age": 150})"));
  CHECK_FALSE(matches(g, R"({"name": "a", "age": 151})"));  // both parts' bounds
  CHECK_FALSE(matches(g, R"({"name": "a", "age": -1})"));
  CHECK_FALSE(matches(g, R"({"name": "a"})"));  // age is required by the second part
  CHECK_FALSE(matches(g, R"({"age": 3})"));
  const auto types = of(R"({"allOf": [{"type": ["number", "string"]}, {"type": ["integer", "null"]}]})");
  CHECK(matches(types, "7"));
  CHECK_FALSE(matches(types, "7.5"));
  CHECK_FALSE(matches(types, R"("7")"));
  const auto any = of(R"({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
      "anyOf": [{"required": ["a"]}, {"required": ["b"]}]})");
  CHECK(matches(any, R"({"a": 1})"));
  CHECK(matches(any, R"({"b": 1})"));
  CHECK(matches(any, R"({"a": 1, "b": 2})"));
  CHECK_FALSE(matches(any, "{}"));
  CHECK_FALSE(matches(any, R"({"c": 1})"));
}

TEST_CASE("integer minimum, maximum and the exclusive bounds", "[grammar][json][issue13]") {
  auto in_range = [](const char* schema, long lo, long hi) {
    const auto g = of(schema);
    for (long v = lo - 1200; v <= hi + 1200; ++v) {
      INFO(schema << " at " << v);
      CHECK(matches(g, std::to_string(v)) == (v >= lo && v <= hi));
    }
  };
  in_range(R"({"type": "integer", "minimum": -1234, "maximum": 345})", -1234, 345);
  in_range(R"({"type": "integer", "minimum": 100, "maximum": 349})", 100, 349);
  in_range(R"({"type": "integer", "exclusiveMinimum": -10, "exclusiveMaximum": 1000})", -9, 999);
  in_range(R"({"type": "integer", "minimum": 2.5, "maximum": 20.5})", 3, 20);
  in_range(R"({"type": "integer", "minimum": -50, "maximum": -7})", -50, -7);
  in_range(R"({"type": "integer", "minimum": 5, "exclusiveMinimum": true, "maximum": 9, "exclusiveMaximum": true})", 6, 8);
  const auto min_only = of(R"({"type": "integer", "minimum": 97})");
  CHECK(matches(min_only, "97"));
  CHECK(matches(min_only, "123456789012"));
  CHECK_FALSE(matches(min_only, "96"));
  CHECK_FALSE(matches(min_only, "-100"));
  CHECK_FALSE(matches(min_only, "097"));  // no leading zeros
  const auto max_only = of(R"({"type": "integer", "maximum": -3})");
  CHECK(matches(max_only, "-3"));
  CHECK(matches(max_only, "-98765"));
  CHECK_FALSE(matches(max_only, "-2"));
  CHECK_FALSE(matches(max_only, "0"));
  const auto zero = of(R"({"type": "integer", "minimum": 0, "maximum": 0})");
  CHECK(matches(zero, "0"));
  CHECK_FALSE(matches(zero, "-0"));
  CHECK_FALSE(matches(zero, "00"));
  const auto wide = of(R"({"type": "integer", "minimum": -9223372036854775807, "maximum": 9223372036854775806})");
  CHECK(matches(wide, "9223372036854775806"));
  CHECK_FALSE(matches(wide, "9223372036854775807"));
  CHECK(matches(wide, "-9223372036854775807"));
}

TEST_CASE("string lengths, arrays, enum, const, anyOf and additionalProperties", "[grammar][json][issue13]") {
  const auto len = of(R"({"type": "string", "minLength": 2, "maxLength": 3})");
  CHECK_FALSE(matches(len, R"("a")"));
  CHECK(matches(len, R"("ab")"));
  CHECK(matches(len, R"("a\"c")"));  // an escape is one character
  CHECK_FALSE(matches(len, R"("abcd")"));
  const auto items = of(R"({"items": {"type": "integer"}, "minItems": 2, "maxItems": 3})");  // array implied
  CHECK_FALSE(matches(items, "[1]"));
  CHECK(matches(items, "[1, 2]"));
  CHECK(matches(items, "[1,2,3]"));
  CHECK_FALSE(matches(items, "[1, 2, 3, 4]"));
  CHECK_FALSE(matches(items, R"([1, "2"])"));
  const auto c = of(R"({"const": "a\"b"})");
  CHECK(matches(c, R"("a\"b")"));
  CHECK_FALSE(matches(c, R"("ab")"));
  const auto extra = of(R"({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"],
                            "additionalProperties": {"type": "string"}})");
  CHECK(matches(extra, R"({"id": 1})"));
  CHECK(matches(extra, R"({"id": 1, "x": "a", "idx": "b", "i": "c", "": "d"})"));
  CHECK_FALSE(matches(extra, R"({"id": 1, "x": 2})"));     // others are strings
  CHECK_FALSE(matches(extra, R"({"id": 1, "id": "a"})"));  // not a second "id"
  const auto map = of(R"({"type": "object", "additionalProperties": {"type": "boolean"}})");
  CHECK(matches(map, "{}"));
  CHECK(matches(map, R"({"a": true, "b": false})"));
  CHECK_FALSE(matches(map, R"({"a": 1})"));
  const auto any_extra = of(R"({"type": "object", "properties": {"a": {"type": "null"}}, "additionalProperties": true})");
  CHECK(matches(any_extra, R"({"b": [1, {"c": 2}]})"));
  CHECK(matches(any_extra, R"({"a": null, "b": 1})"));
  CHECK_FALSE(matches(any_extra, R"({"a": 1})"));
  const auto closed = of(R"({"type": "object", "additionalProperties": false})");
  CHECK(matches(closed, "{}"));
  CHECK_FALSE(matches(closed, R"({"a": 1})"));
  const auto one_of = of(R"({"oneOf": [{"type": "boolean"}, {"const": 3}]})");
  CHECK(matches(one_of, "true"));
  CHECK(matches(one_of, "3"));
  CHECK_FALSE(matches(one_of, "4"));
}
