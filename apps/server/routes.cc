#include "apps/server/routes.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "apps/server/api_error.h"
#include "apps/server/chat_page.h"
#include "apps/server/openai_format.h"

namespace ck::server {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// With nothing to send for this long, a stream writes a comment (SSE) or a
// space (JSON, where whitespace before the value is allowed): only a write
// tells that the client has gone, and that cancels its request.
constexpr auto kHeartbeat = 1s;
constexpr auto kPoll = 50ms;

void send_json(httplib::Response& res, int status, const json& j) {
  res.status = status;
  res.set_content(j.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& message, const std::string& param = {}) {
  send_json(res, status, error_json(status, message, param));
}

bool key_matches(const httplib::Request& req, const std::string& key) {
  if (req.get_header_value("Authorization") == "Bearer " + key) return true;
  return req.get_header_value("X-Api-Key") == key;
}

// What a streaming or a whole response keeps between the provider's calls.
struct Reply {
  std::shared_ptr<Task> task;
  ResponseHeader header;
  bool include_usage = false;
  bool first = true;
  std::string text;                // whole responses: everything so far
  std::vector<TokenProbs> probs;
  std::chrono::steady_clock::time_point last_write = std::chrono::steady_clock::now();
};

// One call of a stream's content provider: the news since the last as
// chunks, the end as the finish chunk, the usage chunk and [DONE].
bool stream_step(Reply& r, httplib::DataSink& sink) {
  TaskNews news = r.task->wait(kPoll);
  std::string out;
  if (!news.text.empty() || !news.probs.empty()) {
    out += sse_event(chunk_json(r.header, news.text, news.probs, r.first, nullptr));
    r.first = false;
  }
  if (news.finished) {
    if (!news.error.empty()) {
      out += sse_event(error_json(500, news.error));
    } else {
      out += sse_event(chunk_json(r.header, "", {}, r.first, &news.reason));
      if (r.include_usage) out += sse_event(usage_chunk_json(r.header, news.usage));
    }
    out += kSseDone;
  } else if (out.empty() && std::chrono::steady_clock::now() - r.last_write >= kHeartbeat) {
    out = ": keep-alive\n\n";
  }
  if (!out.empty()) {
    if (!sink.write(out.data(), out.size())) return false;
    r.last_write = std::chrono::steady_clock::now();
  }
  if (news.finished) sink.done();
  return true;
}

bool whole_step(Reply& r, httplib::DataSink& sink) {
  TaskNews news = r.task->wait(kPoll);
  r.text += news.text;
  for (TokenProbs& p : news.probs) r.probs.push_back(std::move(p));
  std::string out;
  if (news.finished) {
    const json j = news.error.empty() ? response_json(r.header, r.text, r.probs, news.reason, news.usage)
                                      : error_json(500, news.error);
    out = j.dump(-1, ' ', false, json::error_handler_t::replace);
  } else if (std::chrono::steady_clock::now() - r.last_write >= kHeartbeat) {
    out = " ";
  }
  if (!out.empty()) {
    if (!sink.write(out.data(), out.size())) return false;
    r.last_write = std::chrono::steady_clock::now();
  }
  if (news.finished) sink.done();
  return true;
}

}  // namespace

Api::Api(const Model& model, Scheduler& scheduler, ParseContext parse, ApiOptions opts)
    : model_(model), scheduler_(scheduler), parse_(std::move(parse)), opts_(std::move(opts)), started_(std::time(nullptr)) {}

void Api::wait_responses() {
  std::unique_lock lock(inflight_mutex_);
  inflight_done_.wait(lock, [&] { return inflight_ == 0; });
}

void Api::count(int status) {
  std::lock_guard lock(counts_mutex_);
  ++responses_[status];
}

std::vector<int32_t> Api::tokenize(const CompletionRequest& r) const {
  const tok::Tokenizer& tk = model_.tokenizer();
  std::vector<int32_t> ids = r.prompt_ids;
  if (ids.empty()) ids = tk.encode(r.prompt_text, /*add_special=*/true, /*parse_special=*/true);
  for (int32_t id : ids) {
    if (id < 0 || id >= tk.n_vocab()) {
      throw ApiError(400, "prompt: token id " + std::to_string(id) + " is outside the vocabulary [0, " +
                              std::to_string(tk.n_vocab()) + ")", "prompt");
    }
  }
  const char* field = r.endpoint == Endpoint::Chat ? "messages" : "prompt";
  if (ids.empty()) throw ApiError(400, std::string(field) + ": the prompt has no tokens", field);
  if (ids.size() >= static_cast<size_t>(opts_.n_ctx)) {
    throw ApiError(400, std::string(field) + ": the prompt is " + std::to_string(ids.size()) +
                            " tokens, and a slot's context holds " + std::to_string(opts_.n_ctx) +
                            " (the server's -c divided by -np) with room for at least one more", field);
  }
  return ids;
}

void Api::completion(Endpoint endpoint, const httplib::Request& req, httplib::Response& res) {
  const CompletionRequest r = parse_completion_request(endpoint, parse_body(req.body), parse_);
  GenerationRequest g = r.generation;
  g.prompt = tokenize(r);
  for (const LogitBias& b : g.sampling.logit_bias) {
    if (b.token < 0 || b.token >= model_.tokenizer().n_vocab()) {
      throw ApiError(400, "logit_bias: token id " + std::to_string(b.token) + " is outside the vocabulary", "logit_bias");
    }
  }
  auto reply = std::make_shared<Reply>();
  reply->task = std::make_shared<Task>(std::move(g));
  reply->header = make_header(endpoint, parse_.model_id);
  reply->include_usage = r.include_usage;
  scheduler_.submit(reply->task);  // 429 when the queue is full
  {
    std::lock_guard lock(inflight_mutex_);
    ++inflight_;
  }
  // The provider runs after this handler returns, on the same thread; the
  // releaser runs when the response ends, also when the client left: a
  // request still running is then cancelled (a finished one ignores it).
  auto release = [this, reply](bool) {
    reply->task->cancel();
    std::lock_guard lock(inflight_mutex_);
    if (--inflight_ == 0) inflight_done_.notify_all();
  };
  if (r.stream) {
    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider(
        "text/event-stream", [reply](size_t, httplib::DataSink& sink) { return stream_step(*reply, sink); }, release);
  } else {
    res.set_chunked_content_provider(
        "application/json", [reply](size_t, httplib::DataSink& sink) { return whole_step(*reply, sink); }, release);
  }
}

void Api::install(httplib::Server& http) {
  http.set_payload_max_length(opts_.max_body);
  http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    // Responses are never compressed: a compressor holds back the small
    // writes of a stream and the heartbeats that detect a client gone.
    // (cpp-httplib picks the encoding from this request header, and the
    // request object is ours to change: it is const only in the signature.)
    const_cast<httplib::Request&>(req).headers.erase("Accept-Encoding");
    if (opts_.api_key.empty() || req.path == "/health" || req.path == "/") {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    if (key_matches(req, opts_.api_key)) return httplib::Server::HandlerResponse::Unhandled;
    send_error(res, 401, "a valid API key is needed: send the header \"Authorization: Bearer KEY\"");
    return httplib::Server::HandlerResponse::Handled;
  });
  // Errors that reach no handler of ours (unknown route, body too large)
  // get an error object too; ours already have one.
  http.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty() || res.is_chunked_content_provider_) return httplib::Server::HandlerResponse::Unhandled;
    const std::string message = res.status == 404   ? "no such endpoint: " + req.method + " " + req.path
                                : res.status == 413 ? "the request body is larger than the limit (--max-body)"
                                                    : "HTTP error " + std::to_string(res.status);
    send_error(res, res.status, message);
    return httplib::Server::HandlerResponse::Handled;
  }));
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    try {
      std::rethrow_exception(ep);
    } catch (const ApiError& e) {
      send_error(res, e.status(), e.what(), e.param());
    } catch (const std::exception& e) {
      spdlog::error("ck-server: {}", e.what());
      send_error(res, 500, std::string("internal error: ") + e.what());
    }
  });
  http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    count(res.status);
    spdlog::debug("{} {} -> {}", req.method, req.path, res.status);
  });

  http.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
    completion(Endpoint::Chat, req, res);
  });
  http.Post("/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
    completion(Endpoint::Chat, req, res);
  });
  http.Post("/v1/completions", [this](const httplib::Request& req, httplib::Response& res) {
    completion(Endpoint::Completion, req, res);
  });
  http.Post("/completions", [this](const httplib::Request& req, httplib::Response& res) {
    completion(Endpoint::Completion, req, res);
  });
  auto models = [this](const httplib::Request&, httplib::Response& res) {
    const ModelConfig& c = model_.config();
    json m = {{"id", parse_.model_id},
              {"object", "model"},
              {"created", started_},
              {"owned_by", "ck"},
              {"meta", {{"architecture", c.arch}, {"n_params", model_.n_params()}, {"n_ctx_train", c.context_len},
                        {"n_ctx_slot", opts_.n_ctx}, {"n_vocab", c.vocab_size}}}};
    send_json(res, 200, {{"object", "list"}, {"data", json::array({m})}});
  };
  http.Get("/v1/models", models);
  http.Get("/models", models);
  http.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
    if (draining_) {
      send_json(res, 503, {{"status", "shutting down"}});
    } else {
      send_json(res, 200, {{"status", "ok"}});
    }
  });
  http.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(chat_page_html()), "text/html; charset=utf-8");
  });
  http.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    StatusCounts counts;
    {
      std::lock_guard lock(counts_mutex_);
      counts = responses_;
    }
    res.set_content(render_metrics(scheduler_.stats(), counts), "text/plain; version=0.0.4");
  });
}

}  // namespace ck::server
