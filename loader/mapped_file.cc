#include "loader/mapped_file.h"

#include "kernels/huge_pages.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <utility>

namespace ck {

namespace {
[[noreturn]] void fail(const std::filesystem::path& path, const char* what) {
  throw std::runtime_error(path.string() + ": " + what + ": " + std::strerror(errno));
}

// The file read-only at an address that is a multiple of 2 MiB, asked for
// in huge pages: where the kernel keeps a file's cache in 2 MiB folios it
// can then map each with one TLB entry (a 2 MiB-aligned part of the file
// needs a 2 MiB-aligned address). On Zen 3 under KVM, one thread read Q8_0
// weights 14 % faster from 2 MiB pages than from 4 KiB ones
// (docs/kernels.md, session 27). Where the kernel cannot, a plain mapping.
void* map_huge_aligned(int fd, size_t size) {
  void* p = MAP_FAILED;
  void* span = ::mmap(nullptr, size + kHugePageBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (span != MAP_FAILED) {
    auto* base = static_cast<uint8_t*>(span);
    auto* aligned = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(base) + kHugePageBytes - 1) /
                                               kHugePageBytes * kHugePageBytes);
    p = ::mmap(aligned, size, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
      ::munmap(span, size + kHugePageBytes);
    } else {
      // The reservation's parts before and after the file.
      if (aligned > base) ::munmap(base, static_cast<size_t>(aligned - base));
      const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
      uint8_t* end = aligned + (size + page - 1) / page * page;
      if (end < base + size + kHugePageBytes) ::munmap(end, static_cast<size_t>(base + size + kHugePageBytes - end));
    }
  }
  if (p == MAP_FAILED) return ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
#ifdef MADV_HUGEPAGE
  ::madvise(p, size, MADV_HUGEPAGE);  // advice only: an error changes nothing
#endif
  return p;
}
}  // namespace

MappedFile MappedFile::open(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot open");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    errno = err;
    fail(path, "cannot stat");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error(path.string() + ": not a regular file");
  }
  MappedFile file;
  file.path_ = path;
  file.size_ = static_cast<size_t>(st.st_size);
  // mmap of length 0 is an error; an empty file maps to an empty view.
  if (file.size_ > 0) {
    void* p = map_huge_aligned(fd, file.size_);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      errno = err;
      fail(path, "cannot mmap");
    }
    file.data_ = static_cast<const uint8_t*>(p);
  }
  ::close(fd);
  return file;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() { release(); }

void MappedFile::drop_pages(uint64_t offset, uint64_t size) const {
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t begin = (offset + page - 1) / page * page;  // whole pages inside the range only
  const uint64_t end = std::min<uint64_t>(offset + size, size_) / page * page;
  if (data_ != nullptr && begin < end) {
    ::madvise(const_cast<uint8_t*>(data_) + begin, end - begin, MADV_DONTNEED);
  }
}

void MappedFile::release() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

MappingPages mapping_pages(const void* address) {
  const auto at = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  MappingPages pages;
  bool inside = false;
  std::string line;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0, end = 0;
    // A mapping's first line: "begin-end perms offset dev inode path", in hex.
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " ", &begin, &end) == 2) {
      if (inside) break;
      inside = begin <= at && at < end;
      continue;
    }
    if (!inside) continue;
    unsigned long long kib = 0;
    if (std::sscanf(line.c_str(), "Rss: %llu kB", &kib) == 1) pages.resident_bytes = kib * 1024;
    if (std::sscanf(line.c_str(), "FilePmdMapped: %llu kB", &kib) == 1) pages.huge_bytes = kib * 1024;
  }
  return pages;
}

}  // namespace ck
