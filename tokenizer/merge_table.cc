#include "tokenizer/merge_table.h"

namespace ck::tok {

MergeTable::MergeTable(size_t expected) {
  size_t capacity = 16;
  shift_ = 60;
  while (capacity < 2 * expected) {  // load factor at most 1/2
    capacity *= 2;
    --shift_;
  }
  entries_.assign(capacity, Entry{kEmpty, {}});
  mask_ = capacity - 1;
}

void MergeTable::insert(int32_t left, int32_t right, Merge merge) {
  const uint64_t key = pack(left, right);
  for (size_t slot = home(key);; slot = (slot + 1) & mask_) {
    Entry& e = entries_[slot];
    if (e.key == key) return;
    if (e.key == kEmpty) {
      e = {key, merge};
      return;
    }
  }
}

}  // namespace ck::tok
