// JSON schema keywords that annotate and constrain nothing: the converter
// and the allOf merge skip them.
#pragma once
#include <set>
#include <string>

namespace ck::grammar {

inline bool is_annotation(const std::string& key) {
  static const std::set<std::string> kAnnotations = {"title",   "description", "default", "examples", "format",
                                                     "$schema", "$id",         "$comment", "$defs", "definitions"};
  return kAnnotations.count(key) != 0;
}

}  // namespace ck::grammar
