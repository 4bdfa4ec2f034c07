// The request bodies of the completion endpoints: what is accepted, and
// that each wrong field is refused with a 400 naming it.
#include <catch2/catch.hpp>

#include "apps/server/api_error.h"
#include "apps/server/request_parse.h"

namespace {

using ck::server::ApiError;
using ck::server::Endpoint;
using nlohmann::json;

ck::server::ParseContext context() {
  ck::server::ParseContext c;
  c.model_id = "tiny";
  c.chat_template = {ck::tok::ChatFamily::ChatML, {}};
  c.default_max_tokens = 64;
  return c;
}

ck::server::CompletionRequest parse(Endpoint e, const std::string& body) {
  return ck::server::parse_completion_request(e, ck::server::parse_body(body), context());
}

// The status and the field an ApiError names.
std::pair<int, std::string> refusal(Endpoint e, const std::string& body) {
  try {
    parse(e, body);
  } catch (const ApiError& err) {
    return {err.status(), err.param()};
  }
  return {0, ""};
}

}  // namespace

TEST_CASE("a chat request is rendered with the template and its fields read", "[server][parse]") {
  const auto r = parse(Endpoint::Chat, R"({"model": "tiny", "messages": [
      {"role": "system", "content": "Be brief."},
      {"role": "user", "content": [{"type": "text", "text": "Hi"}]}],
      "max_tokens": 5, "temperature": 0, "top_k": 3, "top_p": 0.5, "min_p": 0.1, "seed": 7,
      "stop": ["\n"], "stream": true, "stream_options": {"include_usage": true}})");
  REQUIRE(r.prompt_text ==
          "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
  REQUIRE(r.stream);
  REQUIRE(r.include_usage);
  REQUIRE(r.generation.max_tokens == 5);
  REQUIRE(r.generation.sampling.temp == 0.0f);
  REQUIRE(r.generation.sampling.top_k == 3);
  REQUIRE(r.generation.sampling.top_p == 0.5f);
  REQUIRE(r.generation.sampling.min_p == 0.1f);
  REQUIRE(r.generation.sampling.seed == 7);
  REQUIRE(r.generation.stop == std::vector<std::string>{"\n"});
}

TEST_CASE("a completion takes a string, a list of one string, or token ids; defaults apply", "[server][parse]") {
  REQUIRE(parse(Endpoint::Completion, R"({"prompt": "Once"})").prompt_text == "Once");
  REQUIRE(parse(Endpoint::Completion, R"({"prompt": ["Once"]})").prompt_text == "Once");
  const auto ids = parse(Endpoint::Completion, R"({"prompt": [1, 2, 3], "logprobs": 2})");
  REQUIRE(ids.prompt_ids == std::vector<int32_t>{1, 2, 3});
  REQUIRE(ids.generation.logprobs);
  REQUIRE(ids.generation.top_logprobs == 2);
  const auto d = parse(Endpoint::Completion, R"({"prompt": "x", "stop": "END"})");
  REQUIRE(d.generation.max_tokens == 64);  // the server's -n
  REQUIRE(d.generation.stop == std::vector<std::string>{"END"});
  REQUIRE_FALSE(d.stream);
}

TEST_CASE("response_format json_object and json_schema become a grammar", "[server][parse]") {
  REQUIRE(parse(Endpoint::Chat, R"({"messages": [{"role": "user", "content": "x"}],
      "response_format": {"type": "json_object"}})").generation.grammar.has_value());
  REQUIRE(parse(Endpoint::Chat, R"({"messages": [{"role": "user", "content": "x"}],
      "response_format": {"type": "json_schema", "json_schema": {"name": "n", "schema":
        {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}}}})").generation.grammar.has_value());
  REQUIRE_FALSE(parse(Endpoint::Chat, R"({"messages": [{"role": "user", "content": "x"}],
      "response_format": {"type": "text"}})").generation.grammar.has_value());
}

TEST_CASE("bad requests are 400 naming the field", "[server][parse]") {
  const std::string msg = R"("messages": [{"role": "user", "content": "x"}])";
  using P = std::pair<int, std::string>;
  REQUIRE(refusal(Endpoint::Chat, "{") == P{400, ""});
  REQUIRE(refusal(Endpoint::Chat, "[1]") == P{400, ""});
  REQUIRE(refusal(Endpoint::Chat, "{}") == P{400, "messages"});
  REQUIRE(refusal(Endpoint::Chat, R"({"messages": []})") == P{400, "messages"});
  REQUIRE(refusal(Endpoint::Chat, R"({"messages": [{"role": "robot", "content": "x"}]})") == P{400, "messages[0].role"});
  REQUIRE(refusal(Endpoint::Chat, R"({"messages": [{"role": "user", "content": 5}]})") == P{400, "messages[0].content"});
  REQUIRE(refusal(Endpoint::Chat, "{" + msg + R"(, "model": "gpt-4"})") == P{400, "model"});
  REQUIRE(refusal(Endpoint::Chat, "{" + msg + R"(, "temperature": "hot"})") == P{400, "temperature"});
  REQUIRE(refusal(Endpoint::Chat, "{" + msg + R"(, "temperature": 3})") == P{400, "temperature"});
  REQUIRE(refusal(Endpoint::Chat, "{" + msg + R"(, "max_tokens": 0})") == P{400, "max_tokens"});
  REQUIRE(refusal(Endpoint::Chat, "{" + msg + R"(, "max_tokens": 1.5})") == P{400, "max_tokens"});
  REQUIRE(refusal(Endpoint::Chat, "{" + msg + R"(, "n": 2})") == P{400, "n"});
  REQUIRE(refusal(Endpoint::Chat, "{" + msg + R"(, "stop": [1]})") == P{400, "stop"});
  REQUIRE(refusal(Endpoint::Chat, "{" + msg + R"(, "stream": "yes"})") == P{400, "stream"});
  REQUIRE(refusal(Endpoint::Chat, "{" + msg + R"(, "logit_bias": {"x": 1}})") == P{400, "logit_bias"});
  REQUIRE(refusal(Endpoint::Chat, "{" + msg + R"(, "top_logprobs": 2})") == P{400, "top_logprobs"});
  REQUIRE(refusal(Endpoint::Chat, "{" + msg + R"(, "response_format": {"type": "xml"}})") == P{400, "response_format.type"});
  REQUIRE(refusal(Endpoint::Chat, "{" + msg + R"(, "response_format": {"type": "json_schema", "json_schema":
      {"schema": {"$ref": "#/x"}}}})") == P{400, "response_format"});
  REQUIRE(refusal(Endpoint::Completion, R"({"prompt": ""})") == P{400, "prompt"});
  REQUIRE(refusal(Endpoint::Completion, R"({"prompt": {"a": 1}})") == P{400, "prompt"});
  REQUIRE(refusal(Endpoint::Completion, R"({"prompt": "x", "logprobs": 9})") == P{400, "logprobs"});
}
