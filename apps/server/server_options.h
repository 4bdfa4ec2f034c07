// ck-server's command line: llama-server's flags where the meaning is the
// same (-m --host --port -c -np -t -tb -b -n --api-key -a/--alias
// --chat-template --context-shift --keep -ctk/-ctv -to/--timeout, the sampling flags
// as server-wide defaults), and ours (--max-queue, --max-body).
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "apps/common/kv_cache_flags.h"
#include "apps/common/sampling_flags.h"

namespace ck::server {

struct ServerOptions {
  std::string model;       // -m; empty = the default model
  std::string bump_dir;    // --bump-dir
  std::string alias;       // -a: the model id in the API; default: the file name without .gguf
  std::string host = "127.0.0.1";
  int port = 8080;
  int n_ctx = 0;           // -c: positions of all slots together; 0 = the model's trained context per slot
  int n_parallel = 4;      // -np: slots
  int n_threads = 0;       // -t; 0 = one per physical core
  int n_batch = 512;       // -b: tokens per forward pass (generated tokens and prompt chunks)
  int n_predict = -1;      // -n: max_tokens when a request gives none
  std::string api_key;     // --api-key (also $CK_API_KEY)
  std::string chat_template;  // --chat-template: a family name or Jinja text; empty = the model's
  bool context_shift = false;
  int n_keep = 0;          // --keep
  app::KvCacheFlags kv_cache;  // -ctk/-ctv
  KvCacheTypes kv_types;   // -ctk/-ctv parsed by validate_server_options
  int max_queue = 32;      // --max-queue
  size_t max_body = 1 << 20;  // --max-body (bytes)
  int timeout = 600;       // -to: seconds a connection may stay idle while reading or writing
  int http_threads = 0;    // --threads-http; 0 = slots + queue + 8
  app::SamplingOptions sampling;
};

void add_server_flags(CLI::App& app, ServerOptions& o);
// Checks what needs no model; throws naming the flag.
void validate_server_options(ServerOptions& o);

}  // namespace ck::server
