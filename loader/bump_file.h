// The bump loader: maps a .bump file read-only, validates it, and hands out
// typed views into it (no copy of weight data). docs/bump-format.md.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/dtype.h"
#include "loader/bump_layout.h"
#include "loader/mapped_file.h"
#include "loader/metadata.h"
#include "loader/model_config.h"
#include "tokenizer/vocab.h"

namespace ck {

// A tensor in the mapped file. Row r starts at data + r * row_bytes(traits(dtype), cols)
// (a row-grouped dtype, Q8_0_R16: the group of rows 16g .. 16g + 15 starts
// there for r = 16g; kernels/row_groups.h).
struct TensorView {
  DType dtype = DType::F32;
  const void* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  size_t bytes = 0;

  bool empty() const { return rows == 0; }
  const float* f32() const { return static_cast<const float*>(data); }  // for F32 vectors
};

// One transformer block. Vectors (norms, biases) are F32; an absent bias or
// norm is an empty view. w_gate_up holds the gate rows then the up rows
// (2*ffn_dim). q_norm / k_norm: (head_dim), shared by all heads.
struct LayerView {
  TensorView attn_norm, ffn_norm;
  TensorView wq, bq, wk, bk, wv, bv, wo, bo;
  TensorView w_gate_up, b1, w_down, b2;
  TensorView q_norm, k_norm, post_attn_norm, post_ffn_norm;
};

struct BumpOpenOptions {
  bool verify = false;  // also recompute the SHA-256 (reads every byte)
};

class BumpFile {
 public:
  static BumpFile open(const std::filesystem::path& path, BumpOpenOptions options = {});
  // Parses bytes the caller keeps alive for the lifetime of the result (for
  // fuzzers and tests). `source` names them in error messages.
  static BumpFile parse(std::span<const uint8_t> bytes, std::string source, BumpOpenOptions options = {});

  const std::string& source() const { return source_; }
  size_t file_size() const { return bytes_.size(); }
  // The mapping open() made; empty after parse().
  const MappedFile& mapped() const { return file_; }
  const BumpHeader& header() const { return header_; }
  const ModelConfig& config() const { return config_; }
  const Metadata& metadata() const { return metadata_; }
  tok::VocabData vocab() const;

  const TensorView& token_embd() const { return slots_[0].view; }
  const TensorView& output_norm() const { return slots_[output_norm_slot(config_)].view; }
  const TensorView& output() const {
    return config_.tied_output ? token_embd() : slots_[output_norm_slot(config_) + 2].view;
  }
  // RoPE frequency divisors, (rope_dim / 2) or empty.
  const TensorView& rope_freqs() const { return slots_[output_norm_slot(config_) + 3].view; }
  const TensorView& rope_factors_long() const { return slots_[output_norm_slot(config_) + 4].view; }
  const TensorView& rope_factors_short() const { return slots_[output_norm_slot(config_) + 5].view; }
  const std::vector<LayerView>& layers() const { return layers_; }
  size_t weight_bytes() const;  // bytes of all tensors

  // Every slot in file order with its GGUF-style name (inspection, dumps).
  struct Slot {
    std::string name;
    uint64_t offset;  // absolute, in the file
    TensorView view;
  };
  const std::vector<Slot>& slots() const { return slots_; }

  // The tensor a GGUF file would call `gguf_name` (ffn_gate / ffn_up are the
  // halves of the stacked slot); std::nullopt when absent or an empty slot.
  std::optional<TensorView> find(std::string_view gguf_name) const;

  // Recomputes the SHA-256 of everything after the header; throws when it
  // differs from the header's.
  void verify() const;

 private:
  BumpFile() = default;

  MappedFile file_;  // empty when parsed from caller-owned bytes
  std::span<const uint8_t> bytes_;
  std::string source_;
  BumpHeader header_{};
  Metadata metadata_;
  ModelConfig config_;
  std::vector<Slot> slots_;
  std::vector<LayerView> layers_;
};

}  // namespace ck
