#include "tokenizer/chat_template.h"

#include <spdlog/spdlog.h>

#include <array>
#include <stdexcept>
#include <utility>

namespace ck::tok {

namespace {

constexpr std::array<std::pair<ChatFamily, std::string_view>, 7> kNames = {{
    {ChatFamily::None, "none"},
    {ChatFamily::ChatML, "chatml"},
    {ChatFamily::Llama2, "llama2"},
    {ChatFamily::Llama3, "llama3"},
    {ChatFamily::Zephyr, "zephyr"},
    {ChatFamily::Phi3, "phi3"},
    {ChatFamily::Gemma, "gemma"},
}};

bool contains(std::string_view text, std::string_view what) { return text.find(what) != std::string_view::npos; }

// Jinja's trim / Python's str.strip(), for the whitespace that occurs in chat text.
std::string_view trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\r\f\v";
  const size_t begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(kSpace) - begin + 1);
}

// ChatML templates that open with a system turn when the conversation has
// none spell it as a string literal: '<|im_start|>system\n...<|im_end|>'
// (SmolLM2 and Qwen2 under "messages[0]['role'] != 'system'", Qwen2.5 in the
// else branch of "== 'system'"). The newline is either a real one or Jinja's
// "\n" escape.
std::string default_system_prompt(std::string_view jinja) {
  constexpr std::string_view kOpen = "<|im_start|>system";
  for (size_t at = jinja.find(kOpen); at != std::string_view::npos; at = jinja.find(kOpen, at + 1)) {
    std::string_view rest = jinja.substr(at + kOpen.size());
    if (rest.starts_with("\n")) {
      rest.remove_prefix(1);
    } else if (rest.starts_with("\\n")) {
      rest.remove_prefix(2);
    } else {
      continue;
    }
    const size_t end = rest.find("<|im_end|>");
    if (end == std::string_view::npos) continue;
    const std::string_view prompt = rest.substr(0, end);
    // Only a plain literal counts; a Jinja expression ("' + message[...]") is
    // the ordinary system turn, not a default.
    if (prompt.empty() || contains(prompt, "'") || contains(prompt, "\"") || contains(prompt, "{")) continue;
    return std::string(prompt);
  }
  return {};
}

void render_chatml(const ChatTemplate& tmpl, std::span<const ChatMessage> messages, std::string& out) {
  for (size_t i = 0; i < messages.size(); ++i) {
    if (i == 0 && messages[0].role != "system" && !tmpl.default_system.empty()) {
      out += "<|im_start|>system\n" + tmpl.default_system + "<|im_end|>\n";
    }
    out += "<|im_start|>" + messages[i].role + "\n" + messages[i].content + "<|im_end|>\n";
  }
}

// The official Llama-2 chat template: the system prompt is folded into the
// first [INST] block; every later user turn starts with its own BOS.
void render_llama2(std::span<const ChatMessage> messages, std::string& out) {
  std::string system;
  bool first_turn = true;
  for (const ChatMessage& m : messages) {
    if (m.role == "system") {
      system = std::string(trim(m.content));
    } else if (m.role == "assistant") {
      out += " " + std::string(trim(m.content)) + " </s>";
    } else {
      out += first_turn ? "[INST] " : "<s>[INST] ";
      if (!system.empty()) out += "<<SYS>>\n" + system + "\n<</SYS>>\n\n";
      system.clear();
      out += std::string(trim(m.content)) + " [/INST]";
      first_turn = false;
    }
  }
}

void render_llama3(std::span<const ChatMessage> messages, std::string& out) {
  for (const ChatMessage& m : messages) {
    out += "<|start_header_id|>" + m.role + "<|end_header_id|>\n\n" + std::string(trim(m.content)) + "<|eot_id|>";
  }
}

// Zephyr and Phi-3 share "<|role|>\n" headers and differ in the end marker.
void render_role_tags(std::span<const ChatMessage> messages, std::string_view end, std::string& out) {
  for (const ChatMessage& m : messages) out += "<|" + m.role + "|>\n" + m.content + std::string(end) + "\n";
}

