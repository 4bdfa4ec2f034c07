// Grammar-constrained output end to end: JSON that parses and fits its
// schema, on stories260K and SmolLM2, in ck-run and the chat; grammars from
// the command line and files; clear errors for bad ones.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "app_test_support.h"
#include "subprocess.h"

using ck::test::run_app;
using ck::test::stories_model;
using nlohmann::json;

namespace {

// Bounded strings and arrays: a small model cannot run on past -n.
const char* kPerson = R"({"type": "object", "properties": {
  "name": {"type": "string", "maxLength": 20}, "age": {"type": "integer"},
  "tags": {"type": "array", "items": {"type": "string", "maxLength": 8}, "maxItems": 3},
  "pet": {"type": "object", "properties": {"kind": {"enum": ["cat", "dog"]}, "good": {"type": "boolean"}},
          "required": ["kind", "good"]}},
  "required": ["name", "age", "tags", "pet"]})";
const char* kColors = R"({"type": "array", "items": {"enum": ["red", "green", "blue"]}, "minItems": 1, "maxItems": 4})";
const char* kOptional = R"({"type": "object", "properties": {"done": {"type": "boolean"},
  "note": {"anyOf": [{"type": "null"}, {"type": "string", "maxLength": 10}]}}})";
// The keywords added last: $ref, allOf, pattern, integer bounds, const, oneOf,
// additionalProperties, and a type implied by its keywords.
const char* kOrder = R"({"$defs": {
    "code": {"type": "string", "pattern": "^[A-Z]{2}-\\d{3}$"},
    "base": {"type": "object", "properties": {"id": {"$ref": "#/$defs/code"}}, "required": ["id"]}},
  "allOf": [{"$ref": "#/$defs/base"},
            {"properties": {"qty": {"type": "integer", "minimum": 1, "maximum": 12},
                            "temp": {"type": "integer", "exclusiveMinimum": -40, "exclusiveMaximum": 0},
                            "unit": {"const": "C"}},
             "required": ["qty", "temp", "unit"]}]})";
const char* kTagged = R"({"type": "object", "properties": {
    "kind": {"oneOf": [{"const": "a"}, {"type": "integer", "minimum": 100, "maximum": 999}]},
    "words": {"items": {"type": "string", "pattern": "^[a-z]{1,6}$"}, "minItems": 1, "maxItems": 3}},
  "required": ["kind", "words"], "additionalProperties": false})";
// Other properties: their keys are free strings, which stories260K may write
// until -n; SmolLM2 ends them.
const char* kPrices = R"({"type": "object", "properties": {"shop": {"type": "string", "maxLength": 12}},
  "required": ["shop"], "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 99}})";

json generated_json(const std::string& model, const char* schema, const std::vector<std::string>& sampling,
                    const std::string& prompt = "Once upon a time") {
  std::vector<std::string> argv = {"ck-run", "-m", model, "-p", prompt, "-no-cnv", "-n", "200", "--no-display-prompt",
                                   "--json-schema", schema, "-t", "1"};
  argv.insert(argv.end(), sampling.begin(), sampling.end());
  const auto r = run_app(argv);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("stopped: end-of-generation token") != std::string::npos);  // the grammar was complete
  INFO("output: " << r.out);
  return json::parse(r.out);  // throws (fails the test) when it is not JSON
}

void check_person(const json& j) {
  REQUIRE(j.is_object());
  CHECK(j.size() == 4);
  CHECK(j["name"].is_string());
  CHECK(j["name"].get<std::string>().size() <= 20);
  CHECK(j["age"].is_number_integer());
  REQUIRE(j["tags"].is_array());
  CHECK(j["tags"].size() <= 3);
  for (const json& t : j["tags"]) CHECK(t.is_string());
  CHECK((j["pet"]["kind"] == "cat" || j["pet"]["kind"] == "dog"));
  CHECK(j["pet"]["good"].is_boolean());
}

