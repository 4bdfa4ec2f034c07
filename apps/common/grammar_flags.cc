#include "apps/common/grammar_flags.h"

#include <spdlog/spdlog.h>

#include <stdexcept>

#include "apps/common/text_file.h"
#include "grammar/json_schema.h"
#include "grammar/parser.h"

namespace ck::app {

void add_grammar_flags(CLI::App& app, GrammarOptions& o) {
  app.add_option("--grammar", o.gbnf,
                 "Constrain the output to a GBNF grammar (llama.cpp's dialect; the start rule is root)");
  app.add_option("--grammar-file", o.gbnf_file, "Read the GBNF grammar from FILE");
  app.add_option("-j,--json-schema", o.schema,
                 "Constrain the output to JSON matching this JSON schema (the subset in docs/apps.md), e.g. "
                 "'{\"type\": \"object\", \"properties\": {\"name\": {\"type\": \"string\"}}}'");
  app.add_option("--json-schema-file", o.schema_file, "Read the JSON schema from FILE (also -jf)");
}

void validate_grammar_options(GrammarOptions& o) {
  const int given = !o.gbnf.empty() + !o.gbnf_file.empty() + !o.schema.empty() + !o.schema_file.empty();
  if (given == 0) return;
  if (given > 1) {
    throw std::runtime_error("give one of --grammar, --grammar-file, --json-schema, --json-schema-file");
  }
  std::string flag, gbnf;
  try {
    if (!o.gbnf.empty()) {
      flag = "--grammar";
      gbnf = o.gbnf;
    } else if (!o.gbnf_file.empty()) {
      flag = "--grammar-file " + o.gbnf_file;
      gbnf = read_text_file(o.gbnf_file);
    } else {
      flag = o.schema.empty() ? "--json-schema-file " + o.schema_file : "--json-schema";
      gbnf = grammar::json_schema_to_gbnf(o.schema.empty() ? read_text_file(o.schema_file) : o.schema);
      spdlog::debug("the JSON schema as a grammar:\n{}", gbnf);
    }
    o.parsed = grammar::parse_grammar(gbnf);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(flag + ": " + e.what());
  }
}

std::unique_ptr<GrammarConstraint> make_constraint(const GrammarOptions& o, const tok::Tokenizer& tokenizer) {
  if (!o.parsed) return nullptr;
  return std::make_unique<GrammarConstraint>(*o.parsed, tokenizer);
}

}  // namespace ck::app