// Gemma has no system role: the system text opens the first user turn.
void render_gemma(std::span<const ChatMessage> messages, std::string& out) {
  std::string system;
  for (const ChatMessage& m : messages) {
    if (m.role == "system") {
      system += std::string(trim(m.content));
      continue;
    }
    const bool model = m.role == "assistant";
    out += "<start_of_turn>" + std::string(model ? "model" : m.role) + "\n";
    if (!system.empty() && !model) {
      out += system + "\n\n";
      system.clear();
    }
    out += std::string(trim(m.content)) + "<end_of_turn>\n";
  }
}

// No template: the contents one after the other, a newline between them.
void render_plain(std::span<const ChatMessage> messages, std::string& out) {
  for (size_t i = 0; i < messages.size(); ++i) {
    if (i > 0) out += "\n";
    out += messages[i].content;
  }
}

}  // namespace

std::string_view chat_family_name(ChatFamily family) {
  for (const auto& [f, name] : kNames) {
    if (f == family) return name;
  }
  return "unknown";
}

std::string chat_family_names() {
  std::string names;
  for (const auto& [f, name] : kNames) {
    if (!names.empty()) names += ", ";
    names += name;
  }
  return names;
}

ChatFamily chat_family_from_name(std::string_view name) {
  for (const auto& [f, n] : kNames) {
    if (n == name) return f;
  }
  throw std::runtime_error("unknown chat template '" + std::string(name) + "', expected one of: " +
                           chat_family_names());
}

ChatTemplate detect_chat_template(std::string_view jinja) {
  if (trim(jinja).empty()) return {ChatFamily::None, {}};
  if (contains(jinja, "<|im_start|>")) return {ChatFamily::ChatML, default_system_prompt(jinja)};
  if (contains(jinja, "<|start_header_id|>")) return {ChatFamily::Llama3, {}};
  if (contains(jinja, "<start_of_turn>")) return {ChatFamily::Gemma, {}};
  if (contains(jinja, "<|user|>")) return {contains(jinja, "<|end|>") ? ChatFamily::Phi3 : ChatFamily::Zephyr, {}};
  if (contains(jinja, "[INST]")) return {ChatFamily::Llama2, {}};
  spdlog::warn("chat template not recognised (none of the ChatML, Llama-2, Llama-3, Zephyr, Phi-3, Gemma markers); "
               "using ChatML");
  return {ChatFamily::ChatML, {}};
}

ChatTemplate select_chat_template(std::string_view model_jinja, std::string_view choice) {
  if (choice.empty()) return detect_chat_template(model_jinja);
  for (const auto& [family, name] : kNames) {
    if (name != choice) continue;
    ChatTemplate model = detect_chat_template(model_jinja);
    if (model.family == family) return model;
    return {family, {}};
  }
  return detect_chat_template(choice);
}

std::string render_chat(const ChatTemplate& tmpl, std::span<const ChatMessage> messages,
                        bool add_generation_prompt) {
  std::string out;
  switch (tmpl.family) {
    case ChatFamily::None:
      render_plain(messages, out);
      break;
    case ChatFamily::ChatML:
      render_chatml(tmpl, messages, out);
      if (add_generation_prompt) out += "<|im_start|>assistant\n";
      break;
    case ChatFamily::Llama2:
      render_llama2(messages, out);
      break;
    case ChatFamily::Llama3:
      render_llama3(messages, out);
      if (add_generation_prompt) out += "<|start_header_id|>assistant<|end_header_id|>\n\n";
      break;
    case ChatFamily::Zephyr:
      render_role_tags(messages, "</s>", out);
      if (add_generation_prompt) out += "<|assistant|>\n";
      break;
    case ChatFamily::Phi3:
      render_role_tags(messages, "<|end|>", out);
      if (add_generation_prompt) out += "<|assistant|>\n";
      break;
    case ChatFamily::Gemma:
      render_gemma(messages, out);
      if (add_generation_prompt) out += "<start_of_turn>model\n";
      break;
  }
  return out;
}

}  // namespace ck::tok
