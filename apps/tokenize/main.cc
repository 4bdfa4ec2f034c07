// ck-tokenize: shows how a model's tokenizer splits a text. Prints one
// "id -> 'piece'" line per token, or with --ids only the ids on one line;
// what it did and how long it took goes to stderr.
#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "apps/common/app_main.h"
#include "apps/common/escapes.h"
#include "apps/common/model_path.h"
#include "apps/common/text_file.h"
#include "apps/common/token_report.h"
#include "apps/common/utf8_input.h"
#include "apps/tokenize/load_vocab.h"
#include "tokenizer/tokenizer.h"

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Tokenize text with a model's vocabulary (GGUF, vocabulary-only GGUF, or bump)", "ck-tokenize"};
  std::string model, prompt, file;
  bool ids_only = false, no_bos = false, parse_special = false, no_parse_special = false;
  bool from_stdin = false, show_count = false, escape = true;
  app.add_option("-m,--model", model,
                 "Model file: a .gguf (a vocabulary-only one is enough) or a .bump; " +
                     ck::app::default_model_help());
  auto* p = app.add_option("-p,--prompt", prompt, "The text to tokenize");
  auto* f = app.add_option("-f,--file", file,
                           "Read the text to tokenize from FILE (it must be valid UTF-8); one final newline is "
                           "dropped, as ck-run -f and llama.cpp do");
  auto* in = app.add_flag("--stdin", from_stdin,
                          "Read the text to tokenize from standard input, all of it as it is (no newline dropped, as "
                          "llama-tokenize --stdin)");
  p->excludes(f, in);
  f->excludes(p, in);
  in->excludes(p, f);
  app.add_flag("--show-count", show_count, "Print \"Total number of tokens: N\" after the tokens, as llama-tokenize");
  ck::app::add_escape_flag(app, escape, "the text, as ck-run and llama-tokenize do");
  app.add_flag("--ids", ids_only, "Print only the token ids, space-separated, on one line");
  app.add_flag("--no-bos", no_bos,
               "Do not add the BOS/EOS tokens the vocabulary asks for (tokenizer.ggml.add_bos_token / add_eos_token)");
  app.add_flag("--no-parse-special", no_parse_special,
               "Tokenize control tokens written in the text (e.g. <|im_start|>) as plain text; by default they "
               "become those tokens, as in ck-run and llama-tokenize");
  app.add_flag("--parse-special", parse_special, "Turn written control tokens into those tokens (the default)");
  return ck::app::run_app(app, argc, argv, [&] {
    if (p->count() == 0 && f->count() == 0 && !from_stdin) {
      throw std::runtime_error("give the text with -p TEXT, -f FILE or --stdin");
    }
    if (parse_special && no_parse_special) {
      throw std::runtime_error("--parse-special and --no-parse-special contradict each other");
    }
    // Read and refused as ck-run and ck-perplexity do, so that what
    // ck-tokenize shows is what those apps would tokenize (docs/apps.md).
    std::string text;
    if (f->count() > 0) {
      text = ck::app::read_text_file(file);
      ck::app::drop_final_newline(text);
    } else if (from_stdin) {
      text = ck::app::read_all_stdin();
    } else {
      text = prompt;
    }
    if (escape) text = ck::app::process_escapes(text);
    ck::app::require_utf8(text, from_stdin ? "standard input" : "the prompt", /*with_line=*/from_stdin);

    const auto load_start = std::chrono::steady_clock::now();
    const ck::tok::Tokenizer tokenizer(ck::app::load_vocab(ck::app::model_or_default(model, "ck-tokenize")));
    const double load_ms = ms_since(load_start);

    const auto encode_start = std::chrono::steady_clock::now();
    const auto ids = tokenizer.encode(text, /*add_special=*/!no_bos, /*parse_special=*/!no_parse_special);
    const double encode_ms = ms_since(encode_start);

    std::string out;
    if (ids_only) {
      for (size_t i = 0; i < ids.size(); ++i) {
        if (i > 0) out += ' ';
        out += std::to_string(ids[i]);
      }
      out += '\n';
    } else {
      for (int32_t id : ids) out += ck::app::token_list_line(tokenizer, id);
    }
    if (show_count) out += "Total number of tokens: " + std::to_string(ids.size()) + "\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);  // the tokens before the stats line, also when both go to one pipe
    std::fprintf(stderr, "ck-tokenize: %zu bytes -> %zu tokens in %.2f ms (%.1f MB/s); vocabulary of %d loaded in %.1f ms\n",
                 text.size(), ids.size(), encode_ms, encode_ms > 0 ? static_cast<double>(text.size()) / encode_ms / 1e3 : 0.0,
                 tokenizer.n_vocab(), load_ms);
    return 0;
  });
}
