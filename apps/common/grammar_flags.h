// Grammar-constrained output, with llama.cpp's flags: --grammar GBNF,
// --grammar-file FILE, -j/--json-schema SCHEMA, -jf/--json-schema-file FILE
// (the schema becomes a grammar, grammar/json_schema.h). At most one.
#pragma once
#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>

#include "grammar/grammar.h"
#include "runtime/grammar_constraint.h"
#include "tokenizer/tokenizer.h"

namespace ck::app {

struct GrammarOptions {
  std::string gbnf;         // --grammar
  std::string gbnf_file;    // --grammar-file
  std::string schema;       // --json-schema
  std::string schema_file;  // --json-schema-file
  // After validation: the grammar they give, parsed; nullopt when none was given.
  std::optional<grammar::Grammar> parsed;
};

void add_grammar_flags(CLI::App& app, GrammarOptions& opts);

// Reads the file, converts a schema, parses the grammar; throws
// std::runtime_error naming the flag (and for a bad grammar the line and
// column).
void validate_grammar_options(GrammarOptions& opts);

// The constraint for `tokenizer`, or nullptr when no grammar was given.
std::unique_ptr<GrammarConstraint> make_constraint(const GrammarOptions& opts, const tok::Tokenizer& tokenizer);

}  // namespace ck::app
