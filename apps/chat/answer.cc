#include "apps/chat/answer.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>

#include "apps/common/plural.h"
#include "apps/common/stop_strings.h"
#include "apps/common/thread_count.h"
#include "apps/common/token_report.h"

namespace ck::app {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double rate(int n, double s) { return s > 0 ? n / s : 0.0; }

}  // namespace

std::string format_stats(const TurnStats& s) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "[ prompt: %d tok, %.1f t/s | generation: %d tok, %.1f t/s | context: %d/%d",
                s.n_prompt, rate(s.n_prompt, s.prompt_s), s.n_gen, rate(s.n_gen, s.gen_s), s.n_past, s.n_ctx);
  std::string text = buf;
  if (s.n_shifts > 0) text += " | " + count_of(s.n_shifts, "context shift");
  return text + " ]";
}

std::string generate_answer(const Conversation& conv, Session& session, CachedTokens& cache, Sampler& sampler,
                            const tok::Tokenizer& tokenizer, const AnswerRequest& req, TurnStats& stats) {
  stats = TurnStats{};
  stats.n_ctx = session.n_ctx();
  const std::string rendered = conv.render();
  spdlog::debug("rendered conversation ({} bytes):\n{}", rendered.size(), rendered);
  const std::vector<int32_t> prompt = conv.prompt_tokens();
  if (req.verbose_prompt) std::fputs(verbose_prompt_text(tokenizer, rendered, prompt).c_str(), stderr);
  const volatile std::sig_atomic_t* interrupted = req.interrupted;
  session.set_stop_check([interrupted] { return *interrupted != 0; });
  auto t0 = std::chrono::steady_clock::now();
  std::span<const float> logits;
  try {
    PrefillThreads threads(req.n_threads_batch, req.n_threads);
    logits = cache.sync(session, prompt, stats.n_prompt);
  } catch (const EvalStopped&) {
    stats.prompt_s = seconds_since(t0);
    stats.n_prompt = 0;
    stats.stop = StopReason::Interrupted;
    stats.n_past = session.n_past();
    return {};
  }
  stats.prompt_s = seconds_since(t0);
  const int n_keep = req.context_shift ? conv.system_tokens(prompt) : 0;

  std::string answer;
  tok::StreamDecoder decoder(tokenizer, req.render_special);
  StopStrings stops(req.stop_strings);
  t0 = std::chrono::steady_clock::now();
  while (true) {
    if (*req.interrupted) { stats.stop = StopReason::Interrupted; break; }
    if (req.n_predict >= 0 && stats.n_gen >= req.n_predict) { stats.stop = StopReason::Limit; break; }
    const int32_t token = sampler.sample(logits);
    sampler.accept(token);
    // The end-of-turn token is not evaluated now: the next turn's rendering
    // contains it and evaluates it with the next prompt.
    if (tokenizer.is_eog(token)) break;
    if (req.n_probs > 0) std::fputs(token_probs_line(tokenizer, token, sampler, req.n_probs).c_str(), stderr);
    const std::string text = decoder.push(token);
    answer += text;
    if (!text.empty()) req.on_text(text);
    ++stats.n_gen;
    if (stops.push(tokenizer.token_to_piece(token, /*render_special=*/true))) {
      stats.stop = StopReason::StopString;
      break;
    }
    if (session.n_past() >= session.n_ctx() && !req.context_shift) { stats.stop = StopReason::ContextFull; break; }
    try {
      if (session.n_past() < session.n_ctx()) {
        logits = cache.push(session, token);
      } else {
        PrefillThreads threads(req.n_threads_batch, req.n_threads);
        int n_reevaluated = 0;
        logits = cache.shift_push(session, n_keep, token, n_reevaluated);
        ++stats.n_shifts;
      }
    } catch (const EvalStopped&) {  // Ctrl-C during this token's forward pass
      stats.stop = StopReason::Interrupted;
      break;
    }
  }
  const std::string tail = decoder.flush();
  answer += tail;
  if (!tail.empty()) req.on_text(tail);
  stats.gen_s = seconds_since(t0);
  stats.n_past = session.n_past();
  return answer;
}

}  // namespace ck::app
