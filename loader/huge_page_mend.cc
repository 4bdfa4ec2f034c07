#include "loader/huge_page_mend.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <iterator>
#include <vector>

#include "kernels/huge_pages.h"
#include "loader/mapped_file.h"

namespace ck {

namespace {

// PAGEMAP_SCAN's interface (linux/fs.h from Linux 6.7; Debian 12's headers
// are 6.1): one ioctl on /proc/self/pagemap lists the address ranges whose
// pages have the asked-for properties.
struct PageRegion {
  uint64_t start, end, categories;
};
struct PagemapScanArg {
  uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
  uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
static_assert(sizeof(PagemapScanArg) == 96, "the kernel's struct pm_scan_arg");
constexpr unsigned long kPagemapScan = _IOWR('f', 16, PagemapScanArg);
constexpr uint64_t kPageIsHuge = 1 << 6;  // mapped by a PMD: a 2 MiB page

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// huge[c] = whether stretch c of the mapping at `base` is mapped in a 2 MiB
// page now; false when the kernel cannot say.
bool scan_huge(int pagemap, const uint8_t* base, std::vector<bool>& huge) {
  const auto begin = reinterpret_cast<uint64_t>(base);
  const uint64_t end = begin + huge.size() * kHugePageBytes;
  huge.assign(huge.size(), false);
  PageRegion regions[256];
  for (uint64_t at = begin; at < end;) {
    PagemapScanArg arg{};
    arg.size = sizeof arg;
    arg.start = at;
    arg.end = end;
    arg.vec = reinterpret_cast<uint64_t>(regions);
    arg.vec_len = std::size(regions);
    arg.category_mask = kPageIsHuge;
    arg.return_mask = kPageIsHuge;
    const int n = ::ioctl(pagemap, kPagemapScan, &arg);
    if (n < 0) return false;
    for (int i = 0; i < n; ++i) {
      for (uint64_t c = (regions[i].start - begin) / kHugePageBytes; c < (regions[i].end - begin) / kHugePageBytes;
           ++c) {
        huge[c] = true;
      }
    }
    if (arg.walk_end <= at) break;
    at = arg.walk_end;
  }
  return true;
}

void touch(const uint8_t* stretch) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  uint8_t sink = 0;
  for (size_t i = 0; i < kHugePageBytes; i += page) sink ^= reinterpret_cast<const volatile uint8_t*>(stretch)[i];
  asm volatile("" : : "r"(sink));
}

// Drops stretch c from this mapping and from the page cache, then reads it
// back through the mapping.
void reread(int fd, const uint8_t* base, uint64_t c) {
  auto* stretch = const_cast<uint8_t*>(base) + c * kHugePageBytes;
  ::madvise(stretch, kHugePageBytes, MADV_DONTNEED);
  ::posix_fadvise(fd, static_cast<off_t>(c * kHugePageBytes), kHugePageBytes, POSIX_FADV_DONTNEED);
  touch(stretch);
}

}  // namespace

HugePageMend mend_huge_pages(const MappedFile& file, Uncached uncached,
                             const std::function<void(uint64_t done, uint64_t total)>& progress) {
  HugePageMend mend;
  const uint8_t* base = file.data();
  mend.chunks = file.size() / kHugePageBytes;
  // MappedFile maps at a 2 MiB boundary where it can; elsewhere no 2 MiB page fits a stretch.
  if (mend.chunks == 0 || reinterpret_cast<uintptr_t>(base) % kHugePageBytes != 0) return mend;
  const FileDescriptor pagemap(::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC));
  const FileDescriptor fd(::open(file.path().c_str(), O_RDONLY | O_CLOEXEC));
  if (pagemap.get() < 0 || fd.get() < 0) return mend;

  // Which stretches the page cache holds, from mincore (it reads nothing in).
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t pages_per_chunk = kHugePageBytes / page;
  std::vector<unsigned char> resident(mend.chunks * pages_per_chunk);
  if (::mincore(const_cast<uint8_t*>(base), mend.chunks * kHugePageBytes, resident.data()) != 0) return mend;
  std::vector<bool> cached(mend.chunks, false);
  for (uint64_t c = 0; c < mend.chunks; ++c) {
    size_t n = 0;
    for (size_t p = 0; p < pages_per_chunk; ++p) n += resident[c * pages_per_chunk + p] & 1;
    cached[c] = n > 0;
    mend.cached += cached[c];
    // Mapping a wholly cached stretch reads nothing; a partly cached one is
    // in small folios already and is read back below.
    if (n == pages_per_chunk) {
      touch(base + c * kHugePageBytes);
    } else if (n == 0 && uncached == Uncached::kReadIn) {
      touch(base + c * kHugePageBytes);
      cached[c] = true;
      ++mend.read_in;
    }
    if (progress && uncached == Uncached::kReadIn) progress((c + 1) * kHugePageBytes, mend.chunks * kHugePageBytes);
  }
  std::vector<bool> huge(mend.chunks);
  mend.scanned = scan_huge(pagemap.get(), base, huge);
  if (!mend.scanned) return mend;
  for (uint64_t c = 0; c < mend.chunks; ++c) mend.huge_before += huge[c];

  // Last stretch first: reading a stretch back reads ahead into the next
  // one, and where that one is still in small folios the kernel fills its
  // gaps with more, keeping them busy while that stretch is dropped in turn.
  std::vector<uint64_t> todo;
  for (uint64_t c = mend.chunks; c-- > 0;) {
    if (cached[c] && !huge[c]) todo.push_back(c);
  }
  // A second pass for what a first could not drop (another reader busy with it).
  for (int pass = 0; pass < 2 && !todo.empty(); ++pass) {
    if (pass == 0) {
      // The first stretch alone first: where it does not come back in a
      // 2 MiB page, none will, and rereading the rest would only cost.
      reread(fd.get(), base, todo.front());
      ++mend.reread;
      scan_huge(pagemap.get(), base, huge);
      if (!huge[todo.front()]) break;
      todo.erase(todo.begin());
    }
    for (const uint64_t c : todo) reread(fd.get(), base, c);
    mend.reread += todo.size();
    scan_huge(pagemap.get(), base, huge);
    std::vector<uint64_t> left;
    for (const uint64_t c : todo) {
      if (!huge[c]) left.push_back(c);
    }
    if (left.size() == todo.size()) break;
    todo = std::move(left);
  }
  for (uint64_t c = 0; c < mend.chunks; ++c) mend.huge_after += huge[c];
  return mend;
}

}  // namespace ck
