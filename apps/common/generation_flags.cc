#include "apps/common/generation_flags.h"

#include <stdexcept>

#include "apps/common/bump_dir_flag.h"
#include "apps/common/context_shift_flags.h"
#include "apps/common/context_size.h"
#include "apps/common/escapes.h"
#include "apps/common/model_path.h"
#include "apps/common/repeatable_option.h"
#include "apps/common/text_file.h"
#include "apps/common/thread_count.h"
#include "apps/common/utf8_input.h"

namespace ck::app {

void add_generation_flags(CLI::App& app, GenerationOptions& o, std::string_view prompt_help) {
  app.add_option("-m,--model", o.model,
                 "Model file: a .gguf (converted to .bump on first use) or a .bump; " + default_model_help());
  add_bump_dir_flag(app, o.bump_dir);
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
  add_context_shift_flag(app, o.context_shift, "the start (ck-run: --keep; the chat: the system prompt)",
                         "generation stops, and the chat cuts the answer off");
  add_kv_cache_flags(app, o.kv_cache);
  app.add_option("-t,--threads", o.n_threads,
                 "Threads; 0 = one per physical core (the default). More than the CPUs warns and runs");
  app.add_option("--threads-batch", o.n_threads_batch, "Threads while a prompt is evaluated (also -tb); 0 = as -t");
  app.add_option("-b,--batch-size", o.n_batch, "Prompt tokens per forward pass (prefill batch)")->capture_default_str();
  app.add_option("-s,--seed", o.seed, "Random seed; -1 = random (the seed used is printed on stderr)")
      ->capture_default_str();
  add_sampling_flags(app, o.sampling);
  app.add_flag("--special", o.special, "Print special tokens (<|im_end|>, ...) in the output as text (also -sp)");
  add_escape_flag(app, o.escape, "-p/-f, -r, --in-prefix/--in-suffix and --dry-sequence-breaker");
  add_repeatable_option(app, "-r,--reverse-prompt", o.reverse_prompts,
                        "Stop when the generated text contains PROMPT (repeatable); in the chat the answer ends "
                        "there and the user has the turn");
  add_grammar_flags(app, o.grammar);
  app.add_flag("--verbose-prompt", o.verbose_prompt,
               "Print the prompt as the model gets it (rendered through the chat template in the chat) and its "
               "tokens with their ids, on stderr");
}

void validate_generation_options(const CLI::App& app, GenerationOptions& o) {
  auto fail = [](const std::string& what) { throw std::runtime_error(what); };
  o.prompt_given = app.count("--prompt") > 0;
  o.n_ctx_given = app.count("--ctx-size") > 0;
  const std::string name = app.get_name();
  if (o.n_predict < -1) fail("-n must be -1 (no limit) or at least 0, got " + std::to_string(o.n_predict));
  check_context_flag(o.n_ctx);
  o.kv_types = kv_cache_types(o.kv_cache);
  o.n_threads = resolve_thread_count(o.n_threads, "-t", name);
  o.n_threads_batch = o.n_threads_batch == 0 ? o.n_threads : resolve_thread_count(o.n_threads_batch, "-tb", name);
  if (o.n_batch < 1) fail("-b must be at least 1, got " + std::to_string(o.n_batch));
  if (o.seed < -1) fail("-s must be -1 (random) or a seed >= 0, got " + std::to_string(o.seed));
  validate_sampling_options(o.sampling, o.escape);
  validate_grammar_options(o.grammar);
  if (o.escape) {
    o.prompt = process_escapes(o.prompt);
    for (std::string& r : o.reverse_prompts) r = process_escapes(r);
  }
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
  if (o.escape) text = process_escapes(text);  // llama.cpp processes -f's text too
  if (text.empty()) throw std::runtime_error("the prompt file " + o.prompt_file + " is empty");
  return text;
}

SamplerParams seeded_params(const GenerationOptions& o) {
  SamplerParams p = o.sampling.params;
  p.seed = o.seed == -1 ? Sampler::kRandomSeed : static_cast<uint64_t>(o.seed);
  return p;
}

}  // namespace ck::app
