#include "apps/run/run_options.h"

#include <stdexcept>

#include "apps/common/context_shift_flags.h"

namespace ck::app {

void add_run_flags(CLI::App& app, RunOptions& o) {
  add_generation_flags(app, o.gen,
                       "Prompt text to continue; in the chat (-cnv) the first message, answered before the "
                       "chat reads any input");
  app.add_flag("--no-display-prompt", o.no_display_prompt, "Print only the generated text, not the prompt");
  app.add_flag("--chat,--conversation", o.chat,
               "Interactive chat through the model's chat template (also -cnv); "
               "the default when the model has a template and no -p/-f is given");
  app.add_flag("--no-chat,--no-conversation", o.no_chat, "Never start the chat (also -no-cnv)");
  add_keep_flag(app, o.keep);
}

void validate_run_options(const CLI::App& app, RunOptions& o) {
  validate_generation_options(app, o.gen);
  if (o.chat && o.no_chat) throw std::runtime_error("--chat and --no-chat contradict each other");
  validate_keep(o.keep);
}

}  // namespace ck::app
