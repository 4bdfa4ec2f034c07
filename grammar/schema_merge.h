// allOf: the schemas an instance must all match, merged into one schema the
// converter can write a grammar for. Objects merge their properties (a
// property in several parts matches all of its schemas) and required lists;
// types intersect ("integer" within "number"); lower bounds take the
// highest, upper bounds the lowest; any other keyword must have the same
// value in every part that has it, else the merge is refused naming it.
// As in llama.cpp, one part's additionalProperties false does not forbid
// the properties another part adds.
#pragma once
#include <vector>

#include <nlohmann/json.hpp>

namespace ck::grammar {

// The parts hold no $ref and no allOf (the caller resolves both). Throws
// std::runtime_error ("allOf: ...") when they cannot be merged.
nlohmann::ordered_json merge_schemas(const std::vector<nlohmann::ordered_json>& parts);

}  // namespace ck::grammar
