#include "apps/server/server_options.h"

#include <cstdlib>
#include <stdexcept>

#include "apps/common/context_shift_flags.h"
#include "apps/common/model_path.h"

namespace ck::server {

void add_server_flags(CLI::App& app, ServerOptions& o) {
  app.add_option("-m,--model", o.model, "model (.gguf or .bump); " + app::default_model_help());
  app.add_option("--bump-dir", o.bump_dir, "where the .bump of a .gguf is looked for and made");
  app.add_option("-a,--alias", o.alias, "the model's id in the API (default: its file name without .gguf)");
  app.add_option("--host", o.host, "address to listen on")->capture_default_str();
  app.add_option("--port", o.port, "port to listen on (0: any free one, printed)")->capture_default_str();
  app.add_option("-c,--ctx-size", o.n_ctx,
                 "positions of all slots together, split evenly (as llama-server); 0 = the model's trained context "
                 "for each slot")
      ->capture_default_str();
  app.add_option("--parallel", o.n_parallel, "slots: requests generated at once (-np)")->capture_default_str();
  app.add_option("-t,--threads", o.n_threads, "threads of the forward pass (0 = one per physical core)");
  app.add_option("-b,--batch-size", o.n_batch, "tokens per forward pass: one per generating slot, the rest prompt chunks")
      ->capture_default_str();
  app.add_option("-n,--n-predict", o.n_predict, "max_tokens of a request that gives none (-1: until the end or the context)")
      ->capture_default_str();
  app.add_option("--api-key", o.api_key, "require \"Authorization: Bearer KEY\" (default: $CK_API_KEY; /health stays open)");
  app.add_option("--chat-template", o.chat_template, "chat template family (chatml, llama3, ...) or Jinja text; default: the model's");
  app::add_context_shift_flag(app, o.context_shift, "BOS and the first --keep prompt tokens",
                              "the answer ends with finish_reason \"length\"");
  app::add_keep_flag(app, o.n_keep);
  app::add_kv_cache_flags(app, o.kv_cache);
  app.add_option("--max-queue", o.max_queue, "requests that may wait for a slot; more are answered 429")->capture_default_str();
  app.add_option("--max-body", o.max_body, "largest request body in bytes; larger ones are answered 413")->capture_default_str();
  app.add_option("--timeout", o.timeout, "seconds a connection may stall while reading or writing (-to)")->capture_default_str();
  app.add_option("--threads-http", o.http_threads, "HTTP threads (0: slots + --max-queue + 8)");
  app::add_sampling_flags(app, o.sampling);
}

void validate_server_options(ServerOptions& o) {
  auto require = [](bool ok, const std::string& what) {
    if (!ok) throw std::runtime_error(what);
  };
  require(o.port >= 0 && o.port <= 65535, "--port must be in [0, 65535], got " + std::to_string(o.port));
  require(o.n_parallel >= 1 && o.n_parallel <= 256, "-np must be in [1, 256], got " + std::to_string(o.n_parallel));
  require(o.n_ctx >= 0, "-c must be >= 0, got " + std::to_string(o.n_ctx));
  require(o.n_ctx == 0 || o.n_ctx >= 2 * o.n_parallel,
          "-c " + std::to_string(o.n_ctx) + " leaves fewer than 2 positions per slot for -np " + std::to_string(o.n_parallel));
  require(o.n_batch >= o.n_parallel, "-b must be at least -np (one token per slot per step), got " + std::to_string(o.n_batch));
  require(o.n_predict >= -1 && o.n_predict != 0, "-n must be -1 or >= 1, got " + std::to_string(o.n_predict));
  app::validate_keep(o.n_keep);
  o.kv_types = app::kv_cache_types(o.kv_cache);
  require(o.max_queue >= 0, "--max-queue must be >= 0, got " + std::to_string(o.max_queue));
  require(o.max_body >= 1024, "--max-body must be at least 1024 bytes");
  require(o.timeout >= 1, "--timeout must be >= 1 second");
  require(o.http_threads >= 0, "--threads-http must be >= 0");
  if (o.api_key.empty()) {
    if (const char* k = std::getenv("CK_API_KEY")) o.api_key = k;
  }
  app::validate_sampling_options(o.sampling, /*escape=*/true);
}

}  // namespace ck::server
