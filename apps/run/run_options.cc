#include "apps/run/run_options.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "apps/common/utf8_input.h"
#include "runtime/session.h"
#include "runtime/threads.h"

namespace ck::app {

void add_run_flags(CLI::App& app, RunOptions& o) {
  o.n_threads = default_threads();
  app.add_option("-m,--model", o.model,
                 "Model file: a .gguf (converted to .bump on first use) or a .bump; "
                 "default: models/SmolLM2-135M-Instruct.Q4_1.gguf or $CK_MODEL");
  app.add_option("-p,--prompt", o.prompt, "Prompt text to continue");
  app.add_option("-f,--file", o.prompt_file, "Read the prompt from FILE")->check(CLI::ExistingFile);
  app.add_option("-n,--n-predict", o.n_predict,
                 "Tokens to generate; -1 = until an end-of-generation token or a full context")
      ->capture_default_str();
  app.add_option("-c,--ctx-size", o.n_ctx,
                 "Context size in tokens (prompt + generated); 0 = the model's. "
                 "The default is lowered to the model's context when that is smaller")
      ->capture_default_str();
  app.add_option("-t,--threads", o.n_threads, "Threads; default: the number of physical cores")
      ->capture_default_str();
  app.add_option("-b,--batch-size", o.n_batch, "Prompt tokens per forward pass (prefill batch)")
      ->capture_default_str();
  app.add_option("-s,--seed", o.seed, "Random seed; -1 = random (the seed used is printed on stderr)")
      ->capture_default_str();
  app.add_option("--temp", o.sampling.temp, "Temperature; 0 = greedy")->capture_default_str();
  app.add_option("--top-k", o.sampling.top_k, "Keep the K most likely tokens; 0 = off")->capture_default_str();
  app.add_option("--top-p", o.sampling.top_p, "Keep the most likely tokens up to probability P; 1 = off")
      ->capture_default_str();
  app.add_option("--min-p", o.sampling.min_p, "Drop tokens less likely than P times the best; 0 = off")
      ->capture_default_str();
  app.add_option("--repeat-penalty", o.sampling.repeat_penalty,
                 "Penalize tokens seen in the last --repeat-last-n; 1 = off")
      ->capture_default_str();
  app.add_option("--repeat-last-n", o.sampling.repeat_last_n, "Window of the repetition penalty, in tokens")
      ->capture_default_str();
  app.add_flag("--no-display-prompt", o.no_display_prompt, "Print only the generated text, not the prompt");
  app.add_flag("--chat,--conversation", o.chat,
               "Interactive chat through the model's chat template (also -cnv); "
               "the default when the model has a template and no -p/-f is given");
  app.add_flag("--no-chat,--no-conversation", o.no_chat, "Never start the chat (also -no-cnv)");
}

void validate_run_options(const RunOptions& o) {
  auto fail = [](const std::string& what) { throw std::runtime_error(what); };
  if (o.n_predict < -1) fail("-n must be -1 (no limit) or at least 0, got " + std::to_string(o.n_predict));
  if (o.n_ctx < 0) fail("-c must be at least 1 (0 = the model's context), got " + std::to_string(o.n_ctx));
  if (o.n_threads < 1 || o.n_threads > max_threads()) {
    fail("-t must be between 1 and " + std::to_string(max_threads()) + " (the CPUs available), got " +
         std::to_string(o.n_threads));
  }
  if (o.n_batch < 1) fail("-b must be at least 1, got " + std::to_string(o.n_batch));
  if (o.seed < -1) fail("-s must be -1 (random) or a seed >= 0, got " + std::to_string(o.seed));
  if (o.prompt_given && o.prompt.empty()) fail("the prompt (-p) is empty");
  if (o.chat && o.no_chat) fail("--chat and --no-chat contradict each other");
  if (!o.prompt.empty() && !o.prompt_file.empty()) fail("give the prompt with -p or -f, not both");
}

std::string read_prompt(const RunOptions& o) {
  if (o.prompt_file.empty()) {
    require_utf8(o.prompt, "the prompt", /*with_line=*/false);
    return o.prompt;
  }
  std::ifstream in(o.prompt_file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw std::runtime_error("cannot read the prompt file " + o.prompt_file);
  if (text.str().empty()) throw std::runtime_error("the prompt file " + o.prompt_file + " is empty");
  require_utf8(text.str(), o.prompt_file, /*with_line=*/true);
  return text.str();
}

}  // namespace ck::app
