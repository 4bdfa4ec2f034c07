// Writes a file so that it appears complete or not at all: the bytes go to a
// uniquely named temporary file in the target's folder, which commit()
// fsyncs, drops from the page cache and renames over the target. Two
// processes writing the same target at once both succeed and one good file
// remains; a failure or crash leaves no file under the target name.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

namespace ck {

class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path target);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();  // removes the temporary file unless committed

  void write(std::span<const uint8_t> bytes);  // appends (buffered)
  void write_zeros(uint64_t n);
  void write_at(uint64_t offset, std::span<const uint8_t> bytes);  // overwrites already-written bytes
  uint64_t size() const { return size_; }
  const std::filesystem::path& temp_path() const { return temp_; }
  void commit();

 private:
  void flush();
  [[noreturn]] void fail(const char* what) const;

  std::filesystem::path target_, temp_;
  int fd_ = -1;
  uint64_t size_ = 0;
  std::vector<uint8_t> buffer_;
  bool committed_ = false;
};

}  // namespace ck
