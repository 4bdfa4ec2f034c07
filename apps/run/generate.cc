#include "apps/run/generate.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "apps/common/stop_strings.h"
#include "apps/common/thread_count.h"
#include "apps/common/token_report.h"
#include "apps/run/interrupt.h"
#include "runtime/context_shift.h"

namespace ck::app {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void write(std::FILE* out, const std::string& text) {
  if (text.empty()) return;
  std::fwrite(text.data(), 1, text.size(), out);
  std::fflush(out);  // stream token by token
}

}  // namespace

GenerationStats generate(Session& session, Sampler& sampler, const tok::Tokenizer& tokenizer,
                         std::span<const int32_t> prompt, const GenerationLimits& limits, std::FILE* out) {
  GenerationStats st;
  st.prompt_total = static_cast<int>(prompt.size());
  session.set_stop_check([] { return interrupted(); });
  const int start = session.n_past();
  auto t0 = std::chrono::steady_clock::now();
  std::span<const float> logits;
  try {
    PrefillThreads threads(limits.n_threads_batch, limits.n_threads);
    logits = session.eval(prompt);
  } catch (const EvalStopped&) {
    st.prompt_tokens = session.n_past() - start;  // the batches that finished
    st.prompt_seconds = seconds_since(t0);
    st.stop = StopReason::Interrupted;
    return st;
  }
  st.prompt_tokens = st.prompt_total;
  std::vector<int32_t> context(prompt.begin(), prompt.end());  // what the cache holds, for a context shift
  sampler.accept_prompt(prompt);  // the penalty window includes the prompt, as in llama.cpp
  st.prompt_seconds = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  tok::StreamDecoder decoder(tokenizer, limits.render_special);
  StopStrings stops(limits.stop_strings);
  auto limit_reached = [&] { return limits.n_predict >= 0 && st.generated_tokens >= limits.n_predict; };
  st.stop = StopReason::TokenLimit;
  try {
    while (!limit_reached()) {
      if (interrupted()) {
        st.stop = StopReason::Interrupted;
        break;
      }
      const int32_t token = sampler.sample(logits);
      if (tokenizer.is_eog(token)) {
        st.stop = StopReason::EndOfGeneration;
        break;
      }
      sampler.accept(token);
      ++st.generated_tokens;
      if (limits.n_probs > 0) std::fputs(token_probs_line(tokenizer, token, sampler, limits.n_probs).c_str(), stderr);
      write(out, decoder.push(token));
      // Stop strings match the token's text with special tokens as written
      // (-r "<|im_end|>" works whether or not -sp prints it).
      if (stops.push(tokenizer.token_to_piece(token, /*render_special=*/true))) {
        st.stop = StopReason::StopString;
        break;
      }
      if (limit_reached()) break;  // no need to run the model on the last token
      if (session.n_past() < session.n_ctx()) {
        logits = session.eval(std::span(&token, 1));
        context.push_back(token);
      } else if (limits.context_shift) {
        PrefillThreads threads(limits.n_threads_batch, limits.n_threads);
        int n_reevaluated = 0;
        logits = shift_and_eval(session, context, limits.n_keep, token, n_reevaluated);
        ++st.context_shifts;
        st.reevaluated_tokens += n_reevaluated;
      } else {
        st.stop = StopReason::ContextFull;
        break;
      }
    }
  } catch (const EvalStopped&) {
    st.stop = StopReason::Interrupted;
  }
  write(out, decoder.flush());
  st.generation_seconds = seconds_since(t0);
  return st;
}

}  // namespace ck::app