void check_colors(const json& j) {
  REQUIRE(j.is_array());
  CHECK(!j.empty());
  CHECK(j.size() <= 4);
  for (const json& c : j) CHECK((c == "red" || c == "green" || c == "blue"));
}

void check_optional(const json& j) {
  REQUIRE(j.is_object());
  for (const auto& [key, value] : j.items()) {
    CHECK((key == "done" || key == "note"));
    if (key == "done") CHECK(value.is_boolean());
    if (key == "note") CHECK((value.is_null() || value.is_string()));
  }
}

// The output fits its schema by the jsonschema package (Draft 2020-12).
void check_with_jsonschema(const char* schema, const json& output) {
  const std::string schema_file = ck::test::temp_file("schema.json", schema);
  const std::string output_file = ck::test::temp_file("output.json", output.dump());
  ck::test::ProcessOptions python;
  python.executable = "/usr/bin/env";
  const auto r = run_app({"env", "python3", std::string(CK_SOURCE_DIR) + "/tests/apps/validate_json.py", schema_file,
                          output_file},
                         "", python);
  INFO("output " << output.dump() << ": " << r.err);
  CHECK(r.exit_code == 0);
}

}  // namespace

TEST_CASE("the jsonschema check itself refuses what breaks the schema", "[grammar][ck-run][issue13]") {
  // So that a pass below means something: the same check on wrong output.
  ck::test::ProcessOptions python;
  python.executable = "/usr/bin/env";
  for (const char* wrong : {R"({"id": "AB-12", "qty": 3, "temp": -5, "unit": "C"})",
                            R"({"id": "AB-123", "qty": 13, "temp": -5, "unit": "C"})",
                            R"({"id": "AB-123", "qty": 3, "temp": 0, "unit": "C"})"}) {
    const auto r = run_app({"env", "python3", std::string(CK_SOURCE_DIR) + "/tests/apps/validate_json.py",
                            ck::test::temp_file("schema.json", kOrder), ck::test::temp_file("output.json", wrong)},
                           "", python);
    INFO(wrong << ": " << r.err);
    CHECK(r.exit_code == 1);
  }
}

TEST_CASE("ck-run --json-schema: $ref, allOf, pattern, bounds and additionalProperties hold on both models",
          "[grammar][ck-run][issue13]") {
  for (const std::vector<std::string>& sampling :
       {std::vector<std::string>{"--temp", "0"}, {"--temp", "1", "-s", "3"}, {"--temp", "1.5", "-s", "11"}}) {
    INFO(sampling[1]);
    check_with_jsonschema(kOrder, generated_json(stories_model(), kOrder, sampling));
    check_with_jsonschema(kTagged, generated_json(stories_model(), kTagged, sampling));
  }
  INFO(ck::test::kFetchSmol);
  REQUIRE(ck::test::have_smollm2());
  const std::string m = ck::test::smollm2_model();
  check_with_jsonschema(kOrder, generated_json(m, kOrder, {"--temp", "0"}, "An order as JSON:"));
  check_with_jsonschema(kTagged, generated_json(m, kTagged, {"--temp", "0.8", "-s", "5"}, "Tagged words as JSON:"));
  // Greedy only: with free keys, whether a sampled run closes the object
  // within -n is the draw's, not the grammar's (seed 5 at temperature 0.8
  // ended until session 10's kernels moved the logits, then looped on keys).
  const json prices = generated_json(m, kPrices, {"--temp", "0"}, "The prices of three fruits as JSON:");
  CHECK(prices.size() > 1);  // some other properties were written
  check_with_jsonschema(kPrices, prices);
}

