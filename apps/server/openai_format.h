// The JSON OpenAI's clients expect: whole responses, the chunks of a
// stream (server-sent events), usage and logprobs, for the chat and the
// plain completion endpoints.
#pragma once
#include <ctime>
#include <nlohmann/json.hpp>
#include <string>

#include "apps/server/request_parse.h"
#include "apps/server/task.h"

namespace ck::server {

// What every object of one response repeats.
struct ResponseHeader {
  Endpoint endpoint;
  std::string id;  // "chatcmpl-..." or "cmpl-..."
  std::string model;
  std::time_t created = 0;
};

ResponseHeader make_header(Endpoint endpoint, const std::string& model);

nlohmann::json usage_json(const Usage& u);

// The whole answer (stream: false).
nlohmann::json response_json(const ResponseHeader& h, const std::string& text, const std::vector<TokenProbs>& probs,
                             FinishReason reason, const Usage& usage);

// One chunk of a stream: new text (the chat's first chunk also carries the
// role), or the last one with the finish reason and no text.
nlohmann::json chunk_json(const ResponseHeader& h, const std::string& text, const std::vector<TokenProbs>& probs,
                          bool first, const FinishReason* finish);
// stream_options.include_usage: the chunk after the last, with no choices.
nlohmann::json usage_chunk_json(const ResponseHeader& h, const Usage& usage);

// "data: <json>\n\n"
std::string sse_event(const nlohmann::json& j);
inline constexpr const char* kSseDone = "data: [DONE]\n\n";

}  // namespace ck::server
