#include "apps/chat/chat_repl.h"

#include "apps/common/escapes.h"

namespace ck::app {

void add_chat_flags(CLI::App& app, ChatOptions& opts) {
  app.add_option("--system-prompt", opts.system_prompt, "System prompt for the conversation (also -sys)");
  app.add_option("--system-prompt-file", opts.system_prompt_file,
                 "Read the system prompt from FILE (also -sysf); one final newline is dropped");
  app.add_option("--chat-template", opts.chat_template,
                 "Chat template: a family name (chatml, llama2, llama3, zephyr, ...) or a template text; "
                 "default: the model's own");
  app.add_flag("--single-turn", opts.single_turn,
               "Answer one message (-p, or the first one read), then exit (also -st)");
  app.add_option("--in-prefix", opts.in_prefix,
                 "Text written before every user message (inside the chat template's user turn; llama.cpp's "
                 "completion tool turns its template off instead)");
  app.add_option("--in-suffix", opts.in_suffix, "Text written after every user message (see --in-prefix)");
  app.footer("Chat commands (ck-chat, ck-run -cnv):\n" + std::string(chat_commands_help()));
}

void take_generation_options(const GenerationOptions& gen, ChatOptions& chat) {
  chat.sampling = seeded_params(gen);
  chat.ignore_eos = gen.sampling.ignore_eos;
  chat.reverse_prompts = gen.reverse_prompts;
  chat.n_probs = gen.sampling.n_probs;
  chat.verbose_prompt = gen.verbose_prompt;
  chat.grammar = gen.grammar;
  if (gen.escape) {
    chat.in_prefix = process_escapes(chat.in_prefix);
    chat.in_suffix = process_escapes(chat.in_suffix);
  }
  chat.n_predict = gen.n_predict;
  chat.context_shift = gen.context_shift;
  chat.n_threads = gen.n_threads;
  chat.n_threads_batch = gen.n_threads_batch;
  chat.render_special = gen.special;
}

}  // namespace ck::app
