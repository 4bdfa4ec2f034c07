// A bounds-checked little-endian cursor over bytes that belong to a file.
// Every read is checked against the end before it happens, and every error
// names the file and the absolute byte offset, so corrupt or hostile input
// always ends in a std::runtime_error, never in a read past the end.
#pragma once
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace ck {

static_assert(std::endian::native == std::endian::little,
              "GGUF and bump files are little-endian; a big-endian host would need byte swaps");

class ByteReader {
 public:
  // `base_offset` is where `bytes` start in the file, for messages only.
  ByteReader(std::span<const uint8_t> bytes, std::string_view source, uint64_t base_offset = 0)
      : bytes_(bytes), source_(source), base_(base_offset) {}

  size_t pos() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }
  uint64_t file_offset() const { return base_ + pos_; }
  const std::string& source() const { return source_; }

  template <class T>
  T read(std::string_view what) {
    static_assert(std::is_trivially_copyable_v<T>);
    need(sizeof(T), what);
    T value;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }

  std::span<const uint8_t> take(uint64_t n, std::string_view what) {
    need(n, what);
    auto out = bytes_.subspan(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return out;
  }

  // Fails unless `n` more bytes are there.
  void need(uint64_t n, std::string_view what) const {
    if (n > remaining()) {
      fail(std::string(what) + ": needs " + std::to_string(n) + " bytes but only " +
           std::to_string(remaining()) + " remain before the end of the data");
    }
  }

  [[noreturn]] void fail(std::string_view message) const { fail_at(file_offset(), message); }
  [[noreturn]] void fail_at(uint64_t offset, std::string_view message) const {
    throw std::runtime_error(source_ + ": byte " + std::to_string(offset) + ": " + std::string(message));
  }

 private:
  std::span<const uint8_t> bytes_;
  std::string source_;
  uint64_t base_;
  size_t pos_ = 0;
};

}  // namespace ck
