// JSON schema -> GBNF grammar (the common subset of llama.cpp's
// json-schema-to-grammar): "type" object (properties, required), array
// (items, minItems, maxItems), string (minLength, maxLength), number,
// integer, boolean, null, a list of types; enum, const, anyOf / oneOf; and
// no type at all (any JSON value). Properties come in the schema's order,
// the required ones first. Unsupported keywords ($ref, allOf, pattern,
// minimum, maximum, additionalProperties other than false, ...) are refused
// by name rather than ignored, so the output never silently breaks the
// schema. Annotations (title, description, default, examples, format,
// $schema, $id) are ignored.
#pragma once
#include <string>
#include <string_view>

namespace ck::grammar {

// Throws std::runtime_error ("JSON schema: ...") for text that is not
// JSON, or a schema this converter does not support.
std::string json_schema_to_gbnf(std::string_view schema);

}  // namespace ck::grammar
