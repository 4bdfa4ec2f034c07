#include "apps/chat/chat_repl.h"

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
  app.footer("Chat commands (ck-chat, ck-run -cnv):\n" + std::string(chat_commands_help()));
}

void take_generation_options(const GenerationOptions& gen, ChatOptions& chat) {
  chat.sampling = gen.sampling;
  chat.sampling.seed = gen.seed == -1 ? Sampler::kRandomSeed : static_cast<uint64_t>(gen.seed);
  chat.n_predict = gen.n_predict;
  chat.n_threads = gen.n_threads;
  chat.n_threads_batch = gen.n_threads_batch;
  chat.render_special = gen.special;
}

}  // namespace ck::app
