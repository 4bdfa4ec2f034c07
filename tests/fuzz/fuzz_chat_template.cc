// Chat templates come from model files: detection must accept any text, and
// rendering any conversation of the shape the templates define (an optional
// system message, then user and assistant turns alternating, starting with
// the user) must neither crash nor lose what was said. Input: template text,
// then message contents, separated by NUL bytes; a first content starting
// with 0x01 is the system message.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tests/fuzz/walk.h"
#include "tokenizer/chat_template.h"

namespace {

std::vector<std::string_view> split_nul(std::string_view s) {
  std::vector<std::string_view> parts;
  for (size_t at; (at = s.find('\0')) != std::string_view::npos; s.remove_prefix(at + 1)) parts.push_back(s.substr(0, at));
  parts.push_back(s);
  return parts;
}

std::string_view trimmed(std::string_view s) {
  const size_t first = s.find_first_not_of(" \t\n\r\f\v");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\n\r\f\v") - first + 1);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ck::fuzz::quiet_logs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ck::tok;
  const auto parts = split_nul({reinterpret_cast<const char*>(data), size});
  std::vector<ChatMessage> messages;
  size_t first = 1;
  if (parts.size() > 1 && parts[1].starts_with('\x01')) {
    messages.push_back({"system", std::string(parts[1].substr(1))});
    first = 2;
  }
  for (size_t i = first; i < parts.size(); ++i) {
    messages.push_back({(i - first) % 2 == 0 ? "user" : "assistant", std::string(parts[i])});
  }
  try {
    const ChatTemplate tmpl = detect_chat_template(parts[0]);
    (void)chat_family_name(tmpl.family);
    const std::string full = render_chat(tmpl, messages, true);
    // Every message's content appears in the rendering (some families trim
    // it, as their Jinja does). A system message alone may render as nothing:
    // Llama-2 and Gemma put it inside the first user turn.
    const bool system_only = messages.size() == 1 && messages[0].role == "system";
    for (const ChatMessage& m : system_only ? std::span<const ChatMessage>{} : std::span<const ChatMessage>(messages)) {
      ck::fuzz::require(full.find(trimmed(m.content)) != std::string::npos, "a message's content is rendered");
    }
    // A conversation renders as a prefix of any longer one (the REPL relies on it).
    if (messages.size() >= 2) {
      const std::span<const ChatMessage> head(messages.data(), messages.size() - 1);
      const std::string shorter = render_chat(tmpl, head, false);
      ck::fuzz::require(render_chat(tmpl, messages, false).starts_with(shorter), "rendering extends the shorter conversation");
    }
    (void)select_chat_template(parts[0], parts.size() > 1 ? parts[1] : std::string_view{});
  } catch (const std::runtime_error&) {
  }
  return 0;
}
