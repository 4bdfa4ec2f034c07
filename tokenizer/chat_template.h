// Chat templates: a conversation rendered into the text a chat model was
// trained on. GGUF files carry the template as Jinja (tokenizer.chat_template);
// we never execute it (nothing from a model file runs here). Instead the
// family is recognised by its distinctive markers and rendered by code that
// reproduces what that family's template produces.
//
// The rendered text does not start with BOS: encode it with
// add_special = true (which adds BOS where the vocabulary wants it) and
// parse_special = true (so "<|im_start|>" becomes its token).
#pragma once
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ck::tok {

enum class ChatFamily { None, ChatML, Llama2, Llama3, Zephyr, Phi3, Gemma };

struct ChatMessage {
  std::string role;  // "system", "user" or "assistant"
  std::string content;
};

struct ChatTemplate {
  ChatFamily family = ChatFamily::None;
  // The system prompt the template inserts when the conversation does not
  // start with one (SmolLM2: "You are a helpful AI assistant named SmolLM,
  // trained by Hugging Face"; Qwen2 likewise). Empty = none.
  std::string default_system;
};

// "none", "chatml", "llama2", "llama3", "zephyr", "phi3", "gemma".
std::string_view chat_family_name(ChatFamily family);
// Every name above, comma-separated.
std::string chat_family_names();
// The family called `name`; throws std::runtime_error listing the names.
ChatFamily chat_family_from_name(std::string_view name);

// Recognises the Jinja text of tokenizer.chat_template. Empty (a base model
// such as stories260K) is None: plain text. A template we do not recognise is
// reported with a warning (spdlog) and rendered as ChatML, the stated fallback.
ChatTemplate detect_chat_template(std::string_view jinja);

// What --chat-template selects: empty `choice` = the model's own template;
// a family name = that family (ChatML from the model's template keeps its
// default system prompt); anything else is taken as Jinja text and detected.
ChatTemplate select_chat_template(std::string_view model_jinja, std::string_view choice);

// The conversation as the family's template renders it, followed by the
// assistant header when `add_generation_prompt`. Rendering a conversation
// and then a longer one that extends it gives a text that extends the first
// (ChatML, Llama-3, Zephyr, Phi-3, Gemma, None; Llama-2 too), so a REPL can
// tokenize only the new suffix each turn.
std::string render_chat(const ChatTemplate& tmpl, std::span<const ChatMessage> messages,
                        bool add_generation_prompt);
inline std::string render_chat(ChatFamily family, std::span<const ChatMessage> messages,
                               bool add_generation_prompt) {
  return render_chat(ChatTemplate{family, {}}, messages, add_generation_prompt);
}

}  // namespace ck::tok
