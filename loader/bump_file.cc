#include "loader/bump_file.h"

#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "loader/byte_reader.h"
#include "loader/sha256.h"
#include "loader/vocab_reader.h"

namespace ck {

namespace {

std::string hex_offset(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// The fields the header repeats from the metadata must agree with it.
void check_header_matches(const ByteReader& r, const BumpHeader& h, const ModelConfig& c) {
  const BumpHeader want = make_bump_header(c);
  struct Field {
    const char* name;
    uint64_t offset, have, want;
  };
  const Field fields[] = {
      {"num_layers", 0x10, h.num_layers, want.num_layers},
      {"vocab_size", 0x14, h.vocab_size, want.vocab_size},
      {"embed_dim", 0x18, h.embed_dim, want.embed_dim},
      {"context_len", 0x1C, h.context_len, want.context_len},
      {"num_heads", 0x20, h.num_heads, want.num_heads},
      {"head_dim", 0x24, h.head_dim, want.head_dim},
      {"aligned_embed_dim", 0x28, h.aligned_embed_dim, want.aligned_embed_dim},
      {"aligned_head_dim", 0x30, h.aligned_head_dim, want.aligned_head_dim},
      {"aligned_context", 0x38, h.aligned_context, want.aligned_context},
  };
  for (const Field& f : fields) {
    if (f.have != f.want) {
      r.fail_at(f.offset, std::string("header ") + f.name + " is " + std::to_string(f.have) +
                              " but the metadata implies " + std::to_string(f.want));
    }
  }
}

// The per-layer slot order of LayerView (must match LayerSlot).
constexpr TensorView LayerView::*kLayerFields[kLayerSlots] = {
    &LayerView::attn_norm, &LayerView::ffn_norm, &LayerView::wq, &LayerView::bq, &LayerView::wk,
    &LayerView::bk,        &LayerView::wv,       &LayerView::bv, &LayerView::wo, &LayerView::bo,
    &LayerView::w_gate_up, &LayerView::b1,       &LayerView::w_down, &LayerView::b2,
    &LayerView::q_norm,    &LayerView::k_norm,   &LayerView::post_attn_norm, &LayerView::post_ffn_norm,
};

}  // namespace

BumpFile BumpFile::open(const std::filesystem::path& path, BumpOpenOptions options) {
  MappedFile file = MappedFile::open(path);
  BumpFile b = parse(file.bytes(), path.string(), options);
  b.file_ = std::move(file);  // the mapping's address survives the move
  return b;
}

BumpFile BumpFile::parse(std::span<const uint8_t> bytes, std::string source, BumpOpenOptions options) {
  BumpFile b;
  b.bytes_ = bytes;
  b.source_ = std::move(source);
  ByteReader r(bytes, b.source_);

  if (bytes.size() < kBumpDTypeTableOffset + 4) {
    throw std::runtime_error(b.source_ + ": file is " + std::to_string(bytes.size()) +
                             " bytes, too small for the 128-byte bump header and dtype table");
  }
  std::memcpy(&b.header_, bytes.data(), sizeof b.header_);
  const BumpHeader& h = b.header_;
  if (std::memcmp(h.magic, kBumpMagic, sizeof h.magic) != 0) {
    r.fail_at(0, "bad magic: expected \"BUMPWGT3\" (not a bump file)");
  }
  if (h.version != kBumpVersion) {
    r.fail_at(0x08, "unsupported bump version " + std::to_string(h.version) + " (expected " +
                        std::to_string(kBumpVersion) + ")");
  }
  if (h.model_type != kBumpModelType) {
    r.fail_at(0x0C, "unsupported model_type " + std::to_string(h.model_type) + " (expected 1)");
  }

  // The extension section: after the dtype table, aligned, ending the file.
  uint64_t ext_end = 0;
  if (h.ext_offset < kBumpDTypeTableOffset + 4 || h.ext_offset % kBumpTensorAlignment != 0 ||
      __builtin_add_overflow(h.ext_offset, h.ext_size, &ext_end) || ext_end != bytes.size()) {
    r.fail_at(0x60, "extension section [" + std::to_string(h.ext_offset) + ", +" + std::to_string(h.ext_size) +
                        ") must be 64-byte aligned, after the dtype table, and end at the end of the file (" +
                        std::to_string(bytes.size()) + " bytes): truncated or corrupt file");
  }
  ByteReader ext(bytes.subspan(h.ext_offset), b.source_, h.ext_offset);
  auto magic = ext.take(8, "extension magic");
  if (std::memcmp(magic.data(), kBumpMetaMagic, 8) != 0) {
    ext.fail_at(h.ext_offset, "bad extension magic: expected \"CKMETA01\"");
  }
  const uint64_t n_kv = ext.read<uint64_t>("extension metadata count");
  b.metadata_ = read_metadata(ext, n_kv, false);
  if (ext.remaining() != 0) {
    ext.fail(std::to_string(ext.remaining()) + " unexpected bytes after the extension metadata");
  }
  b.config_ = config_from_metadata(b.metadata_, b.source_);
  check_header_matches(r, h, b.config_);

  // The dtype table, then every slot at the next 64-byte boundary.
  const std::vector<SlotSpec> specs = bump_slots(b.config_);
  ByteReader table(bytes.subspan(0, h.ext_offset), b.source_);
  table.take(kBumpDTypeTableOffset, "header");
  const uint32_t count = table.read<uint32_t>("dtype table count");
  if (count != specs.size()) {
    table.fail_at(kBumpDTypeTableOffset, "dtype table count " + std::to_string(count) + ", expected " +
                                             std::to_string(specs.size()) + " slots for " +
                                             std::to_string(b.config_.n_layers) + " layers");
  }
  auto codes = table.take(count, "dtype table");
  uint64_t pos = kBumpDTypeTableOffset + 4 + count;
  b.slots_.reserve(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    const SlotSpec& s = specs[i];
    const uint64_t code_offset = kBumpDTypeTableOffset + 4 + i;
    const auto dtype = dtype_from_code(codes[i]);
    if (!dtype || !traits(*dtype).native) {
      r.fail_at(code_offset, "slot " + std::to_string(i) + " (" + s.name + ") has dtype code " +
                                 std::to_string(codes[i]) + (dtype ? " (" + std::string(traits(*dtype).name) + ")" : "") +
                                 ", expected a native type (" + native_dtype_names() + ")");
    }
    if (s.kind != SlotKind::Matrix && *dtype != DType::F32) {
      r.fail_at(code_offset, "slot " + std::to_string(i) + " (" + s.name + ") is a vector and must be F32, not " +
                                 std::string(traits(*dtype).name));
    }
    const DTypeTraits& tr = traits(*dtype);
    if (s.cols % tr.block_size != 0) {
      r.fail_at(code_offset, "slot " + std::to_string(i) + " (" + s.name + ") row length " + std::to_string(s.cols) +
                                 " is not a multiple of the " + std::string(tr.name) + " block size");
    }
    pos = align_up(pos, kBumpTensorAlignment);
    const uint64_t nbytes = static_cast<uint64_t>(s.rows) * row_bytes(tr, s.cols);
    if (pos > h.ext_offset || nbytes > h.ext_offset - pos) {
      r.fail_at(pos, "tensor " + s.name + " (" + std::to_string(nbytes) + " bytes at " + hex_offset(pos) +
                         ") runs past the extension section at " + hex_offset(h.ext_offset) + ": truncated or corrupt file");
    }
    b.slots_.push_back({s.name, pos, TensorView{*dtype, bytes.data() + pos, s.rows, s.cols, static_cast<size_t>(nbytes)}});
    pos += nbytes;
  }
  if (align_up(pos, kBumpTensorAlignment) != h.ext_offset) {
    r.fail_at(0x60, "extension section at " + hex_offset(h.ext_offset) + ", expected right after the tensors at " +
                        hex_offset(align_up(pos, kBumpTensorAlignment)));
  }

  b.layers_.resize(b.config_.n_layers);
  for (int l = 0; l < b.config_.n_layers; ++l) {
    for (int k = 0; k < kLayerSlots; ++k) b.layers_[l].*kLayerFields[k] = b.slots_[2 + l * kLayerSlots + k].view;
  }
  if (options.verify) b.verify();
  return b;
}

std::optional<TensorView> BumpFile::find(std::string_view gguf_name) const {
  // Which half of a stacked gate/up slot the name means, if any.
  constexpr std::string_view kGate = ".ffn_gate.weight", kUp = ".ffn_up.weight";
  int half = -1;
  std::string slot_name(gguf_name);
  if (gguf_name.ends_with(kGate) || gguf_name.ends_with(kUp)) {
    half = gguf_name.ends_with(kGate) ? 0 : 1;
    slot_name = std::string(gguf_name.substr(0, gguf_name.rfind(".ffn_"))) + ".ffn_gate_up.weight";
  }
  for (const Slot& s : slots_) {
    if (s.name != slot_name || s.view.empty()) continue;
    if (half < 0) return s.view;
    TensorView v = s.view;
    v.rows /= 2;
    v.bytes /= 2;
    v.data = static_cast<const uint8_t*>(v.data) + half * v.bytes;
    return v;
  }
  return std::nullopt;
}

tok::VocabData BumpFile::vocab() const { return vocab_from_metadata(metadata_, source_); }

size_t BumpFile::weight_bytes() const {
  size_t total = 0;
  for (const Slot& s : slots_) total += s.view.bytes;
  return total;
}

void BumpFile::verify() const {
  const Sha256Digest got = sha256(bytes_.subspan(kBumpHeaderSize));
  if (std::memcmp(got.data(), header_.sha256, got.size()) != 0) {
    throw std::runtime_error(source_ + ": SHA-256 mismatch: the header (byte 0x40) says " +
                             to_hex(header_.sha256) + " but the payload hashes to " + to_hex(got) +
                             ": the file was changed or damaged after it was written");
  }
}

}  // namespace ck
