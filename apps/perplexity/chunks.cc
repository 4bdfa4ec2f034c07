#include "apps/perplexity/chunks.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ck::app {

ChunkPlan plan_chunks(size_t n_tokens, int n_ctx, int max_chunks) {
  if (n_ctx < 4) throw std::invalid_argument("context size -c must be at least 4, got " + std::to_string(n_ctx));
  if (n_tokens < 2 * static_cast<size_t>(n_ctx)) {
    throw std::runtime_error("the text tokenizes to only " + std::to_string(n_tokens) + " tokens; a context of " +
                             std::to_string(n_ctx) + " needs at least " + std::to_string(2 * n_ctx));
  }
  ChunkPlan plan;
  plan.n_ctx = n_ctx;
  plan.first = n_ctx / 2;
  const size_t n_max = n_tokens / static_cast<size_t>(n_ctx);
  plan.n_chunk = static_cast<int>(max_chunks < 0 ? n_max : std::min<size_t>(n_max, static_cast<size_t>(max_chunks)));
  if (plan.n_chunk == 0) throw std::invalid_argument("--chunks 0 leaves nothing to evaluate");
  return plan;
}

std::vector<int32_t> chunk_input(std::span<const int32_t> tokens, const ChunkPlan& plan, int i, int32_t bos) {
  const size_t start = static_cast<size_t>(i) * plan.n_ctx;
  std::vector<int32_t> input(tokens.begin() + start, tokens.begin() + start + plan.n_ctx);
  if (bos >= 0) input[0] = bos;
  return input;
}

void evaluate_chunks(Session& session, std::span<const int32_t> tokens, const ChunkPlan& plan, int32_t bos,
                     int n_vocab, const std::function<void(const ScoredChunk&)>& score) {
  if (static_cast<size_t>(plan.n_chunk) * plan.n_ctx > tokens.size()) {
    throw std::logic_error("evaluate_chunks: the plan needs more tokens than given");
  }
  std::vector<float> logits;
  for (int i = 0; i < plan.n_chunk; ++i) {
    const std::vector<int32_t> input = chunk_input(tokens, plan, i, bos);
    session.reset();
    session.eval_all(input, logits);
    const size_t row = static_cast<size_t>(n_vocab);
    if (logits.size() != static_cast<size_t>(plan.n_ctx) * row) {
      throw std::runtime_error("eval_all returned " + std::to_string(logits.size()) + " logits, expected " +
                               std::to_string(static_cast<size_t>(plan.n_ctx) * row));
    }
    const size_t start = static_cast<size_t>(i) * plan.n_ctx;
    score(ScoredChunk{i, std::span<const float>(logits).subspan(plan.first * row, plan.n_scored() * row),
                      tokens.subspan(start + plan.first + 1, plan.n_scored()), n_vocab});
  }
}

}  // namespace ck::app
