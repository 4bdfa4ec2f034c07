#include "grammar/schema_merge.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

#include "grammar/schema_keywords.h"

namespace ck::grammar {
namespace {

using Json = nlohmann::ordered_json;

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("allOf: " + what); }

std::vector<std::string> types_of(const Json& type) {
  if (type.is_string()) return {type.get<std::string>()};
  if (!type.is_array()) fail("'type' must be a string or a list of strings");
  std::vector<std::string> out;
  for (const Json& t : type) {
    if (!t.is_string()) fail("'type' must be a string or a list of strings");
    out.push_back(t.get<std::string>());
  }
  return out;
}

Json common_type(const Json& a, const Json& b) {
  const std::vector<std::string> ta = types_of(a), tb = types_of(b);
  auto has = [](const std::vector<std::string>& v, const std::string& t) {
    return std::find(v.begin(), v.end(), t) != v.end();
  };
  Json out = Json::array();
  for (const std::string& t : ta) {
    if (has(tb, t) || (t == "integer" && has(tb, "number"))) out.push_back(t);
    else if (t == "number" && has(tb, "integer")) out.push_back("integer");
  }
  if (out.empty()) fail("the types " + a.dump() + " and " + b.dump() + " have nothing in common");
  return out.size() == 1 ? out[0] : out;
}

bool is_lower_bound(const std::string& key) {
  return key == "minimum" || key == "minLength" || key == "minItems";
}
bool is_upper_bound(const std::string& key) {
  return key == "maximum" || key == "maxLength" || key == "maxItems";
}
// Draft 6 and later: exclusiveMinimum / exclusiveMaximum are numbers.
bool is_exclusive_bound(const std::string& key, const Json& a, const Json& b) {
  return (key == "exclusiveMinimum" || key == "exclusiveMaximum") && a.is_number() && b.is_number();
}

void merge_into(Json& out, const Json& part) {
  if (!part.is_object()) fail("each part must be a schema object");
  for (const auto& [key, value] : part.items()) {
    if (is_annotation(key)) continue;
    if (!out.contains(key)) {
      out[key] = value;
      continue;
    }
    Json& mine = out[key];
    if (key == "properties") {
      for (const auto& [name, sub] : value.items()) {
        if (!mine.contains(name)) mine[name] = sub;
        else if (mine[name] != sub) mine[name] = Json{{"allOf", Json::array({mine[name], sub})}};
      }
    } else if (key == "required") {
      for (const Json& r : value) {
        if (std::find(mine.begin(), mine.end(), r) == mine.end()) mine.push_back(r);
      }
    } else if (key == "type") {
      mine = common_type(mine, value);
    } else if (key == "items" && mine != value) {
      mine = Json{{"allOf", Json::array({mine, value})}};
    } else if (is_lower_bound(key) || (key == "exclusiveMinimum" && is_exclusive_bound(key, mine, value))) {
      if (value > mine) mine = value;
    } else if (is_upper_bound(key) || (key == "exclusiveMaximum" && is_exclusive_bound(key, mine, value))) {
      if (value < mine) mine = value;
    } else if (mine != value) {
      fail("'" + key + "' differs between its schemas (" + mine.dump() + " and " + value.dump() + ")");
    }
  }
}

}  // namespace

Json merge_schemas(const std::vector<Json>& parts) {
  if (parts.empty()) fail("must be a non-empty array");
  Json out = Json::object();
  for (const Json& part : parts) {
    if (part.is_boolean()) {
      if (!part.get<bool>()) fail("the schema 'false' matches nothing");
      continue;
    }
    merge_into(out, part);
  }
  return out;
}

}  // namespace ck::grammar
