#include "apps/chat/chat_repl.h"

namespace ck::app {

void add_chat_flags(CLI::App& app, ChatOptions& opts) {
  app.add_option("--system-prompt", opts.system_prompt, "System prompt for the conversation (also -sys)");
  app.add_option("--system-prompt-file", opts.system_prompt_file, "Read the system prompt from FILE (also -sysf)")
      ->check(CLI::ExistingFile);
  app.add_option("--chat-template", opts.chat_template,
                 "Chat template: a family name (chatml, llama2, llama3, zephyr, ...) or a template text; "
                 "default: the model's own");
  app.add_flag("--single-turn", opts.single_turn,
               "Non-interactive stdin: treat the whole input as one message instead of one per line");
}

}  // namespace ck::app
