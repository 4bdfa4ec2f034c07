#include "grammar/json_schema.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <vector>

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

const std::set<std::string> kIgnored = {"title", "description", "default", "examples", "format", "$schema", "$id",
                                        "$comment"};

// A GBNF string literal matching `text` exactly.
std::string literal(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string repetition(int min, int max) {  // max -1: no limit
  if (min == 0 && max == -1) return "*";
  if (min == 1 && max == -1) return "+";
  if (max == -1) return "{" + std::to_string(min) + ",}";
  return "{" + std::to_string(min) + "," + std::to_string(max) + "}";
}

class Converter {
 public:
  std::string convert(const Json& schema) {
    define("root", expression(schema, "root"));
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
    for (int i = 1; std::any_of(rules_.begin(), rules_.end(), [&](const auto& r) { return r.first == name; }) ||
                    names_.count(name) != 0 || std::any_of(std::begin(kPrimitives), std::end(kPrimitives),
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
      static const std::set<std::string> kKnown = {"type", "properties", "required", "items", "minItems",
                                                   "maxItems", "minLength", "maxLength", "enum", "const",
                                                   "anyOf", "oneOf", "additionalProperties"};
      if (kKnown.count(key) == 0 && kIgnored.count(key) == 0) fail("'" + key + "' is not supported (at " + path + ")");
    }
    if (schema.contains("const")) {
      use("space");
      return literal(schema["const"].dump()) + " space";
    }
    if (schema.contains("enum")) {
      if (!schema["enum"].is_array() || schema["enum"].empty()) fail("'enum' must be a non-empty array");
      std::string alts;
      for (const Json& v : schema["enum"]) alts += (alts.empty() ? "" : " | ") + literal(v.dump());
      use("space");
      return "(" + alts + ") space";
    }
    for (const char* key : {"anyOf", "oneOf"}) {
      if (!schema.contains(key)) continue;
      if (!schema[key].is_array() || schema[key].empty()) fail(std::string("'") + key + "' must be a non-empty array");
      std::string alts;
      int i = 0;
      for (const Json& s : schema[key]) alts += (alts.empty() ? "" : " | ") + rule_for(s, path + "-" + std::to_string(i++));
      return alts;
    }
    if (!schema.contains("type")) {
      use("value");
      return "value";
    }
    const Json& type = schema["type"];
    if (type.is_array()) {
      std::string alts;
      for (const Json& t : type) {
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
    if (t == "string") return string(schema);
    if (t == "number" || t == "integer" || t == "boolean" || t == "null") {
      use(t);
      return t;
    }
    fail("unknown type '" + t + "'");
  }

  std::string string(const Json& schema) {
    use("string");
    if (!schema.contains("minLength") && !schema.contains("maxLength")) return "string";
    const int min = schema.value("minLength", 0);
    const int max = schema.contains("maxLength") ? schema["maxLength"].get<int>() : -1;
    return "\"\\\"\" char" + repetition(min, max) + " \"\\\"\" space";
  }

  std::string array(const Json& schema, const std::string& path) {
    use("space");
    std::string item = "value";
    if (schema.contains("items")) {
      item = rule_for(schema["items"], path + "-item");
    } else {
      use("value");
    }
    const int min = schema.value("minItems", 0);
    const int max = schema.contains("maxItems") ? schema["maxItems"].get<int>() : -1;
    if (min < 0 || (max != -1 && max < min)) fail("minItems/maxItems out of order at " + path);
    if (max == 0) return "\"[\" space \"]\" space";
    const std::string more = "(\",\" space " + item + ")" + repetition(std::max(min - 1, 0), max == -1 ? -1 : max - 1);
    const std::string items = item + " " + more;
    return "\"[\" space " + (min == 0 ? "(" + items + ")?" : items) + " \"]\" space";
  }

  std::string object(const Json& schema, const std::string& path) {
    use("space");
    if (schema.contains("additionalProperties") && schema["additionalProperties"] != Json(false)) {
      fail("'additionalProperties' other than false is not supported (at " + path + ")");
    }
    if (!schema.contains("properties")) {
      use("object");
      return "object";
    }
    std::set<std::string> required;
    for (const Json& r : schema.value("required", Json::array())) required.insert(r.get<std::string>());
    std::vector<std::string> must, may;  // "\"name\" space \":\" space rule"
    for (const auto& [key, sub] : schema["properties"].items()) {
      const std::string kv = literal(Json(key).dump()) + " space \":\" space " + rule_for(sub, path + "-" + key);
      (required.count(key) != 0 ? must : may).push_back(kv);
    }
    for (const std::string& r : required) {
      if (!schema["properties"].contains(r)) fail("required property '" + r + "' is not in 'properties' at " + path);
    }
    std::string body;
    for (const std::string& kv : must) body += (body.empty() ? "" : " \",\" space ") + kv;
    if (!must.empty()) {
      for (const std::string& kv : may) body += " (\",\" space " + kv + ")?";
    } else if (!may.empty()) {
      // No property is required: whichever comes first has no comma before it.
      std::string alts;
      for (size_t i = 0; i < may.size(); ++i) {
        std::string alt = may[i];
        for (size_t j = i + 1; j < may.size(); ++j) alt += " (\",\" space " + may[j] + ")?";
        alts += (alts.empty() ? "" : " | ") + alt;
      }
      body = "(" + alts + ")?";
    }
    return "\"{\" space " + body + " \"}\" space";
  }

  static constexpr int kMaxDepth = 64;
  int depth_ = 0;
  std::vector<std::pair<std::string, std::string>> rules_;
  std::set<std::string> names_;
  std::set<std::string> used_;
};

}  // namespace

std::string json_schema_to_gbnf(std::string_view text) {
  Json schema;
  try {
    schema = Json::parse(text);
  } catch (const Json::exception& e) {  // a syntax error, or a number out of range (1e6660)
    fail(std::string("not valid JSON: ") + e.what());
  }
  try {
    return Converter().convert(schema);
  } catch (const Json::exception& e) {  // a keyword with a value of the wrong type
    fail(e.what());
  }
}

}  // namespace ck::grammar
