#include "apps/server/request_parse.h"

#include <cmath>

#include "apps/server/api_error.h"
#include "grammar/json_schema.h"
#include "grammar/parser.h"

namespace ck::server {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& field, const std::string& what) { throw ApiError(400, field + ": " + what, field); }

const json* field(const json& body, const char* name) {
  const auto it = body.find(name);
  return it == body.end() || it->is_null() ? nullptr : &*it;
}

double number(const json& body, const char* name, double lo, double hi, double fallback) {
  const json* v = field(body, name);
  if (v == nullptr) return fallback;
  if (!v->is_number()) bad(name, "must be a number");
  const double x = v->get<double>();
  if (!(x >= lo && x <= hi)) bad(name, "must be in [" + json(lo).dump() + ", " + json(hi).dump() + "], got " + v->dump());
  return x;
}

int64_t integer(const json& body, const char* name, int64_t lo, int64_t hi, int64_t fallback) {
  const json* v = field(body, name);
  if (v == nullptr) return fallback;
  if (!v->is_number_integer()) bad(name, "must be an integer");
  const int64_t x = v->get<int64_t>();
  if (x < lo || x > hi) bad(name, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + v->dump());
  return x;
}

bool boolean(const json& body, const char* name, bool fallback) {
  const json* v = field(body, name);
  if (v == nullptr) return fallback;
  if (!v->is_boolean()) bad(name, "must be true or false");
  return v->get<bool>();
}

// A message's content: a string, or OpenAI's list of parts of which only
// text parts are understood.
std::string message_content(const json& content, const std::string& where) {
  if (content.is_null()) return "";
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array()) bad(where, "must be a string or an array of text parts");
  std::string text;
  for (const json& part : content) {
    if (!part.is_object() || part.value("type", "") != "text" || !part.contains("text") || !part["text"].is_string()) {
      bad(where, "only parts {\"type\": \"text\", \"text\": \"...\"} are supported");
    }
    text += part["text"].get<std::string>();
  }
  return text;
}

std::string render_messages(const json& body, const ParseContext& ctx) {
  const json* messages = field(body, "messages");
  if (messages == nullptr) bad("messages", "is required");
  if (!messages->is_array() || messages->empty()) bad("messages", "must be a non-empty array");
  std::vector<tok::ChatMessage> chat;
  for (size_t i = 0; i < messages->size(); ++i) {
    const json& m = (*messages)[i];
    const std::string where = "messages[" + std::to_string(i) + "]";
    if (!m.is_object()) bad(where, "must be an object");
    if (!m.contains("role") || !m["role"].is_string()) bad(where + ".role", "must be a string");
    std::string role = m["role"].get<std::string>();
    if (role == "developer") role = "system";  // OpenAI's newer name for it
    if (role != "system" && role != "user" && role != "assistant") {
      bad(where + ".role", "must be system, developer, user or assistant, got \"" + role + "\"");
    }
    chat.push_back({role, message_content(m.contains("content") ? m["content"] : json(nullptr), where + ".content")});
  }
  return tok::render_chat(ctx.chat_template, chat, /*add_generation_prompt=*/true);
}

void read_prompt(const json& body, CompletionRequest& r) {
  const json* p = field(body, "prompt");
  if (p == nullptr) bad("prompt", "is required");
  const json* one = p;
  if (p->is_array() && p->size() == 1 && (*p)[0].is_string()) one = &(*p)[0];  // ["text"]
  if (one->is_string()) {
    r.prompt_text = one->get<std::string>();
    if (r.prompt_text.empty()) bad("prompt", "must not be empty");
    return;
  }
  if (p->is_array() && !p->empty() && std::all_of(p->begin(), p->end(), [](const json& t) { return t.is_number_integer(); })) {
    for (const json& t : *p) r.prompt_ids.push_back(t.get<int32_t>());
    return;
  }
  bad("prompt", "must be a non-empty string, a list of one string, or a list of token ids");
}

std::vector<std::string> read_stop(const json& body) {
  const json* s = field(body, "stop");
  if (s == nullptr) return {};
  if (s->is_string()) return {s->get<std::string>()};
  if (!s->is_array() || s->size() > 16) bad("stop", "must be a string or an array of at most 16 strings");
  std::vector<std::string> out;
  for (const json& x : *s) {
    if (!x.is_string()) bad("stop", "must be a string or an array of at most 16 strings");
    out.push_back(x.get<std::string>());
  }
  return out;
}

// response_format: {"type": "text"}, {"type": "json_object"} (any JSON
// object) or {"type": "json_schema", "json_schema": {"schema": {...}}}.
std::optional<grammar::Grammar> read_response_format(const json& body) {
  const json* f = field(body, "response_format");
  if (f == nullptr) return std::nullopt;
  if (!f->is_object() || !f->contains("type") || !(*f)["type"].is_string()) {
    bad("response_format", "must be an object with a \"type\"");
  }
  const std::string type = (*f)["type"];
  std::string schema;
  if (type == "text") return std::nullopt;
  if (type == "json_object") {
    schema = R"({"type": "object"})";
  } else if (type == "json_schema") {
    const json& js = f->value("json_schema", json::object());
    if (!js.is_object() || !js.contains("schema") || !js["schema"].is_object()) {
      bad("response_format.json_schema.schema", "must be a JSON schema object");
    }
    schema = js["schema"].dump();
  } else {
    bad("response_format.type", "must be text, json_object or json_schema, got \"" + type + "\"");
  }
  try {
    return grammar::parse_grammar(grammar::json_schema_to_gbnf(schema));
  } catch (const std::runtime_error& e) {
    bad("response_format", e.what());
  }
}

