#include "apps/server/openai_format.h"

#include <atomic>
#include <random>

namespace ck::server {
namespace {

using nlohmann::json;

// Ids unique within this server's run and unlikely to repeat across runs.
std::string make_id(const char* prefix) {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t start = std::random_device{}();
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s-%08llx%06llx", prefix, static_cast<unsigned long long>(start & 0xffffffff),
                static_cast<unsigned long long>(++counter));
  return buf;
}

// A string's bytes as a list of ints (OpenAI's "bytes": a token may be part
// of a UTF-8 character).
json bytes_of(const std::string& s) {
  json out = json::array();
  for (unsigned char c : s) out.push_back(c);
  return out;
}

// The text, with each invalid UTF-8 sequence replaced by U+FFFD: a token's
// text may be a fragment of a character, and JSON strings must be valid UTF-8.
json text_of(const std::string& s) { return json::parse(json(s).dump(-1, ' ', false, json::error_handler_t::replace)); }

json logprobs_json(Endpoint e, const std::vector<TokenProbs>& probs) {
  if (probs.empty()) return nullptr;
  if (e == Endpoint::Chat) {
    json content = json::array();
    for (const TokenProbs& p : probs) {
      json top = json::array();
      for (const auto& [text, lp] : p.top) top.push_back({{"token", text_of(text)}, {"logprob", lp}, {"bytes", bytes_of(text)}});
      content.push_back({{"token", text_of(p.text)}, {"logprob", p.logprob}, {"bytes", bytes_of(p.text)}, {"top_logprobs", top}});
    }
    return {{"content", content}};
  }
  json tokens = json::array(), lps = json::array(), tops = json::array();
  for (const TokenProbs& p : probs) {
    tokens.push_back(text_of(p.text));
    lps.push_back(p.logprob);
    json top = json::object();
    for (const auto& [text, lp] : p.top) top[text_of(text).get<std::string>()] = lp;
    tops.push_back(top);
  }
  return {{"tokens", tokens}, {"token_logprobs", lps}, {"top_logprobs", tops}};
}

json base(const ResponseHeader& h, bool chunk) {
  const char* object = h.endpoint == Endpoint::Chat ? (chunk ? "chat.completion.chunk" : "chat.completion") : "text_completion";
  return {{"id", h.id}, {"object", object}, {"created", h.created}, {"model", h.model}, {"system_fingerprint", "ck"}};
}

}  // namespace

ResponseHeader make_header(Endpoint endpoint, const std::string& model) {
  return {endpoint, make_id(endpoint == Endpoint::Chat ? "chatcmpl" : "cmpl"), model, std::time(nullptr)};
}

json usage_json(const Usage& u) {
  return {{"prompt_tokens", u.prompt_tokens},
          {"completion_tokens", u.completion_tokens},
          {"total_tokens", u.prompt_tokens + u.completion_tokens},
          {"prompt_tokens_details", {{"cached_tokens", u.cached_tokens}}}};
}

json response_json(const ResponseHeader& h, const std::string& text, const std::vector<TokenProbs>& probs,
                   FinishReason reason, const Usage& usage) {
  json choice = {{"index", 0}, {"logprobs", logprobs_json(h.endpoint, probs)}, {"finish_reason", finish_reason_name(reason)}};
  if (h.endpoint == Endpoint::Chat) {
    choice["message"] = {{"role", "assistant"}, {"content", text_of(text)}};
  } else {
    choice["text"] = text_of(text);
  }
  json out = base(h, false);
  out["choices"] = json::array({choice});
  out["usage"] = usage_json(usage);
  return out;
}

json chunk_json(const ResponseHeader& h, const std::string& text, const std::vector<TokenProbs>& probs, bool first,
                const FinishReason* finish) {
  json choice = {{"index", 0}, {"logprobs", logprobs_json(h.endpoint, probs)}};
  choice["finish_reason"] = finish ? json(finish_reason_name(*finish)) : json(nullptr);
  if (h.endpoint == Endpoint::Chat) {
    json delta = json::object();
    if (first) delta["role"] = "assistant";
    if (!finish || !text.empty()) delta["content"] = text_of(text);
    choice["delta"] = delta;
  } else {
    choice["text"] = text_of(text);
  }
  json out = base(h, true);
  out["choices"] = json::array({choice});
  return out;
}

json usage_chunk_json(const ResponseHeader& h, const Usage& usage) {
  json out = base(h, true);
  out["choices"] = json::array();
  out["usage"] = usage_json(usage);
  return out;
}

std::string sse_event(const json& j) {
  return "data: " + j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n\n";
}

}  // namespace ck::server
