#include "apps/chat/chat_repl.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "apps/chat/answer.h"
#include "apps/chat/conversation.h"
#include "apps/chat/line_reader.h"
#include "apps/common/app_main.h"
#include "apps/common/plural.h"
#include "apps/common/text_file.h"
#include "apps/common/utf8_input.h"

namespace ck::app {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_sigint(int) { g_interrupted = 1; }

// SIGINT sets a flag (no SA_RESTART, so a blocked read returns) for the
// lifetime of the REPL; the previous handler comes back afterwards.
class SigintFlag {
 public:
  SigintFlag() {
    struct sigaction sa {};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_);
    unblock_sigint();
  }
  ~SigintFlag() { sigaction(SIGINT, &old_, nullptr); }

 private:
  struct sigaction old_ {};
};

constexpr const char* kHelp =
    "  /exit          leave (also Ctrl-D, or Ctrl-C at an empty prompt)\n"
    "  /clear         forget the conversation (the system prompt stays)\n"
    "  /regen         answer the last message again\n"
    "  /system TEXT   set the system prompt (empty TEXT removes it)\n"
    "  /stats         speed of the last answer and context use\n"
    "  /help          this list\n"
    "  A line ending in \\ continues on the next line. Ctrl-C stops an answer (also while the\n"
    "  message is still being read in), or throws away a message being typed. When the context\n"
    "  is full, the oldest messages are dropped to make room (the system prompt stays); an answer\n"
    "  that fills it is cut off, or with --context-shift goes on after dropping the older half of\n"
    "  the conversation's tokens (the system prompt stays).\n";

std::string read_system_prompt_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw std::runtime_error("the system prompt file (--system-prompt-file, -sysf) " + path + " does not exist");
  }
  std::string s = read_text_file(path);
  drop_final_newline(s);
  return s;
}

std::string default_history_file() {
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.ck_history";
}

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

class Repl {
 public:
  Repl(Model& model, Session& session, const ChatOptions& opts, std::string system)
      : session_(session),
        tok_(model.tokenizer()),
        opts_(opts),
        conv_(tok_, tok::select_chat_template(tok_.chat_template(), opts.chat_template), std::move(system)),
        sampler_(make_sampler(opts.sampling, opts.ignore_eos, tok_)),
        grammar_(make_constraint(opts.grammar, tok_)),
        color_(isatty(STDERR_FILENO) != 0) {
    const tok::ChatTemplate t = tok::select_chat_template(tok_.chat_template(), opts.chat_template);
    spdlog::debug("chat template: {} ({}); default system prompt: '{}'", tok::chat_family_name(t.family),
                  opts.chat_template.empty() ? "recognised from the model's tokenizer.chat_template"
                                             : "--chat-template " + opts.chat_template,
                  t.default_system);
    sampler_.set_constraint(grammar_.get());
  }

  // Runs one user message or command; false = leave.
  bool handle(const std::string& input) {
    if (blank(input)) return true;  // an empty or all-blank line is not a message
    if (input[0] != '/') {
      // Invalid UTF-8 is not sent to the model; the REPL goes on (docs/apps.md).
      if (auto problem = utf8_problem(input, /*with_line=*/input.find('\n') != std::string::npos)) {
        notice("message not sent, it is not valid UTF-8: " + *problem);
        return true;
      }
      conv_.add("user", opts_.in_prefix + input + opts_.in_suffix);
      answer();
      return true;
    }
    const size_t space = input.find(' ');
    const std::string cmd = input.substr(0, space);
    const std::string arg = space == std::string::npos ? "" : input.substr(space + 1);
    if (cmd == "/exit" || cmd == "/quit") return false;
    if (cmd == "/clear") {
      conv_.clear();
      cache_.reset(session_);
      notice("conversation cleared");
    } else if (cmd == "/regen") {
      if (conv_.drop_last("assistant")) {
        answer();
      } else {
        notice("nothing to regenerate yet");
      }
    } else if (cmd == "/system") {
      if (auto problem = utf8_problem(arg, /*with_line=*/false)) {
        notice("system prompt not changed, it is not valid UTF-8: " + *problem);
        return true;
      }
      conv_.set_system(arg);
      notice(arg.empty() ? "system prompt removed" : "system prompt set; it applies to the whole conversation");
    } else if (cmd == "/stats") {
      notice(have_stats_ ? format_stats(last_) : "no answer yet");
      notice("context: " + std::to_string(session_.n_past()) + "/" + std::to_string(session_.n_ctx()) +
             " tokens, " + std::to_string(conv_.size()) + " messages");
    } else if (cmd == "/help") {
      std::fputs(kHelp, stderr);
    } else {
      notice("unknown command " + cmd + "; /help lists them");
    }
    return true;
  }

  int answers() const { return answers_; }

 private:
  void notice(const std::string& text) {
    std::fflush(stdout);
    std::fprintf(stderr, color_ ? "\033[2m%s\033[0m\n" : "%s\n", text.c_str());
  }