std::vector<LogitBias> read_logit_bias(const json& body) {
  const json* b = field(body, "logit_bias");
  if (b == nullptr) return {};
  if (!b->is_object()) bad("logit_bias", "must be an object mapping token ids to numbers");
  std::vector<LogitBias> out;
  for (const auto& [key, value] : b->items()) {
    int32_t id = -1;
    try {
      size_t used = 0;
      id = std::stoi(key, &used);
      if (used != key.size()) id = -1;
    } catch (const std::exception&) {
    }
    if (id < 0 || !value.is_number()) bad("logit_bias", "keys must be token ids and values numbers, got \"" + key + "\"");
    out.push_back({id, value.get<float>()});
  }
  return out;
}

// Chat: logprobs (bool) and top_logprobs (0-20). Completion: logprobs (0-5,
// the count of alternatives; present = report).
void read_logprobs(Endpoint endpoint, const json& body, GenerationRequest& g) {
  if (endpoint == Endpoint::Chat) {
    g.logprobs = boolean(body, "logprobs", false);
    g.top_logprobs = static_cast<int>(integer(body, "top_logprobs", 0, 20, 0));
    if (g.top_logprobs > 0 && !g.logprobs) bad("top_logprobs", "needs \"logprobs\": true");
    return;
  }
  g.logprobs = field(body, "logprobs") != nullptr;
  g.top_logprobs = static_cast<int>(integer(body, "logprobs", 0, 5, 0));
}

}  // namespace

json parse_body(const std::string& body) {
  json j;
  try {
    j = json::parse(body);
  } catch (const json::parse_error& e) {
    throw ApiError(400, std::string("the body is not valid JSON: ") + e.what());
  }
  if (!j.is_object()) throw ApiError(400, "the body must be a JSON object");
  return j;
}

CompletionRequest parse_completion_request(Endpoint endpoint, const json& body, const ParseContext& ctx) {
  CompletionRequest r;
  r.endpoint = endpoint;
  if (const json* m = field(body, "model")) {
    if (!m->is_string()) bad("model", "must be a string");
    if (m->get<std::string>() != ctx.model_id) {
      throw ApiError(400, "the model \"" + m->get<std::string>() + "\" is not served here; this server has \"" +
                              ctx.model_id + "\" (GET /v1/models)", "model");
    }
  }
  if (integer(body, "n", 1, 1, 1) != 1) bad("n", "only 1 is supported");
  if (endpoint == Endpoint::Chat) {
    r.prompt_text = render_messages(body, ctx);
  } else {
    read_prompt(body, r);
  }
  r.stream = boolean(body, "stream", false);
  if (const json* so = field(body, "stream_options")) {
    if (!so->is_object()) bad("stream_options", "must be an object");
    r.include_usage = boolean(*so, "include_usage", false);
  }
  GenerationRequest& g = r.generation;
  SamplerParams& p = g.sampling;
  p = ctx.defaults;
  const int64_t max_tokens = integer(body, "max_tokens", 1, 1 << 30, ctx.default_max_tokens);
  g.max_tokens = static_cast<int>(integer(body, "max_completion_tokens", 1, 1 << 30, max_tokens));
  p.temp = static_cast<float>(number(body, "temperature", 0, 2, p.temp));
  p.top_p = static_cast<float>(number(body, "top_p", 0, 1, p.top_p));
  p.top_k = static_cast<int>(integer(body, "top_k", 0, 1 << 30, p.top_k));
  p.min_p = static_cast<float>(number(body, "min_p", 0, 1, p.min_p));
  p.presence_penalty = static_cast<float>(number(body, "presence_penalty", -2, 2, p.presence_penalty));
  p.frequency_penalty = static_cast<float>(number(body, "frequency_penalty", -2, 2, p.frequency_penalty));
  p.repeat_penalty = static_cast<float>(number(body, "repeat_penalty", 0, 10, p.repeat_penalty));
  if (const json* s = field(body, "seed")) {
    if (!s->is_number_integer()) bad("seed", "must be an integer");
    p.seed = s->get<int64_t>() < 0 ? Sampler::kRandomSeed : static_cast<uint64_t>(s->get<int64_t>());
  }
  const std::vector<LogitBias> bias = read_logit_bias(body);
  p.logit_bias.insert(p.logit_bias.end(), bias.begin(), bias.end());
  g.stop = read_stop(body);
  g.ignore_eos = boolean(body, "ignore_eos", ctx.default_ignore_eos);
  g.cache_prompt = boolean(body, "cache_prompt", true);
  g.grammar = read_response_format(body);
  read_logprobs(endpoint, body, g);
  return r;
}

}  // namespace ck::server
