// The bump format's fixed parts, shared by the writer and the loader: the
// 128-byte header and the ordered list of tensor slots a config implies.
// docs/bump-format.md describes the bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "loader/model_config.h"

namespace ck {

inline constexpr char kBumpMagic[8] = {'B', 'U', 'M', 'P', 'W', 'G', 'T', '3'};
inline constexpr uint32_t kBumpVersion = 4;  // 4: Q/K norm, post-norm and rope_freqs slots
inline constexpr uint32_t kBumpModelType = 1;  // decoder-only llama family (llama, qwen2, qwen3, gemma3, phi3)
inline constexpr size_t kBumpHeaderSize = 128;
inline constexpr size_t kBumpDTypeTableOffset = 0x80;
inline constexpr size_t kBumpTensorAlignment = 64;
inline constexpr char kBumpMetaMagic[8] = {'C', 'K', 'M', 'E', 'T', 'A', '0', '1'};

// The header exactly as stored (little-endian, no padding).
struct BumpHeader {
  char magic[8];
  uint32_t version;
  uint32_t model_type;
  uint32_t num_layers;
  uint32_t vocab_size;
  uint32_t embed_dim;
  uint32_t context_len;
  uint32_t num_heads;
  uint32_t head_dim;
  uint64_t aligned_embed_dim;  // rounded up to 16 floats (64 bytes)
  uint64_t aligned_head_dim;
  uint64_t aligned_context;
  uint8_t sha256[32];  // of every byte after the header
  uint64_t ext_offset; // the CKMETA01 extension section (seed's reserved bytes)
  uint64_t ext_size;
  uint8_t reserved[16];
};
static_assert(sizeof(BumpHeader) == kBumpHeaderSize);
static_assert(offsetof(BumpHeader, version) == 0x08 && offsetof(BumpHeader, num_layers) == 0x10 &&
              offsetof(BumpHeader, head_dim) == 0x24 && offsetof(BumpHeader, aligned_embed_dim) == 0x28 &&
              offsetof(BumpHeader, aligned_context) == 0x38 && offsetof(BumpHeader, sha256) == 0x40 &&
              offsetof(BumpHeader, ext_offset) == 0x60 && offsetof(BumpHeader, ext_size) == 0x68);

// The header fields a config determines (sha256 and ext_* left zero).
BumpHeader make_bump_header(const ModelConfig& c);

inline uint64_t align_up(uint64_t n, uint64_t a) { return (n + a - 1) / a * a; }

// What a slot holds.
enum class SlotKind {
  Matrix,  // rows x cols weight matrix, any native dtype
  Vector,  // F32 vector of cols values (norm weights, biases); rows is 1
  Empty,   // zero elements: placeholder or absent bias / untied output
};

struct SlotSpec {
  std::string name;                  // GGUF-style name, e.g. "blk.3.attn_q.weight"
  SlotKind kind;
  int64_t rows;                      // 0 for Empty
  int64_t cols;
  int layer;                         // -1 for global slots
  std::vector<std::string> sources;  // GGUF tensors stacked in row order (W1: gate, up); empty for Empty
  // A slot cut from a fused tensor (phi3's attn_qkv): its one source has
  // source_rows rows, of which the slot holds rows source_row0 .. + rows.
  // source_rows 0: the sources are whole.
  int64_t source_row0 = 0;
  int64_t source_rows = 0;
  // The runtime reads the slot in parts of this many rows (ffn_gate_up:
  // gate, then up), 0: whole. A row-grouped dtype needs whole groups in
  // each part.
  int64_t part_rows = 0;
};

// Per-layer slot order: the seed's 14, then (format 4) the Q/K norms and the
// post-attention / post-FFN norms, empty where the architecture has none.
enum LayerSlot {
  kLn1, kLn2, kWq, kBq, kWk, kBk, kWv, kBv, kWo, kBo, kW1, kB1, kW2, kB2,
  kQNorm, kKNorm, kPostAttnNorm, kPostFfnNorm, kLayerSlots
};
// Global slots: 0 token embedding, 1 position placeholder, then the layers,
// then final norm, final bias, output projection, RoPE frequency divisors
// (rope_freqs, LongRoPE's long and short factors).
inline constexpr size_t kGlobalTailSlots = 6;
inline size_t output_norm_slot(const ModelConfig& c) { return 2 + kLayerSlots * static_cast<size_t>(c.n_layers); }
inline size_t bump_slot_count(const ModelConfig& c) { return output_norm_slot(c) + kGlobalTailSlots; }

std::vector<SlotSpec> bump_slots(const ModelConfig& c);

}  // namespace ck
