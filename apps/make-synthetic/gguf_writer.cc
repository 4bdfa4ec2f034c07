#include "apps/make-synthetic/gguf_writer.h"

#include <stdexcept>

namespace ck {
namespace {

template <typename T>
void append(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof(v));
}

void append_string(std::string& out, const std::string& s) {
  append<uint64_t>(out, s.size());
  out += s;
}

uint64_t padded(uint64_t n, uint64_t alignment) { return (n + alignment - 1) / alignment * alignment; }

}  // namespace

uint64_t GgufTensorSpec::nbytes() const {
  int64_t rows = 1;
  for (size_t i = 1; i < ne.size(); ++i) rows *= ne[i];
  return row_bytes(traits(type), ne[0]) * static_cast<uint64_t>(rows);
}

GgufWriter::GgufWriter(const std::filesystem::path& path, const Metadata& metadata,
                       std::vector<GgufTensorSpec> tensors)
    : path_(path), tensors_(std::move(tensors)), file_(std::make_unique<AtomicFile>(path)) {
  std::string head = "GGUF";
  append<uint32_t>(head, 3);
  append<uint64_t>(head, tensors_.size());
  append<uint64_t>(head, metadata.entries().size());
  head += metadata.encode_pairs();
  uint64_t offset = 0;
  for (const GgufTensorSpec& t : tensors_) {
    if (t.ne.empty() || t.ne.size() > 4 || t.ne[0] % traits(t.type).block_size != 0) {
      throw std::runtime_error(path.string() + ": tensor '" + t.name + "': bad shape for " +
                               std::string(traits(t.type).name));
    }
    append_string(head, t.name);
    append<uint32_t>(head, static_cast<uint32_t>(t.ne.size()));
    for (int64_t n : t.ne) append<uint64_t>(head, static_cast<uint64_t>(n));
    append<uint32_t>(head, static_cast<uint32_t>(traits(t.type).ggml_type));
    append<uint64_t>(head, offset);
    offset = padded(offset + t.nbytes(), kAlignment);
  }
  file_->write({reinterpret_cast<const uint8_t*>(head.data()), head.size()});
  file_->write_zeros(padded(head.size(), kAlignment) - head.size());
}

void GgufWriter::write_tensor(std::span<const uint8_t> data) {
  if (next_ >= tensors_.size() || data.size() != tensors_[next_].nbytes()) {
    throw std::runtime_error(path_.string() + ": tensor data written out of order or with the wrong size");
  }
  file_->write(data);
  file_->write_zeros(padded(data.size(), kAlignment) - data.size());
  ++next_;
}

void GgufWriter::commit() {
  if (next_ != tensors_.size()) {
    throw std::runtime_error(path_.string() + ": only " + std::to_string(next_) + " of " +
                             std::to_string(tensors_.size()) + " tensors written");
  }
  file_->commit();
}

}  // namespace ck
