#include "tokenizer/spm_model.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "tokenizer/utf8.h"

namespace ck::tok {

namespace {

struct Symbol {
  uint32_t begin;  // byte range [begin, begin + len) of the text
  uint32_t len;    // 0 once merged into its left neighbour
  int32_t prev, next;
};

struct Bigram {
  float score;
  int32_t left, right;
  uint32_t len;  // of the merged text; a different length means the entry is stale
};

// Highest score first; among equal scores the leftmost pair (llama.cpp's order).
struct BigramOrder {
  bool operator()(const Bigram& a, const Bigram& b) const {
    return a.score < b.score || (a.score == b.score && a.left > b.left);
  }
};

}  // namespace

struct SpmModel::Scratch {
  std::vector<Symbol> symbols;
  std::vector<Bigram> queue;  // a binary heap ordered by BigramOrder
};

SpmModel::SpmModel(const VocabData& vocab, const TokenIndex& index) : vocab_(vocab), index_(index) {
  for (int b = 0; b < 256; ++b) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "<0x%02X>", b);
    int32_t id = index_.find(hex);
    if (id < 0) id = index_.find(std::string(1, static_cast<char>(b)));
    if (id < 0) id = vocab_.unk_id;
    byte_tokens_[b] = id;
  }
  isolated_.fill(true);
  for (const std::string& token : vocab_.tokens) {
    if (token.size() < 2) continue;
    for (char c : token) {
      if (static_cast<uint8_t>(c) < 128) isolated_[static_cast<uint8_t>(c)] = false;
    }
  }
}

void SpmModel::append_bytes(std::string_view piece, std::vector<int32_t>& out) const {
  for (char c : piece) {
    const int32_t id = byte_tokens_[static_cast<uint8_t>(c)];
    if (id < 0) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "<0x%02X>", static_cast<uint8_t>(c));
      throw std::runtime_error(std::string("tokenizer: byte ") + hex +
                               " is not in the vocabulary and there is no unknown token to stand for it");
    }
    out.push_back(id);
  }
}

void SpmModel::encode(std::string_view text, std::vector<int32_t>& out) const {
  Scratch scratch;
  size_t begin = 0;
  for (size_t pos = 0; pos < text.size(); ++pos) {
    const auto c = static_cast<uint8_t>(text[pos]);
    if (c >= 128 || !isolated_[c]) continue;
    encode_chunk(text.substr(begin, pos - begin), scratch, out);
    encode_chunk(text.substr(pos, 1), scratch, out);
    begin = pos + 1;
  }
  encode_chunk(text.substr(begin), scratch, out);
}

void SpmModel::encode_chunk(std::string_view text, Scratch& scratch, std::vector<int32_t>& out) const {
  if (text.empty()) return;
  std::vector<Symbol>& symbols = scratch.symbols;
  std::vector<Bigram>& queue = scratch.queue;
  symbols.clear();
  queue.clear();
  for (size_t pos = 0; pos < text.size();) {
    const size_t len = utf8::char_length(text.substr(pos));
    const auto index = static_cast<int32_t>(symbols.size());
    symbols.push_back({static_cast<uint32_t>(pos), static_cast<uint32_t>(len), index - 1,
                       pos + len == text.size() ? -1 : index + 1});
    pos += len;
  }

  auto try_add = [&](int32_t left, int32_t right) {
    if (left < 0 || right < 0) return;
    const uint32_t len = symbols[left].len + symbols[right].len;
    const int32_t id = index_.find(text.substr(symbols[left].begin, len));
    if (id >= 0) {
      queue.push_back({score(id), left, right, len});
      std::push_heap(queue.begin(), queue.end(), BigramOrder{});
    }
  };
  for (int32_t i = 1; i < static_cast<int32_t>(symbols.size()); ++i) try_add(i - 1, i);

  while (!queue.empty()) {
    std::pop_heap(queue.begin(), queue.end(), BigramOrder{});
    const Bigram top = queue.back();
    queue.pop_back();
    Symbol& left = symbols[top.left];
    Symbol& right = symbols[top.right];
    if (left.len == 0 || right.len == 0 || left.len + right.len != top.len) continue;
    left.len += right.len;
    right.len = 0;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = top.left;
    try_add(left.prev, top.left);
    try_add(top.left, left.next);
  }

  // Every merged symbol is a token by construction; a single character that
  // is not one is spelled with byte tokens.
  for (int32_t i = 0; i != -1; i = symbols[i].next) {
    const std::string_view piece = text.substr(symbols[i].begin, symbols[i].len);
    const int32_t id = index_.find(piece);
    if (id >= 0) {
      out.push_back(id);
    } else {
      append_bytes(piece, out);
    }
  }
}

}  // namespace ck::tok
