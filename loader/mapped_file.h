// A read-only memory map of a whole file (RAII). The loader hands out views
// into it; nothing is copied, and the OS pages weights in on demand.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace ck {

class MappedFile {
 public:
  // Throws std::runtime_error naming the path when it cannot be opened or mapped.
  static MappedFile open(const std::filesystem::path& path);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  const std::filesystem::path& path() const { return path_; }

  // Tells the kernel the pages of [offset, offset + size) are no longer
  // needed, so a pass over a large file does not keep it all resident.
  void drop_pages(uint64_t offset, uint64_t size) const;

 private:
  void release();

  std::filesystem::path path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace ck
