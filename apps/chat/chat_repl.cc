#include "apps/chat/chat_repl.h"

#include <stdexcept>

namespace ck::app {

// Placeholder until the REPL lands (tokenizer chat templates are in progress).
int run_chat(Model&, Session&, const ChatOptions&) {
  throw std::runtime_error("chat mode is not implemented yet");
}

}  // namespace ck::app
