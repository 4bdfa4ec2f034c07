// The BPE merge ranks, looked up once per adjacent symbol pair: the hottest
// lookup of byte-level BPE, so an open-addressing table over (left, right)
// token-id pairs rather than std::unordered_map's node chains.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ck::tok {

class MergeTable {
 public:
  struct Merge {
    int32_t rank;    // position in tokenizer.ggml.merges: lower merges first
    int32_t result;  // id of the merged token
  };

  explicit MergeTable(size_t expected);

  // Keeps the first insertion of a pair (the lowest rank).
  void insert(int32_t left, int32_t right, Merge merge);
  const Merge* find(int32_t left, int32_t right) const {
    const uint64_t key = pack(left, right);
    for (size_t slot = home(key);; slot = (slot + 1) & mask_) {
      const Entry& e = entries_[slot];
      if (e.key == key) return &e.merge;
      if (e.key == kEmpty) return nullptr;
    }
  }

 private:
  struct Entry {
    uint64_t key;
    Merge merge;
  };
  static constexpr uint64_t kEmpty = ~uint64_t{0};  // ids are never negative here
  static uint64_t pack(int32_t left, int32_t right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
  }
  // Fibonacci hashing: the top bits of the product spread consecutive ids.
  size_t home(uint64_t key) const { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_); }

  std::vector<Entry> entries_;
  size_t mask_;
  int shift_;  // 64 - log2(capacity)
};

}  // namespace ck::tok
