// The tokens a sampler still considers, with their logits: what every stage
// of the sampler chain (runtime/sampler.h) reads and narrows down.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ck::sampling {

struct Candidate {
  int32_t id;
  float logit;
  float p;  // softmax of the logits; valid after Candidates::softmax()
};

class Candidates {
 public:
  // All of the vocabulary, index = token id, unsorted.
  void assign(std::span<const float> logits);
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  Candidate& operator[](size_t i) { return items_[i]; }
  const Candidate& operator[](size_t i) const { return items_[i]; }
  std::vector<Candidate>& items() { return items_; }
  const std::vector<Candidate>& items() const { return items_; }
  // True while items_[i].id == i for the whole vocabulary (no stage has
  // sorted or dropped anything): a stage can then find a token by its id.
  bool indexed_by_id() const { return indexed_; }

  // Most likely first; equal logits: the lower id first (deterministic).
  void sort();
  // Sorts only the first k (k <= size()) and drops the rest.
  void keep_top(size_t k);
  // Drops all but the first n (after sort()).
  void truncate(size_t n);
  // Drops the candidates whose logit is -inf (a bias or a constraint removed them).
  void drop_impossible();
  // Sorts, then sets p to the softmax of the logits.
  void softmax();
  // For a stage that edits items() itself: logits changed in place (the
  // order by likelihood may be lost, positions stay), or items moved.
  void logits_changed() { sorted_ = false; }
  void items_moved() { sorted_ = false; indexed_ = false; }

 private:
  std::vector<Candidate> items_;
  bool sorted_ = false;
  bool indexed_ = false;
};

}  // namespace ck::sampling
