// ck-chat: the chat REPL on its own (ck-run --chat runs the same REPL).
#include <algorithm>

#include "apps/chat/chat_repl.h"
#include "apps/common/app_main.h"
#include "apps/common/flag_aliases.h"

int main(int argc, char** argv) {
  CLI::App app{"Chat with a model through its chat template", "ck-chat"};
  ck::app::ChatOptions opts;
  std::string model_path;
  int n_ctx = 4096, threads = 0;
  int64_t seed = -1;
  app.add_option("-m,--model", model_path, "Model (.gguf or .bump); default: " + ck::app::default_model_path().string());
  app.add_option("-c,--ctx-size", n_ctx, "Context size in tokens, capped at the model's")->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("-t,--threads", threads, "Threads (default: physical cores)")->check(CLI::NonNegativeNumber);
  app.add_option("-n,--n-predict", opts.n_predict, "Max tokens per answer; -1 = no limit")->capture_default_str()
      ->check(CLI::Range(-1, 1 << 30));
  app.add_option("-s,--seed", seed, "Sampling seed; -1 = random")->capture_default_str()->check(CLI::Range(int64_t{-1}, INT64_MAX));
  app.add_option("--temp", opts.sampling.temp, "Temperature; 0 = greedy")->capture_default_str();
  app.add_option("--top-k", opts.sampling.top_k, "Top-k; 0 = off")->capture_default_str();
  app.add_option("--top-p", opts.sampling.top_p, "Top-p; 1 = off")->capture_default_str();
  app.add_option("--min-p", opts.sampling.min_p, "Min-p; 0 = off")->capture_default_str();
  app.add_option("--repeat-penalty", opts.sampling.repeat_penalty, "Repetition penalty; 1 = off")->capture_default_str();
  app.add_option("--repeat-last-n", opts.sampling.repeat_last_n, "Window of the penalty")->capture_default_str();
  app.add_option("--history-file", opts.history_file, "Line-editing history (default: ~/.ck_history)");
  ck::app::add_chat_flags(app, opts);
  ck::app::AliasedArgs args(argc, argv, {ck::app::kChatFlagAliases[0], ck::app::kChatFlagAliases[1]});
  return ck::app::run_app(app, args.argc(), args.argv(), [&] {
    opts.sampling.seed = seed < 0 ? ck::Sampler::kRandomSeed : static_cast<uint64_t>(seed);
    ck::set_threads(threads);
    auto model = ck::Model::load(model_path.empty() ? ck::app::default_model_path() : std::filesystem::path(model_path));
    ck::Session session(*model, ck::SessionOptions{.n_ctx = std::min(n_ctx, model->config().context_len)});
    return ck::app::run_chat(*model, session, opts);
  });
}
