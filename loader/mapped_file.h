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

// How the pages of the mapping that holds `address` stand now: its
// resident bytes and the part of them mapped in 2 MiB pages, from
// /proc/self/smaps (zeros where the kernel does not say). Decode reads a
// model file's weights near the probe's speed only where they are in 2 MiB
// pages, and a page cache that holds some of the file in 4 KiB folios maps
// them so for as long as it keeps them (docs/kernels.md, "Session 52").
struct MappingPages {
  uint64_t resident_bytes = 0;
  uint64_t huge_bytes = 0;
};
MappingPages mapping_pages(const void* address);

}  // namespace ck
