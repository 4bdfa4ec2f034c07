#include "grammar/json_schema.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

#include "grammar/gbnf_text.h"
#include "grammar/int_range.h"
#include "grammar/parser.h"
#include "grammar/regex_pattern.h"
#include "grammar/schema_keywords.h"
#include "grammar/schema_merge.h"
#include "grammar/utf8_tokens.h"

namespace ck::grammar {
namespace {

using Json = nlohmann::ordered_json;

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("JSON schema: " + what); }

// The JSON primitives, as llama.cpp's converter writes them; each is added
// to the grammar only when used.
const std::pair<const char*, const char*> kPrimitives[] = {
    {"space", R"(| " " | "\n" [ \t]{0,20})"},
    {"char", R"([^"\\\x7F\x00-\x1F] | [\\] (["\\/bfnrt] | "u" [0-9a-fA-F]{4}))"},
    {"string", R"("\"" char* "\"" space)"},
    {"integral-part", R"([0] | [1-9] [0-9]{0,15})"},
    {"number", R"("-"? integral-part ("." [0-9]+)? ([eE] [-+]? [0-9]+)? space)"},
    {"integer", R"("-"? integral-part space)"},
    {"boolean", R"(("true" | "false") space)"},
    {"null", R"("null" space)"},
    {"value", R"(object | array | string | number | boolean | null)"},
    {"object", R"("{" space (string ":" space value ("," space string ":" space value)*)? "}" space)"},
    {"array", R"("[" space (value ("," space value)*)? "]" space)"},
};

// What each primitive refers to, so that using one adds those too.
const std::pair<const char*, std::vector<const char*>> kNeeds[] = {
    {"string", {"char", "space"}},     {"number", {"integral-part", "space"}},
    {"integer", {"integral-part", "space"}}, {"boolean", {"space"}},
    {"null", {"space"}},               {"value", {"object", "array", "string", "number", "boolean", "null"}},
    {"object", {"space", "string", "value"}}, {"array", {"space", "value"}},
};

const std::set<std::string> kKnown = {
    "type",      "properties", "required",   "additionalProperties", "items",   "minItems",         "maxItems",
    "minLength", "maxLength",  "pattern",    "minimum",              "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "enum",      "const",      "anyOf",      "oneOf",                "allOf",   "$ref"};

// The keywords that belong to one type: a schema without "type" that uses
// them is of that type.
const std::pair<const char*, std::vector<const char*>> kTypeKeywords[] = {
    {"object", {"properties", "required", "additionalProperties"}},
    {"array", {"items", "minItems", "maxItems"}},
    {"string", {"pattern", "minLength", "maxLength"}},
    {"integer", {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}},
};

std::string repetition(int min, int max) {  // max -1: no limit
  if (min == 0 && max == -1) return "*";
  if (min == 1 && max == -1) return "+";
  if (max == -1) return "{" + std::to_string(min) + ",}";
  return "{" + std::to_string(min) + "," + std::to_string(max) + "}";
}

// Whether `schema` says more than its annotations and the keywords in `besides`.
bool constrains(const Json& schema, std::initializer_list<const char*> besides) {
  for (const auto& [key, v] : schema.items()) {
    if (!is_annotation(key) && std::find(besides.begin(), besides.end(), key) == besides.end()) return true;
  }
  return false;
}

// A count keyword (minItems, maxLength, ...): a non-negative integer, at
// most the grammar's repetition limit.
std::optional<int> count(const Json& schema, const char* key) {
  if (!schema.contains(key)) return std::nullopt;
  const Json& v = schema[key];
  if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 1000) {
    fail(std::string("'") + key + "' must be an integer from 0 to 1000 (the grammar's repetition limit), got " +
         v.dump());
  }
  return v.get<int>();
}

// An integer bound: the lowest (`lower`) or highest integer the number
// `v` allows, inclusive or not.
int64_t integer_bound(const Json& v, const char* key, bool lower, bool exclusive) {
  if (!v.is_number()) fail(std::string("'") + key + "' must be a number, got " + v.dump());
  constexpr double kLimit = 9.2e18;  // inside int64 with room for the +-1
  if (v.is_number_integer() && !(v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{INT64_MAX} - 1)) {
    const int64_t i = v.get<int64_t>();
    if (i == INT64_MIN || i == INT64_MAX) fail(std::string("'") + key + "' is out of the range of 64-bit integers");
    return exclusive ? (lower ? i + 1 : i - 1) : i;
  }
  const double d = v.get<double>();
  if (!(std::abs(d) < kLimit)) fail(std::string("'") + key + "' is out of the range of 64-bit integers");
  const double b = exclusive ? (lower ? std::floor(d) + 1 : std::ceil(d) - 1) : (lower ? std::ceil(d) : std::floor(d));
  return static_cast<int64_t>(b);
}

class Converter {
 public:
  explicit Converter(const Json& root) : root_(root) {}

  std::string convert() {
    define("root", expression(root_, "root"));
    std::string out;
    for (const auto& [name, body] : rules_) out += name + " ::= " + body + "\n";
    for (const auto& [name, body] : kPrimitives) {
      if (used_.count(name) != 0) out += std::string(name) + " ::= " + body + "\n";
    }
    return out;
  }

 private:
  void use(const std::string& primitive) {
    if (!used_.insert(primitive).second) return;
    for (const auto& [name, needs] : kNeeds) {
      if (primitive == name) {
        for (const char* n : needs) use(n);
      }
    }
  }

  void define(const std::string& name, const std::string& body) { rules_.emplace_back(name, body); }

  // A rule name not taken yet, from a schema path ("root-address-city").
  std::string fresh(std::string base) {
    for (char& c : base) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
      if (!ok) c = '-';
    }
    std::string name = base;
    for (int i = 1; names_.count(name) != 0 || std::any_of(std::begin(kPrimitives), std::end(kPrimitives),
                                                           [&](const auto& p) { return name == p.first; });
         ++i) {
      name = base + "-" + std::to_string(i);
    }
    names_.insert(name);
    return name;
  }

  // A rule for `schema`, named from `path`; returns its name.
  std::string rule_for(const Json& schema, const std::string& path) {
    const std::string name = fresh(path);
    define(name, expression(schema, name));
    return name;
  }

  // The schema a local reference ("#", "#/$defs/name", any JSON pointer into
  // this document) points at.
  const Json& resolve(const Json& ref) const {
    if (!ref.is_string()) fail("'$ref' must be a string");
    const std::string r = ref.get<std::string>();
    if (r.empty() || r[0] != '#') fail("'$ref' " + r + ": only references into this schema (#/...) are supported");
    try {
      return root_.at(Json::json_pointer(r.substr(1)));
    } catch (const Json::exception&) {
      fail("'$ref' " + r + " points at nothing in the schema");
    }
  }

  // One rule per reference, so that a recursive schema becomes a recursive grammar.
  std::string ref_rule(const Json& ref) {
    const Json& target = resolve(ref);
    const std::string key = ref.get<std::string>();
    const auto it = ref_rules_.find(key);
    if (it != ref_rules_.end()) return it->second;
    const size_t slash = key.find_last_of('/');
    const std::string base = slash == std::string::npos ? "" : key.substr(slash + 1);
    const std::string name = fresh(base.empty() ? "ref" : base);
    ref_rules_.emplace(key, name);
    define(name, expression(target, name));
    return name;
  }

  // allOf's parts with references resolved and nested allOf flattened.
  void flatten(const Json& schema, std::vector<Json>& parts, int depth) {
    if (depth > kMaxDepth) fail("'allOf' and '$ref' nested more than " + std::to_string(kMaxDepth) + " deep");
    if (!schema.is_object()) {
      parts.push_back(schema);
      return;
    }
    Json rest = schema;
    rest.erase("allOf");
    rest.erase("$ref");
    parts.push_back(rest);
    if (schema.contains("$ref")) flatten(resolve(schema["$ref"]), parts, depth + 1);
    if (schema.contains("allOf")) {
      if (!schema["allOf"].is_array() || schema["allOf"].empty()) fail("'allOf' must be a non-empty array");
      for (const Json& s : schema["allOf"]) flatten(s, parts, depth + 1);
    }
  }

  Json merged(const Json& schema) {
    std::vector<Json> parts;
    flatten(schema, parts, 0);
    try {
      return merge_schemas(parts);
    } catch (const std::runtime_error& e) {
      fail(e.what());
    }
  }

  std::string expression(const Json& schema, const std::string& path) {
    // One level of recursion per level of the schema.
    if (++depth_ > kMaxDepth) fail("nested more than " + std::to_string(kMaxDepth) + " levels deep (at " + path + ")");
    std::string e = expression_at_depth(schema, path);
    --depth_;
    return e;
  }

  std::string expression_at_depth(const Json& schema, const std::string& path) {
    if (schema.is_boolean()) {
      if (!schema.get<bool>()) fail("the schema 'false' matches nothing");
      use("value");
      return "value";
    }
    if (!schema.is_object()) fail("a schema must be an object, at " + path);
    for (const auto& [key, v] : schema.items()) {
      if (kKnown.count(key) == 0 && !is_annotation(key)) fail("'" + key + "' is not supported (at " + path + ")");
    }
    if (schema.contains("$ref") && !constrains(schema, {"$ref"})) return ref_rule(schema["$ref"]);
    if (schema.contains("$ref") || schema.contains("allOf")) return expression(merged(schema), path);
    if (schema.contains("const")) {
      use("space");
      return gbnf_literal(schema["const"].dump()) + " space";
    }
    if (schema.contains("enum")) {
      if (!schema["enum"].is_array() || schema["enum"].empty()) fail("'enum' must be a non-empty array");
      std::string alts;
      for (const Json& v : schema["enum"]) alts += (alts.empty() ? "" : " | ") + gbnf_literal(v.dump());
      use("space");
      return "(" + alts + ") space";
    }
    for (const char* key : {"anyOf", "oneOf"}) {
      if (schema.contains(key)) return any_of(schema, key, path);
    }
    const Json type = schema.contains("type") ? schema["type"] : implied_type(schema, path);
    if (type.is_null()) {
      use("value");
      return "value";
    }
    if (type.is_array()) {
      std::string alts;
      for (const Json& t : type) {
        if (!t.is_string()) fail("'type' must be a string or a list of strings");
        Json one = schema;
        one["type"] = t;
        alts += (alts.empty() ? "" : " | ") + rule_for(one, path + "-" + t.get<std::string>());
      }
      return alts;
    }
    if (!type.is_string()) fail("'type' must be a string or a list of strings");
    const std::string t = type.get<std::string>();
    if (t == "object") return object(schema, path);
    if (t == "array") return array(schema, path);
    if (t == "string") return string(schema, path);
    if (t == "integer") return integer(schema, path);
    if (t == "number") {
      for (const char* bound : {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}) {
        if (schema.contains(bound)) fail(std::string("'") + bound + "' is supported on integers only, not on the number at " + path);
      }
    }
    if (t == "number" || t == "boolean" || t == "null") {
      use(t);
      return t;
    }
    fail("unknown type '" + t + "'");
  }

  // A schema without "type": the type its keywords belong to (null: any value).
  Json implied_type(const Json& schema, const std::string& path) {
    Json type;
    for (const auto& [name, keywords] : kTypeKeywords) {
      for (const char* k : keywords) {
        if (!schema.contains(k)) continue;
        if (!type.is_null() && type != name) fail("keywords of several types without a 'type' (at " + path + ")");
        type = name;
      }
    }
    if (type == "integer") fail("'minimum' and 'maximum' need \"type\": \"integer\" (at " + path + ")");
    return type;
  }

  // anyOf / oneOf (as anyOf, like llama.cpp: the grammar cannot check that
  // only one matches); keywords beside it apply to every alternative.
  std::string any_of(const Json& schema, const char* key, const std::string& path) {
    const Json& list = schema[key];
    if (!list.is_array() || list.empty()) fail(std::string("'") + key + "' must be a non-empty array");
    Json shared = schema;
    shared.erase(key);
    const bool narrowed = constrains(shared, {});
    std::string alts;
    int i = 0;
    for (const Json& s : list) {
      const Json alt = narrowed ? Json{{"allOf", Json::array({shared, s})}} : s;
      alts += (alts.empty() ? "" : " | ") + rule_for(alt, path + "-" + std::to_string(i++));
    }
    return alts;
  }

  std::string string(const Json& schema, const std::string& path) {
    const auto min = count(schema, "minLength"), max = count(schema, "maxLength");
    if (schema.contains("pattern")) {
      if (min || max) fail("'pattern' together with 'minLength' or 'maxLength' is not supported (at " + path + ")");
      if (!schema["pattern"].is_string()) fail("'pattern' must be a string");
      use("char");
      use("space");
      try {
        return pattern_to_gbnf(schema["pattern"].get<std::string>()) + " space";
      } catch (const std::runtime_error& e) {
        fail(std::string(e.what()) + " (at " + path + ")");
      }
    }
    use("string");
    if (!min && !max) return "string";
    if (max && *max < min.value_or(0)) fail("'maxLength' is below 'minLength' at " + path);
    return "\"\\\"\" char" + repetition(min.value_or(0), max.value_or(-1)) + " \"\\\"\" space";
  }

  std::string integer(const Json& schema, const std::string& path) {
    std::optional<int64_t> lo, hi;
    auto lower = [&](int64_t v) { lo = lo ? std::max(*lo, v) : v; };
    auto upper = [&](int64_t v) { hi = hi ? std::min(*hi, v) : v; };
    // Draft 4 writes an exclusive bound as a boolean beside minimum / maximum.
    const bool draft4_min = schema.value("exclusiveMinimum", Json()).is_boolean() && schema["exclusiveMinimum"].get<bool>();
    const bool draft4_max = schema.value("exclusiveMaximum", Json()).is_boolean() && schema["exclusiveMaximum"].get<bool>();
    if (schema.contains("minimum")) lower(integer_bound(schema["minimum"], "minimum", true, draft4_min));
    if (schema.contains("maximum")) upper(integer_bound(schema["maximum"], "maximum", false, draft4_max));
    if (schema.contains("exclusiveMinimum") && !schema["exclusiveMinimum"].is_boolean()) {
      lower(integer_bound(schema["exclusiveMinimum"], "exclusiveMinimum", true, true));
    }
    if (schema.contains("exclusiveMaximum") && !schema["exclusiveMaximum"].is_boolean()) {
      upper(integer_bound(schema["exclusiveMaximum"], "exclusiveMaximum", false, true));
    }
    if (!lo && !hi) {
      use("integer");
      return "integer";
    }
    if (lo && hi && *lo > *hi) fail("no integer lies between the minimum and the maximum at " + path);
    use("space");
    return int_range_gbnf(lo, hi) + " space";
  }

  std::string array(const Json& schema, const std::string& path) {
    use("space");
    std::string item = "value";
    if (schema.contains("items")) {
      item = rule_for(schema["items"], path + "-item");
    } else {
      use("value");
    }
    const int min = count(schema, "minItems").value_or(0);
    const int max = count(schema, "maxItems").value_or(-1);
    if (max != -1 && max < min) fail("minItems/maxItems out of order at " + path);
    if (max == 0) return "\"[\" space \"]\" space";
    const std::string more = "(\",\" space " + item + ")" + repetition(std::max(min - 1, 0), max == -1 ? -1 : max - 1);
    const std::string items = item + " " + more;
    return "\"[\" space " + (min == 0 ? "(" + items + ")?" : items) + " \"]\" space";
  }

  // The keys of an object's other properties: any JSON string but the named ones.
  std::string other_key(const Json& properties, const std::string& path) {
    std::vector<std::vector<uint32_t>> names;
    for (const auto& [name, sub] : properties.items()) {
      for (unsigned char c : name) {
        if (c < 0x20 || c == '"' || c == '\\') {
          fail("other properties beside names with quotes, backslashes or control characters are not supported (at " +
               path + ")");
        }
      }
      names.push_back(decode_utf8(name).code_points);
    }
    use("char");
    use("space");
    return "\"\\\"\" " + not_prefix_rule(names, 0, path + "-other-key") + " \"\\\"\" space";
  }

  // The strings (as JSON writes them) that, after a common prefix of
  // `depth` code points, are none of `names`: each character either follows
  // one of the names on, or is another one written plainly, after which
  // anything may follow; the string may end only where no name ends.
  std::string not_prefix_rule(const std::vector<std::vector<uint32_t>>& names, size_t depth, const std::string& base) {
    std::map<uint32_t, std::vector<std::vector<uint32_t>>> next;
    bool a_name_ends = false;
    for (const auto& n : names) {
      if (n.size() == depth) a_name_ends = true;
      else next[n[depth]].push_back(n);
    }
    const std::string name = fresh(base);
    std::string alts;
    std::vector<CharRange> taken = {{0x00, 0x1F}, {'"', '"'}, {'\\', '\\'}, {0x7F, 0x7F}};
    for (const auto& [cp, rest] : next) {
      alts += (alts.empty() ? "" : " | ") + gbnf_literal(utf8_of(cp)) + " " + not_prefix_rule(rest, depth + 1, base);
      taken.push_back({cp, cp});
    }
    std::sort(taken.begin(), taken.end(), [](const CharRange& a, const CharRange& b) { return a.lo < b.lo; });
    std::vector<CharRange> other;  // the complement of `taken`
    uint32_t from = 0;
    for (const CharRange& r : taken) {
      if (r.lo > from) other.push_back({from, r.lo - 1});
      from = std::max(from, r.hi + 1);
    }
    other.push_back({from, 0x10FFFF});
    alts += (alts.empty() ? "" : " | ") + gbnf_class(other) + " char*";
    if (!a_name_ends) alts += " | \"\"";
    define(name, alts);
    return name;
  }

  std::string object(const Json& schema, const std::string& path) {
    use("space");
    const Json properties = schema.value("properties", Json::object());
    if (!properties.is_object()) fail("'properties' must be an object at " + path);
    const Json extra = schema.value("additionalProperties", Json(false));
    if (!extra.is_boolean() && !extra.is_object()) fail("'additionalProperties' must be a boolean or a schema at " + path);
    std::vector<std::string> required;
    for (const Json& r : schema.value("required", Json::array())) {
      if (!r.is_string()) fail("'required' must list property names at " + path);
      if (!properties.contains(r.get<std::string>())) {
        fail("required property '" + r.get<std::string>() + "' is not in 'properties' at " + path);
      }
      required.push_back(r.get<std::string>());
    }
    if (properties.empty() && extra == Json(true)) {  // {"type": "object"}: any object
      use("object");
      return "object";
    }
    if (!schema.contains("properties") && !schema.contains("additionalProperties")) {
      use("object");
      return "object";
    }
    // The pieces in order: the required properties, the optional ones, then
    // any number of others; the first written has no comma before it.
    struct Piece {
      std::string kv;
      enum { Once, Maybe, Many } how;
    };
    std::vector<Piece> pieces;
    auto kv = [&](const std::string& key, const Json& sub) {
      return gbnf_literal(Json(key).dump()) + " space \":\" space " + rule_for(sub, path + "-" + key);
    };
    for (const auto& [key, sub] : properties.items()) {
      if (std::find(required.begin(), required.end(), key) != required.end()) pieces.push_back({kv(key, sub), Piece::Once});
    }
    for (const auto& [key, sub] : properties.items()) {
      if (std::find(required.begin(), required.end(), key) == required.end()) pieces.push_back({kv(key, sub), Piece::Maybe});
    }
    if (extra != Json(false)) {
      if (extra == Json(true)) use("value");
      const std::string value = extra == Json(true) ? "value" : rule_for(extra, path + "-other");
      pieces.push_back({other_key(properties, path) + " \":\" space " + value, Piece::Many});
    }
    auto after = [&](size_t from) {  // the pieces after the first one written
      std::string s;
      for (size_t j = from; j < pieces.size(); ++j) {
        const std::string comma = "\",\" space " + pieces[j].kv;
        s += pieces[j].how == Piece::Once ? " " + comma : pieces[j].how == Piece::Maybe ? " (" + comma + ")?" : " (" + comma + ")*";
      }
      return s;
    };
    std::string body;
    if (!required.empty()) {
      body = pieces[0].kv + after(1);
    } else if (!pieces.empty()) {
      std::string alts;
      for (size_t i = 0; i < pieces.size(); ++i) {
        // A run of others repeats itself: it is the last piece.
        alts += (alts.empty() ? "" : " | ") + pieces[i].kv + after(pieces[i].how == Piece::Many ? i : i + 1);
      }
      body = "(" + alts + ")?";
    }
    return "\"{\" space " + body + " \"}\" space";
  }

  static constexpr int kMaxDepth = 64;
  const Json& root_;
  int depth_ = 0;
  std::vector<std::pair<std::string, std::string>> rules_;
  std::set<std::string> names_;
  std::set<std::string> used_;
  std::map<std::string, std::string> ref_rules_;
};

}  // namespace

std::string json_schema_to_gbnf(std::string_view text) {
  Json schema;
  try {
    schema = Json::parse(text);
  } catch (const Json::exception& e) {  // a syntax error, or a number out of range (1e6660)
    fail(std::string("not valid JSON: ") + e.what());
  }
  std::string gbnf;
  try {
    gbnf = Converter(schema).convert();
  } catch (const Json::exception& e) {  // a keyword with a value of the wrong type
    fail(e.what());
  }
  // What the grammar parser would refuse is refused here, as the schema's
  // fault: a $ref that reaches itself before any character (left recursion).
  try {
    parse_grammar(gbnf);
  } catch (const GrammarError& e) {
    fail(std::string("its grammar cannot be used: ") + e.what());
  }
  return gbnf;
}

}  // namespace ck::grammar
