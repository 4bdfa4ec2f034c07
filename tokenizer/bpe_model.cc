#include "tokenizer/bpe_model.h"

#include <queue>
#include <stdexcept>
#include <string>

#include "tokenizer/byte_unicode.h"

namespace ck::tok {

namespace {

struct Symbol {
  int32_t id;  // token of the symbol's text; -1 for a byte the vocabulary lacks
  int32_t prev, next;
  bool alive;
};

struct Bigram {
  int32_t rank;
  int32_t left, right;
  int32_t left_id, right_id;  // a pair whose symbols changed since is stale
};

// Lowest rank first; among equal ranks the leftmost pair (llama.cpp's order).
struct BigramOrder {
  bool operator()(const Bigram& a, const Bigram& b) const {
    return a.rank > b.rank || (a.rank == b.rank && a.left > b.left);
  }
};

}  // namespace

BpeModel::BpeModel(const VocabData& vocab, const TokenIndex& index)
    : index_(index), pretokenizer_(vocab.pre), merges_(vocab.merges.size()) {
  for (size_t i = 0; i < vocab.merges.size(); ++i) {
    const std::string& line = vocab.merges[i];
    // Split at the first space after the first character, as llama.cpp does.
    const size_t space = line.find(' ', 1);
    auto fail = [&](const std::string& why) {
      return std::runtime_error("tokenizer.ggml.merges[" + std::to_string(i) + "] = '" + line + "': " + why);
    };
    if (space == std::string::npos) throw fail("expected two tokens separated by a space");
    const std::string_view left(line.data(), space);
    const std::string_view right(line.data() + space + 1, line.size() - space - 1);
    const int32_t left_id = index_.find(left), right_id = index_.find(right);
    if (left_id < 0) throw fail("'" + std::string(left) + "' is not in the vocabulary");
    if (right_id < 0) throw fail("'" + std::string(right) + "' is not in the vocabulary");
    const int32_t result = index_.find(std::string(left) + std::string(right));
    if (result < 0) throw fail("the merged token is not in the vocabulary");
    merges_.insert(left_id, right_id, {static_cast<int32_t>(i), result});
  }
  for (int b = 0; b < 256; ++b) {
    std::string spelled;
    append_byte_level(std::string_view(reinterpret_cast<const char*>(&b), 1), spelled);
    byte_tokens_[b] = index_.find(spelled);
  }
}

void BpeModel::encode(std::string_view text, std::vector<int32_t>& out) const {
  std::vector<std::string_view> words;
  pretokenizer_.split(text, words);
  std::string spelled;
  for (std::string_view word : words) {
    if (pretokenizer_.ignore_merges()) {
      spelled.clear();
      append_byte_level(word, spelled);
      if (const int32_t id = index_.find(spelled); id >= 0) {
        out.push_back(id);
        continue;
      }
    }
    encode_word(word, out);
  }
}

void BpeModel::encode_word(std::string_view word, std::vector<int32_t>& out) const {
  std::vector<Symbol> symbols(word.size());
  for (size_t i = 0; i < word.size(); ++i) {
    symbols[i] = {byte_tokens_[static_cast<uint8_t>(word[i])], static_cast<int32_t>(i) - 1,
                  i + 1 == word.size() ? -1 : static_cast<int32_t>(i) + 1, true};
  }
  std::priority_queue<Bigram, std::vector<Bigram>, BigramOrder> queue;
  auto try_add = [&](int32_t left, int32_t right) {
    if (left < 0 || right < 0) return;
    const int32_t left_id = symbols[left].id, right_id = symbols[right].id;
    if (left_id < 0 || right_id < 0) return;
    if (const auto* merge = merges_.find(left_id, right_id)) queue.push({merge->rank, left, right, left_id, right_id});
  };
  for (int32_t i = 1; i < static_cast<int32_t>(symbols.size()); ++i) try_add(i - 1, i);

  while (!queue.empty()) {
    const Bigram top = queue.top();
    queue.pop();
    Symbol& left = symbols[top.left];
    Symbol& right = symbols[top.right];
    if (!left.alive || !right.alive || left.id != top.left_id || right.id != top.right_id) continue;
    left.id = merges_.find(top.left_id, top.right_id)->result;
    right.alive = false;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = top.left;
    try_add(left.prev, top.left);
    try_add(top.left, left.next);
  }

  // A byte the vocabulary cannot spell (SmolLM2 lacks 0xFF, for one) is
  // dropped, as llama.cpp and Hugging Face tokenizers (no unk_token) do:
  // the unknown token of byte-level vocabularies is often also end-of-text.
  for (int32_t i = 0; i != -1; i = symbols[i].next) {
    if (symbols[i].id >= 0) out.push_back(symbols[i].id);
  }
}

}  // namespace ck::tok
