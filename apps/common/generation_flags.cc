#include "apps/common/generation_flags.h"

#include <stdexcept>

#include "apps/common/context_size.h"
#include "apps/common/model_path.h"
#include "apps/common/text_file.h"
#include "apps/common/thread_count.h"
#include "apps/common/utf8_input.h"

namespace ck::app {

void add_generation_flags(CLI::App& app, GenerationOptions& o, std::string_view prompt_help) {
  app.add_option("-m,--model", o.model,
                 "Model file: a .gguf (converted to .bump on first use) or a .bump; " + default_model_help());
  app.add_option("-p,--prompt", o.prompt, std::string(prompt_help));
  app.add_option("-f,--file", o.prompt_file,
                 "Read the prompt (what -p gives) from FILE; one final newline is dropped, as in llama.cpp");
  app.add_option("-n,--n-predict", o.n_predict,
                 "Tokens to generate (per answer in the chat); -1 = until an end-of-generation token or a full "
                 "context (also --predict)")
      ->capture_default_str();
  app.add_option("-c,--ctx-size", o.n_ctx,
                 "Context size in tokens (prompt + generated); 0 = the model's training context. The default is "
                 "lowered to the model's context when that is smaller; a larger -c warns and runs")
      ->capture_default_str();
  app.add_option("-t,--threads", o.n_threads,
                 "Threads; 0 = one per physical core (the default). More than the CPUs warns and runs");
  app.add_option("--threads-batch", o.n_threads_batch, "Threads while a prompt is evaluated (also -tb); 0 = as -t");
  app.add_option("-b,--batch-size", o.n_batch, "Prompt tokens per forward pass (prefill batch)")->capture_default_str();
  app.add_option("-s,--seed", o.seed, "Random seed; -1 = random (the seed used is printed on stderr)")
      ->capture_default_str();
  app.add_option("--temp", o.sampling.temp, "Temperature; 0 = greedy")->capture_default_str();
  app.add_option("--top-k", o.sampling.top_k, "Keep the K most likely tokens; 0 or less = off")->capture_default_str();
  app.add_option("--top-p", o.sampling.top_p, "Keep the most likely tokens up to probability P; 1 = off")
      ->capture_default_str();
  app.add_option("--min-p", o.sampling.min_p, "Drop tokens less likely than P times the best; 0 = off")
      ->capture_default_str();
  app.add_option("--repeat-penalty", o.sampling.repeat_penalty,
                 "Penalize tokens seen in the last --repeat-last-n; 1 = off")
      ->capture_default_str();
  app.add_option("--repeat-last-n", o.sampling.repeat_last_n, "Window of the repetition penalty, in tokens")
      ->capture_default_str();
  app.add_flag("--special", o.special, "Print special tokens (<|im_end|>, ...) in the output as text (also -sp)");
}

void validate_generation_options(const CLI::App& app, GenerationOptions& o) {
  auto fail = [](const std::string& what) { throw std::runtime_error(what); };
  o.prompt_given = app.count("--prompt") > 0;
  o.n_ctx_given = app.count("--ctx-size") > 0;
  const std::string name = app.get_name();
  if (o.n_predict < -1) fail("-n must be -1 (no limit) or at least 0, got " + std::to_string(o.n_predict));
  check_context_flag(o.n_ctx);
  o.n_threads = resolve_thread_count(o.n_threads, "-t", name);
  o.n_threads_batch = o.n_threads_batch == 0 ? o.n_threads : resolve_thread_count(o.n_threads_batch, "-tb", name);
  if (o.n_batch < 1) fail("-b must be at least 1, got " + std::to_string(o.n_batch));
  if (o.seed < -1) fail("-s must be -1 (random) or a seed >= 0, got " + std::to_string(o.seed));
  if (o.sampling.top_k < 0) o.sampling.top_k = 0;  // llama.cpp: any k <= 0 turns top-k off
  if (o.prompt_given && o.prompt.empty()) fail("the prompt (-p) is empty");
  if (o.prompt_given && !o.prompt_file.empty()) fail("give the prompt with -p or -f, not both");
}

std::string read_prompt(const GenerationOptions& o) {
  if (o.prompt_file.empty()) {
    require_utf8(o.prompt, "the prompt", /*with_line=*/false);
    return o.prompt;
  }
  std::string text = read_text_file(o.prompt_file);
  drop_final_newline(text);
  if (text.empty()) throw std::runtime_error("the prompt file " + o.prompt_file + " is empty");
  return text;
}

}  // namespace ck::app
