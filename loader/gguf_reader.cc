#include "loader/gguf_reader.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "loader/byte_reader.h"
#include "loader/ggml_type_name.h"

namespace ck {

namespace {

constexpr int kMaxDims = 4;
constexpr uint64_t kDefaultAlignment = 32;

}  // namespace

std::string shape_string(const std::vector<int64_t>& ne) {
  std::string s = "[";
  for (size_t i = 0; i < ne.size(); ++i) s += (i ? ", " : "") + std::to_string(ne[i]);
  return s + "]";
}

int64_t GgufTensorInfo::rows() const {
  int64_t r = 1;
  for (size_t i = 1; i < ne.size(); ++i) r *= ne[i];
  return r;
}

GgufFile GgufFile::open(const std::filesystem::path& path) {
  MappedFile file = MappedFile::open(path);
  GgufFile g = parse(file.bytes(), path.string());
  g.file_ = std::move(file);  // the mapping's address survives the move
  return g;
}

const GgufTensorInfo* GgufFile::find(std::string_view name) const {
  auto it = index_.find(std::string(name));
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

GgufFile GgufFile::parse(std::span<const uint8_t> bytes, std::string source) {
  GgufFile g;
  g.bytes_ = bytes;
  g.source_ = std::move(source);
  ByteReader r(bytes, g.source_);

  auto magic = r.take(4, "GGUF magic");
  if (std::memcmp(magic.data(), "GGUF", 4) != 0) {
    r.fail_at(0, "bad magic: expected \"GGUF\" (not a GGUF file)");
  }
  g.version_ = r.read<uint32_t>("GGUF version");
  if (g.version_ < 1 || g.version_ > 3) {
    r.fail_at(4, "unsupported GGUF version " + std::to_string(g.version_) + " (expected 1, 2 or 3)");
  }
  const bool v1 = g.version_ == 1;
  auto count = [&](std::string_view what) -> uint64_t { return v1 ? r.read<uint32_t>(what) : r.read<uint64_t>(what); };
  const uint64_t n_tensors_offset = r.file_offset();
  const uint64_t n_tensors = count("tensor count");
  const uint64_t n_kv = count("metadata count");

  g.metadata_ = read_metadata(r, n_kv, v1);

  if (auto a = g.metadata_.get_u32("general.alignment")) {
    if (*a == 0 || (*a & (*a - 1)) != 0) {
      throw std::runtime_error(g.source_ + ": metadata key 'general.alignment' is " + std::to_string(*a) +
                               ", expected a power of two");
    }
    g.alignment_ = *a;
  } else {
    g.alignment_ = kDefaultAlignment;
  }

  // Smallest tensor info: name length, empty name, n_dims, one dim, type, offset.
  const size_t cw = v1 ? 4 : 8;
  const uint64_t min_info = cw + 4 + cw + 4 + 8;
  if (n_tensors > r.remaining() / min_info) {
    r.fail_at(n_tensors_offset, "tensor count " + std::to_string(n_tensors) + " cannot fit in the " +
                                    std::to_string(r.remaining()) + " bytes left");
  }
  std::vector<uint64_t> relative_offsets;
  std::vector<uint64_t> info_offsets;
  g.tensors_.reserve(n_tensors);
  for (uint64_t i = 0; i < n_tensors; ++i) {
    const uint64_t info_offset = r.file_offset();
    const uint64_t name_len = count("tensor name length");
    auto name = r.take(name_len, "tensor name of length " + std::to_string(name_len));
    GgufTensorInfo t;
    t.name.assign(reinterpret_cast<const char*>(name.data()), name.size());
    const std::string what = "tensor '" + t.name + "'";
    const uint32_t n_dims = r.read<uint32_t>("tensor n_dims");
    if (n_dims < 1 || n_dims > kMaxDims) {
      r.fail(what + " has " + std::to_string(n_dims) + " dimensions, expected 1 to " + std::to_string(kMaxDims));
    }
    int64_t n_elements = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      const uint64_t ne = count("tensor dimension");
      if (ne > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
          __builtin_mul_overflow(n_elements, static_cast<int64_t>(ne), &n_elements)) {
        r.fail(what + " dimensions overflow 64 bits (dimension " + std::to_string(d) + " = " + std::to_string(ne) + ")");
      }
      t.ne.push_back(static_cast<int64_t>(ne));
    }
    const uint64_t type_offset = r.file_offset();
    const uint32_t ggml_type = r.read<uint32_t>("tensor type");
    const auto dtype = dtype_from_ggml(ggml_type);
    if (!dtype) {
      const std::string name = ggml_type_name(ggml_type);
      r.fail_at(type_offset, what + (name.empty() ? " has ggml type " + std::to_string(ggml_type) + ", which is unknown"
                                                  : " has type " + name + " (ggml type " + std::to_string(ggml_type) +
                                                        "), which ck does not support") +
                                 "; ck reads " + readable_ggml_type_names());
    }
    t.type = *dtype;
    const DTypeTraits& tr = traits(t.type);
    if (t.ne[0] % tr.block_size != 0) {
      r.fail_at(type_offset, what + " row length " + std::to_string(t.ne[0]) + " is not a multiple of the " +
                                 std::string(tr.name) + " block size " + std::to_string(tr.block_size));
    }
    const uint64_t blocks = static_cast<uint64_t>(n_elements) / tr.block_size;
    if (__builtin_mul_overflow(blocks, static_cast<uint64_t>(tr.block_bytes), &t.nbytes)) {
      r.fail_at(type_offset, what + " byte size overflows 64 bits");
    }
    const uint64_t rel_offset_at = r.file_offset();
    const uint64_t rel = r.read<uint64_t>("tensor data offset");
    if (rel % g.alignment_ != 0) {
      r.fail_at(rel_offset_at, what + " data offset " + std::to_string(rel) + " is not a multiple of the alignment " +
                                   std::to_string(g.alignment_));
    }
    if (g.index_.count(t.name)) r.fail_at(info_offset, "duplicate tensor name '" + t.name + "'");
    g.index_.emplace(t.name, g.tensors_.size());
    g.tensors_.push_back(std::move(t));
    relative_offsets.push_back(rel);
    info_offsets.push_back(rel_offset_at);
  }

  const uint64_t header_end = r.file_offset();
  g.data_offset_ = (header_end + g.alignment_ - 1) / g.alignment_ * g.alignment_;
  if (g.data_offset_ > bytes.size() && n_tensors > 0) {
    r.fail_at(header_end, "data section would start at byte " + std::to_string(g.data_offset_) +
                              ", past the end of the file (" + std::to_string(bytes.size()) + " bytes)");
  }

  // Every tensor inside the file, and no two sharing bytes.
  for (size_t i = 0; i < g.tensors_.size(); ++i) {
    GgufTensorInfo& t = g.tensors_[i];
    uint64_t end = 0;
    if (__builtin_add_overflow(g.data_offset_, relative_offsets[i], &t.offset) ||
        __builtin_add_overflow(t.offset, t.nbytes, &end) || end > bytes.size()) {
      r.fail_at(info_offsets[i], "tensor '" + t.name + "' " + shape_string(t.ne) + " data (offset " +
                                     std::to_string(relative_offsets[i]) + " + " + std::to_string(t.nbytes) +
                                     " bytes after the data section at " + std::to_string(g.data_offset_) +
                                     ") lies outside the file (" + std::to_string(bytes.size()) + " bytes)");
    }
  }
  std::vector<size_t> order(g.tensors_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return g.tensors_[a].offset < g.tensors_[b].offset; });
  for (size_t k = 1; k < order.size(); ++k) {
    const GgufTensorInfo& prev = g.tensors_[order[k - 1]];
    const GgufTensorInfo& cur = g.tensors_[order[k]];
    if (prev.offset + prev.nbytes > cur.offset) {
      r.fail_at(info_offsets[order[k]], "tensor '" + cur.name + "' data overlaps tensor '" + prev.name + "'");
    }
  }
  return g;
}

}  // namespace ck