TEST_CASE("ck-run --json-schema: stories260K writes JSON of the schema, greedy and sampled", "[grammar][ck-run][issue13]") {
  for (const std::vector<std::string>& sampling :
       {std::vector<std::string>{"--temp", "0"}, {"--temp", "1", "-s", "3"}, {"--temp", "1.5", "-s", "11"}}) {
    INFO(sampling[1]);
    check_person(generated_json(stories_model(), kPerson, sampling));
    check_colors(generated_json(stories_model(), kColors, sampling));
    check_optional(generated_json(stories_model(), kOptional, sampling));
  }
}

TEST_CASE("ck-run --json-schema: SmolLM2 writes JSON of the schema, in ck-run and the chat", "[grammar][ck-run][issue13]") {
  INFO(ck::test::kFetchSmol);
  REQUIRE(ck::test::have_smollm2());
  const std::string m = ck::test::smollm2_model();
  check_person(generated_json(m, kPerson, {"--temp", "0"}, "A person as JSON:"));
  check_colors(generated_json(m, kColors, {"--temp", "0.8", "-s", "5"}, "Some colours as JSON:"));
  check_optional(generated_json(m, kOptional, {"--temp", "0"}, "A task as JSON:"));
  // The chat: the answer follows the grammar, the template around it does not.
  const auto chat = run_app({"ck-chat", "-m", m, "-p", "Name three colours.", "-st", "-n", "100", "--temp", "0", "-t",
                             "1", "--json-schema", kColors});
  INFO(chat.err);
  REQUIRE(chat.exit_code == 0);
  check_colors(json::parse(chat.out));
}

TEST_CASE("ck-run --grammar and --grammar-file: the output is in the language and ends only where it can end",
          "[grammar][ck-run][issue13]") {
  // A strong bias toward the end-of-sequence token (2) cannot end the text
  // before the grammar is complete.
  const auto r = run_app({"ck-run", "-m", stories_model(), "-p", "Once upon a time", "-n", "50", "--temp", "0",
                          "--no-display-prompt", "-l", "2+100", "--grammar", "root ::= (\"yes\" | \"no\") \"!\""});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK((r.out == "yes!" || r.out == "no!"));
  const auto file = ck::test::temp_file("ck_grammar.gbnf", "# digits and dashes\nroot ::= [0-9]{3} (\"-\" [0-9]{2}){2}\n");
  const auto f = run_app({"ck-run", "-m", stories_model(), "-p", "Once upon a time", "-n", "50", "--temp", "1", "-s",
                          "2", "--no-display-prompt", "--grammar-file", file});
  INFO(f.err);
  CHECK(f.exit_code == 0);
  CHECK(std::regex_match(f.out, std::regex(R"(\d{3}-\d{2}-\d{2})")));
  std::filesystem::remove(file);
}

TEST_CASE("a bad grammar or schema: one error line with the flag, line and column", "[grammar][ck-run][issue13]") {
  const std::pair<std::vector<std::string>, std::string> bad[] = {
      {{"--grammar", "root ::= \"a"}, "ck-run: error: --grammar: line 1, column 10: unterminated string literal\n"},
      {{"--grammar", "root ::= x"}, "ck-run: error: --grammar: line 1, column 10: undefined rule 'x'\n"},
      {{"--json-schema", "{\"type\": \"string\", \"pattern\": \"(?!a)\"}"},
       "ck-run: error: --json-schema: JSON schema: pattern '(?!a)': lookarounds and other (?...) groups are not "
       "supported (at root)\n"},
      {{"--grammar-file", "/nonexistent.gbnf"}, "ck-run: error: --grammar-file /nonexistent.gbnf: /nonexistent.gbnf"},
      {{"--grammar", "root ::= \"a\"", "--json-schema", "{}"}, "give one of --grammar, --grammar-file"},
  };
  for (const auto& [flags, message] : bad) {
    std::vector<std::string> argv = {"ck-run", "-m", stories_model(), "-p", "x"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    const auto r = run_app(argv);
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(ck::test::is_one_error_line(r.err, "ck-run"));
    CHECK(r.err.find(message) != std::string::npos);
  }
}
