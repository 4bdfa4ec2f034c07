// The interactive chat REPL shared by `ck-run --chat` (-cnv) and `ck-chat`:
// multi-turn conversation through the model's chat template with the KV cache
// kept across turns, libedit line editing, slash commands, Ctrl-C handling,
// and a non-interactive mode when stdin is not a terminal.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <utility>

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
  bool single_turn = false;        // stdin not a terminal: the whole input is one message
  std::string history_file;        // libedit history; empty = ~/.ck_history
};

// Adds the chat-only flags (--system-prompt, --system-prompt-file,
// --chat-template, --single-turn) to `app`, writing into `opts`. Sampling and
// -n flags belong to the caller, who copies them into opts.sampling /
// opts.n_predict before run_chat. CLI11 takes no multi-letter short flags:
// respell llama.cpp's -sys / -sysf with kChatFlagAliases before parsing
// (apps/common/flag_aliases.h).
void add_chat_flags(CLI::App& app, ChatOptions& opts);
inline constexpr std::pair<std::string_view, std::string_view> kChatFlagAliases[] = {
    {"-sys", "--system-prompt"}, {"-sysf", "--system-prompt-file"}};

// Runs the conversation until /exit, Ctrl-D, Ctrl-C at an empty prompt, or EOF
// of a non-terminal stdin. Answers go to stdout, stats and notices to stderr.
// Returns the process exit code (0); throws std::runtime_error on bad options
// (unknown template, unreadable -sysf file, a system prompt that is not valid
// UTF-8). A message that is not valid UTF-8 is not sent: a notice on stderr
// names the byte offset and the REPL reads the next one.
int run_chat(Model& model, Session& session, const ChatOptions& opts);

}  // namespace ck::app
