// ck-chat: the chat REPL on its own (ck-run --chat runs the same REPL).
#include <spdlog/spdlog.h>

#include <cstdio>

#include "apps/chat/chat_repl.h"
#include "apps/common/app_main.h"
#include "apps/common/context_size.h"
#include "apps/common/generation_flags.h"
#include "apps/common/kv_cache_flags.h"
#include "apps/common/llama_flags.h"
#include "apps/common/load_progress.h"
#include "apps/common/model_path.h"

int main(int argc, char** argv) {
  CLI::App app{"Chat with a model through its chat template", "ck-chat"};
  ck::app::GenerationOptions gen;
  ck::app::add_generation_flags(app, gen, "The first message, answered before the chat reads any input");
  ck::app::ChatOptions opts;
  ck::app::add_chat_flags(app, opts);
  app.add_option("--history-file", opts.history_file, "Line-editing history (default: ~/.ck_history)");
  return ck::app::run_app(app, argc, argv, ck::app::llama_common_flags(), [&] {
    ck::app::validate_generation_options(app, gen);
    ck::set_threads(gen.n_threads);
    opts.first_message = ck::app::read_prompt(gen);
    ck::app::take_generation_options(gen, opts);
    ck::app::LoadProgress load_progress;
    auto model = ck::Model::load(ck::app::model_or_default(gen.model, "ck-chat"),
                                 {.bump_dir = gen.bump_dir, .progress = load_progress.callback()});
    const int n_ctx = ck::app::resolve_context_size(gen.n_ctx, gen.n_ctx_given, model->config().context_len, "ck-chat");
    std::fprintf(stderr, "ck-chat: %s\n",
                 ck::app::kv_cache_summary(model->config(), n_ctx, 1, gen.kv_types).c_str());
    ck::Session session(*model, ck::SessionOptions{.n_ctx = n_ctx,
                                                   .n_batch = gen.n_batch,
                                                   .allow_longer_context = true,
                                                   .kv_types = gen.kv_types});
    return ck::app::run_chat(*model, session, opts);
  });
}
