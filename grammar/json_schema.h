// JSON schema -> GBNF grammar (llama.cpp's json-schema-to-grammar, the
// parts that can be checked by a grammar): "type" (or the type its keywords
// imply) object (properties, required, additionalProperties), array (items,
// minItems, maxItems), string (minLength, maxLength, or pattern:
// regex_pattern.h), integer (minimum, maximum, exclusiveMinimum,
// exclusiveMaximum: int_range.h), number, boolean, null, a list of types;
// enum, const, anyOf / oneOf (keywords beside them apply to each
// alternative), allOf (schema_merge.h), local $ref (#/$defs/..., any JSON
// pointer into the schema; a recursive schema gives a recursive grammar);
// and no type at all (any JSON value). Properties come in the schema's
// order, the required ones first; with additionalProperties absent or false
// no others may follow (llama.cpp's choice), with true or a schema any
// number of others, named otherwise, may. Keywords the grammar cannot check
// (multipleOf, minimum on a number, uniqueItems, remote $ref, ...) are
// refused by name rather than ignored, so the output never silently breaks
// the schema. Annotations (title, description, default, examples, format,
// $schema, $id, $comment) are ignored.
#pragma once
#include <string>
#include <string_view>

namespace ck::grammar {

// Throws std::runtime_error ("JSON schema: ...") for text that is not
// JSON, or a schema this converter does not support.
std::string json_schema_to_gbnf(std::string_view schema);

}  // namespace ck::grammar
