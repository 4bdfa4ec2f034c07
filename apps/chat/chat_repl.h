// The interactive chat REPL shared by `ck-run --chat` (-cnv) and `ck-chat`:
// multi-turn conversation through the model's chat template with the KV cache
// kept across turns, libedit line editing, slash commands, Ctrl-C handling,
// and a non-interactive mode when stdin is not a terminal.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "apps/common/generation_flags.h"
#include "runtime/model.h"
#include "runtime/sampler.h"
#include "runtime/session.h"

namespace ck::app {

struct ChatOptions {
  std::string system_prompt;       // -sys TEXT: the first message, role "system"
  std::string system_prompt_file;  // -sysf FILE: read into system_prompt (wins over -sys)
  // --chat-template: a family name (e.g. "chatml", "llama2", "llama3",
  // "zephyr") or a full template text; empty = the model's own template.
  std::string chat_template;
  SamplerParams sampling;          // the answer sampler (temp 0 = greedy)
  int n_predict = -1;              // max tokens per answer; -1 = until end of turn or context full
  bool context_shift = false;      // --context-shift: a full context shifts (system prompt kept) instead of cutting
  int n_threads = 1;               // -t while answering
  int n_threads_batch = 1;         // -tb while the new part of the conversation is evaluated
  bool render_special = false;     // -sp: special tokens in answers printed as text
  // -p / -f: the first user message, answered before any input is read (as
  // llama.cpp's -cnv -p does); empty = none.
  std::string first_message;
  bool single_turn = false;        // -st: answer one message, then leave (llama.cpp's meaning)
  std::string history_file;        // libedit history; empty = ~/.ck_history
  bool ignore_eos = false;         // --ignore-eos
  std::vector<std::string> reverse_prompts;  // -r: an answer ends at one of these
  int n_probs = 0;                 // --n-probs
  bool verbose_prompt = false;     // --verbose-prompt
  std::string in_prefix;           // --in-prefix: written before every user message
  std::string in_suffix;           // --in-suffix: written after every user message
  GrammarOptions grammar;          // --grammar, --json-schema: every answer follows it
};

// Adds the chat-only flags (--system-prompt (-sys), --system-prompt-file
// (-sysf), --chat-template, --single-turn (-st), --in-prefix, --in-suffix) to `app`, writing into
// `opts`, and the chat's commands to the --help text. The generation flags
// belong to the caller (add_generation_flags), who hands them over with
// take_generation_options before run_chat.
void add_chat_flags(CLI::App& app, ChatOptions& opts);

// Copies sampling (with the seed), -n, --context-shift, -t, -tb, -sp, -r,
// --n-probs, --verbose-prompt into `chat`, and processes the escapes of --in-prefix and
// --in-suffix when -e is on.
void take_generation_options(const GenerationOptions& gen, ChatOptions& chat);

// The slash commands and keys, as /help and --help list them.
std::string_view chat_commands_help();

// Answers opts.first_message if any, then runs the conversation until /exit,
// Ctrl-D, Ctrl-C at an empty prompt, EOF of a non-terminal stdin, or (with
// single_turn) the first answer. Answers go to stdout, stats and notices to
// stderr.
// Returns the process exit code (0); throws std::runtime_error on bad options
// (unknown template, unreadable -sysf file, a system prompt that is not valid
// UTF-8). A message that is not valid UTF-8 is not sent: a notice on stderr
// names the byte offset and the REPL reads the next one.
int run_chat(Model& model, Session& session, const ChatOptions& opts);

}  // namespace ck::app
