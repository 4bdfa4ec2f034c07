#include "apps/server/slot.h"

#include <cmath>

#include "apps/common/sampling_flags.h"

namespace ck::server {

size_t common_prefix(std::span<const int32_t> a, std::span<const int32_t> b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

int Slot::start(std::shared_ptr<Task> t, const tok::Tokenizer& tokenizer, uint64_t order) {
  const GenerationRequest& r = t->request();
  const size_t keep = r.cache_prompt ? std::min(common_prefix(cached, r.prompt), r.prompt.size() - 1) : 0;
  cached.resize(keep);
  pending.assign(r.prompt.begin() + static_cast<std::ptrdiff_t>(keep), r.prompt.end());
  last_used = order;
  sampler.emplace(app::make_sampler(r.sampling, r.ignore_eos, tokenizer));
  sampler->accept_prompt(r.prompt);  // the penalties see the prompt, as in llama.cpp
  grammar.reset();
  if (r.grammar) {
    grammar = std::make_unique<GrammarConstraint>(*r.grammar, tokenizer);
    sampler->set_constraint(grammar.get());
  }
  decoder.emplace(tokenizer);
  stop = StopMatcher(r.stop);
  usage = {.prompt_tokens = static_cast<int>(r.prompt.size()), .cached_tokens = static_cast<int>(keep)};
  prompt_done = false;
  task = std::move(t);
  return static_cast<int>(keep);
}

void Ending::tell() const {
  if (error.empty()) {
    task->finish(reason, usage);
  } else {
    task->fail(error);
  }
}

std::optional<Ending> Slot::take_logits(std::span<const float> logits, const tok::Tokenizer& tokenizer) {
  prompt_done = true;
  const GenerationRequest& r = task->request();
  const int32_t token = sampler->sample(logits);
  if (tokenizer.is_eog(token)) return finish(FinishReason::Stop);
  sampler->accept(token);
  ++usage.completion_tokens;
  std::vector<TokenProbs> probs;
  if (r.logprobs) {
    // The whole distribution, sorted: the drawn token may be far down it.
    const auto dist = sampler->last_distribution(static_cast<size_t>(tokenizer.n_vocab()));
    auto logprob = [](float p) { return std::log(std::max(p, 1e-30f)); };
    TokenProbs tp{.text = tokenizer.token_to_piece(token, true), .logprob = logprob(0)};
    for (size_t i = 0; i < dist.size(); ++i) {
      if (dist[i].id == token) tp.logprob = logprob(dist[i].p);
      if (i < static_cast<size_t>(r.top_logprobs)) tp.top.emplace_back(tokenizer.token_to_piece(dist[i].id, true), logprob(dist[i].p));
    }
    probs.push_back(std::move(tp));
  }
  task->append(stop.push(decoder->push(token)), std::move(probs));
  if (stop.stopped()) return finish(FinishReason::Stop);
  if (r.max_tokens >= 0 && usage.completion_tokens >= r.max_tokens) return finish(FinishReason::Length);
  pending.assign(1, token);
  return std::nullopt;
}

Ending Slot::finish(FinishReason reason) {
  std::string rest = stop.push(decoder->flush());
  rest += stop.flush();
  if (!rest.empty()) task->append(rest, {});
  Ending e{.task = task, .reason = reason, .usage = usage};
  release();
  return e;
}

Ending Slot::fail(const std::string& error) {
  Ending e{.task = task, .error = error};
  release();
  return e;
}

void Slot::release() {
  task.reset();
  pending.clear();
  sampler.reset();
  grammar.reset();
  decoder.reset();
}

}  // namespace ck::server
