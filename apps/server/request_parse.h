// The JSON body of POST /v1/chat/completions and /v1/completions, checked
// field by field: a wrong type or value is an ApiError(400) naming the
// field, as OpenAI's API answers. Fields we do not know are ignored (clients
// send many). The chat messages are rendered with the model's template
// here; tokenizing is the caller's (it needs the model).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "apps/server/generation_request.h"
#include "tokenizer/chat_template.h"

namespace ck::server {

enum class Endpoint { Chat, Completion };

// What the server passes to every parse.
struct ParseContext {
  std::string model_id;          // a request naming another model is refused
  tok::ChatTemplate chat_template;
  SamplerParams defaults;        // the server's sampling flags; the request overrides them
  int default_max_tokens = -1;   // -n
  bool default_ignore_eos = false;  // --ignore-eos
};

struct CompletionRequest {
  Endpoint endpoint = Endpoint::Chat;
  std::string prompt_text;          // the chat rendered, or the completion's prompt text
  std::vector<int32_t> prompt_ids;  // a completion's prompt given as token ids (then prompt_text is empty)
  bool stream = false;
  bool include_usage = false;       // stream_options.include_usage
  GenerationRequest generation;     // all but the prompt tokens
};

// Throws ApiError(400) for a body that is not JSON or not an object.
nlohmann::json parse_body(const std::string& body);

// Throws ApiError(400) naming the field at fault.
CompletionRequest parse_completion_request(Endpoint endpoint, const nlohmann::json& body, const ParseContext& ctx);

}  // namespace ck::server