  // Room the answer needs: -n when set (up to half the context), else a
  // quarter of the context.
  size_t answer_room() const {
    const int n_ctx = session_.n_ctx();
    const int room = opts_.n_predict >= 0 ? std::min(opts_.n_predict, n_ctx / 2) : n_ctx / 4;
    return static_cast<size_t>(std::max(room, 1));
  }

  // When the conversation and room for an answer no longer fit the context,
  // the oldest exchanges go first (the system prompt and the message being
  // answered stay), and the user is told.
  void make_room() {
    const size_t n_ctx = static_cast<size_t>(session_.n_ctx());
    size_t dropped = 0;
    while (conv_.prompt_tokens().size() + answer_room() > n_ctx) {
      const size_t n = conv_.drop_oldest_exchange();
      if (n == 0) break;
      dropped += n;
    }
    if (dropped > 0) {
      notice("[the context is full: dropped the oldest " + count_of(static_cast<long long>(dropped), "message") +
             (conv_.system_prompt().empty() ? "" : "; the system prompt stays") + "]");
    }
  }

  // A Ctrl-C from the moment the message was sent stops this answer; the
  // flag is cleared only when the next prompt is shown.
  void answer() {
    make_room();
    if (grammar_) grammar_->reset();  // every answer follows the grammar from its start
    AnswerRequest req{opts_.n_predict, &g_interrupted,
                      [](std::string_view text) {
                        std::fwrite(text.data(), 1, text.size(), stdout);
                        std::fflush(stdout);
                      },
                      opts_.n_threads,     opts_.n_threads_batch, opts_.render_special,
                      opts_.reverse_prompts, opts_.n_probs, opts_.verbose_prompt, opts_.context_shift};
    TurnStats stats;
    std::string text;
    try {
      text = generate_answer(conv_, session_, cache_, sampler_, tok_, req, stats);
    } catch (const std::runtime_error& e) {
      // Even this message alone does not fit: say so, keep the history as it was.
      conv_.drop_last("user");
      notice(std::string("cannot answer: ") + e.what() + "; /clear starts a new conversation");
      return;
    }
    std::fputs("\n", stdout);
    conv_.add("assistant", std::move(text));
    ++answers_;
    last_ = stats;
    have_stats_ = true;
    if (stats.stop == StopReason::Interrupted) notice("[answer stopped]");
    if (stats.stop == StopReason::Limit) {
      notice("[answer cut off at -n " + std::to_string(opts_.n_predict) + " tokens]");
    }
    if (stats.stop == StopReason::ContextFull) notice("[the context is full: answer cut off]");
    if (stats.n_shifts > 0) {
      notice("[the context was full: " + count_of(stats.n_shifts, "context shift") +
             " dropped the older half of the conversation's tokens" +
             (conv_.system_prompt().empty() ? "" : "; the system prompt stays") + "]");
    }
    notice(format_stats(stats));
    if (stats.n_past * 10 >= stats.n_ctx * 9) {
      notice("the context is " + std::to_string(100 * stats.n_past / stats.n_ctx) +
             "% full; the oldest messages will be dropped to make room (/clear starts a new conversation)");
    }
  }

  Session& session_;
  const tok::Tokenizer& tok_;
  const ChatOptions& opts_;
  Conversation conv_;
  CachedTokens cache_;
  Sampler sampler_;
  std::unique_ptr<GrammarConstraint> grammar_;
  bool color_;
  TurnStats last_;
  bool have_stats_ = false;
  int answers_ = 0;
};

}  // namespace

std::string_view chat_commands_help() { return kHelp; }

int run_chat(Model& model, Session& session, const ChatOptions& opts) {
  if (opts.system_prompt_file.empty()) require_utf8(opts.system_prompt, "the system prompt (-sys)", false);
  const std::string system =
      opts.system_prompt_file.empty() ? opts.system_prompt : read_system_prompt_file(opts.system_prompt_file);
  session.reset();
  Repl repl(model, session, opts, system);
  SigintFlag sigint;
  const bool interactive = isatty(STDIN_FILENO) != 0;
  if (!opts.first_message.empty()) {
    if (interactive) std::printf("> %s\n", opts.first_message.c_str());
    repl.handle(opts.first_message);
    if (opts.single_turn) return 0;
  }
  auto reader = interactive ? make_terminal_reader(opts.history_file.empty() ? default_history_file()
                                                                             : opts.history_file,
                                                   &g_interrupted)
                            : make_stream_reader();
  if (interactive) std::fputs("Chat: /help for commands, Ctrl-D or /exit to leave.\n", stderr);
  InputEnd end = InputEnd::Eof;
  while (true) {
    g_interrupted = 0;
    const auto message = reader->read(end);
    if (!message || !repl.handle(*message)) break;
    if (opts.single_turn && repl.answers() > 0) break;
  }
  if (interactive && end == InputEnd::Interrupt) std::fputs("\n", stderr);
  return 0;
}

}  // namespace ck::app
