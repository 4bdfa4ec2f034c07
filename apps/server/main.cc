// ck-server: an OpenAI-compatible HTTP server with continuous batching
// (docs/server.md).
#include <httplib.h>
#include <pthread.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdio>
#include <thread>

#include "apps/common/app_main.h"
#include "apps/common/kv_cache_flags.h"
#include "apps/common/llama_flags.h"
#include "apps/common/load_progress.h"
#include "apps/common/model_path.h"
#include "apps/common/thread_count.h"
#include "apps/server/routes.h"
#include "apps/server/scheduler.h"
#include "apps/server/server_options.h"
#include "runtime/model.h"
#include "runtime/session.h"

namespace ck::server {
namespace {

// The model's id in the API: --alias, else the file name without .gguf/.bump.
std::string model_id(const ServerOptions& o, const std::filesystem::path& path) {
  return o.alias.empty() ? path.stem().string() : o.alias;
}

int run(ServerOptions& o) {
  validate_server_options(o);
  // SIGTERM and SIGINT go to one thread that drains (sigwait below): blocked
  // here, before any other thread starts, so that every thread inherits it.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);  // a client gone mid-write is an error return, not death

  o.n_threads = app::resolve_thread_count(o.n_threads, "-t", "ck-server");
  const std::filesystem::path path = app::model_or_default(o.model, "ck-server");
  ck::app::LoadProgress load_progress;
  std::unique_ptr<Model> model = Model::load(path, {.bump_dir = o.bump_dir, .progress = load_progress.callback()});
  const ModelConfig& c = model->config();
  const int n_ctx = o.n_ctx == 0 ? c.context_len : o.n_ctx / o.n_parallel;
  std::fprintf(stderr, "ck-server: %s\n", app::kv_cache_summary(c, n_ctx, o.n_parallel, o.kv_types).c_str());
  Session session(*model, {.n_ctx = n_ctx,
                           .n_batch = o.n_batch,
                           .n_seq = o.n_parallel,
                           .allow_longer_context = true,
                           .kv_types = o.kv_types});

  ParseContext parse{.model_id = model_id(o, path),
                     .chat_template = tok::select_chat_template(model->tokenizer().chat_template(), o.chat_template),
                     .defaults = o.sampling.params,
                     .default_max_tokens = o.n_predict,
                     .default_ignore_eos = o.sampling.ignore_eos};
  parse.defaults.seed = Sampler::kRandomSeed;  // a request without "seed" gets a random one
  Scheduler scheduler(*model, session, {.n_threads = o.n_threads, .max_queue = o.max_queue, .context_shift = o.context_shift, .n_keep = o.n_keep});
  Api api(*model, scheduler, parse, {.api_key = o.api_key, .max_body = o.max_body, .n_ctx = n_ctx});

  httplib::Server http;
  // Every request in flight holds an HTTP thread (it waits for its tokens):
  // enough for all slots, a full queue, and /health and /metrics beside them.
  const int http_threads = o.http_threads > 0 ? o.http_threads : o.n_parallel + o.max_queue + 8;
  http.new_task_queue = [http_threads] { return new httplib::ThreadPool(http_threads); };
  http.set_read_timeout(o.timeout);
  http.set_write_timeout(o.timeout);
  api.install(http);
  const int port = o.port == 0 ? http.bind_to_any_port(o.host) : (http.bind_to_port(o.host, o.port) ? o.port : -1);
  if (port < 0) throw std::runtime_error("cannot listen on " + o.host + ":" + std::to_string(o.port));

  std::thread stopper([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    if (http.is_running()) {
      std::fprintf(stderr, "ck-server: %s: finishing the requests in flight, then exiting\n",
                   sig == SIGINT ? "SIGINT" : "SIGTERM");
    }
    api.set_draining();
    scheduler.drain();
    api.wait_responses();
    http.stop();
  });
  std::fprintf(stderr, "ck-server: listening on http://%s:%d (model \"%s\", %d slots of %d tokens, %d threads)\n",
               o.host.c_str(), port, parse.model_id.c_str(), o.n_parallel, n_ctx, o.n_threads);
  const bool listened = http.listen_after_bind();
  // Wake the stopper if it still waits (listening failed).
  if (stopper.joinable()) pthread_kill(stopper.native_handle(), SIGTERM);
  stopper.join();
  if (!listened) throw std::runtime_error("the HTTP server stopped with an error");
  std::fprintf(stderr, "ck-server: stopped\n");
  return 0;
}

}  // namespace
}  // namespace ck::server

int main(int argc, char** argv) {
  ck::server::ServerOptions o;
  CLI::App app("ck-server: an OpenAI-compatible HTTP server (chat and text completions, streaming) with continuous "
               "batching over -np slots (docs/server.md)",
               "ck-server");
  ck::server::add_server_flags(app, o);
  return ck::app::run_app(app, argc, argv, ck::app::llama_server_flags(), [&] { return ck::server::run(o); });
}
