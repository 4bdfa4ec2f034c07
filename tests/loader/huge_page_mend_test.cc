// mend_huge_pages (loader/huge_page_mend.h): a file whose page cache has come
// apart into small folios is read back into 2 MiB pages, what is not cached
// is not read, and a file another process maps is left alone.
#include "loader/huge_page_mend.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <numeric>
#include <utility>
#include <vector>

#include "kernels/huge_pages.h"
#include "loader/mapped_file.h"
#include "tests/kernels/oracle.h"

namespace ck {

namespace {

constexpr size_t kStretches = 8;

std::filesystem::path write_pattern(const test::ScratchDir& dir, std::vector<uint8_t>& bytes) {
  bytes.resize(kStretches * kHugePageBytes + 12345);  // and a tail no 2 MiB page covers
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 2654435761u >> 13);
  const auto path = dir.file("weights.bin");
  test::write_bytes(path, bytes.data(), bytes.size());
  return path;
}

// Written back first: the page cache keeps dirty pages.
void drop_from_cache(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  REQUIRE(::fsync(fd) == 0);
  REQUIRE(::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0);
  ::close(fd);
}

// Drops the file from the page cache, then reads 64 KiB of every MiB through
// read(): each 2 MiB stretch is then cached in part, in small folios.
void cache_in_pieces(const std::filesystem::path& path, size_t size) {
  drop_from_cache(path);
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  std::vector<uint8_t> piece(64 << 10);
  for (size_t at = 0; at < size; at += 1 << 20) REQUIRE(::pread(fd, piece.data(), piece.size(), static_cast<off_t>(at)) > 0);
  ::close(fd);
}

size_t cached_pages(const MappedFile& file) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident((file.size() + page - 1) / page);
  REQUIRE(::mincore(const_cast<uint8_t*>(file.data()), file.size(), resident.data()) == 0);
  return static_cast<size_t>(std::count_if(resident.begin(), resident.end(), [](unsigned char r) { return r & 1; }));
}

bool same_bytes(const MappedFile& file, const std::vector<uint8_t>& bytes) {
  return file.size() == bytes.size() && std::equal(bytes.begin(), bytes.end(), file.data());
}

}  // namespace

TEST_CASE("mend_huge_pages reads a file cached in pieces back into 2 MiB pages", "[loader][huge_page_mend]") {
  test::ScratchDir dir;
  std::vector<uint8_t> bytes;
  const auto path = write_pattern(dir, bytes);
  cache_in_pieces(path, bytes.size());
  const MappedFile file = MappedFile::open(path);
  const HugePageMend mend = mend_huge_pages(file, Uncached::kLeave);
  CHECK(mend.chunks == kStretches);
  CHECK(same_bytes(file, bytes));
  if (!mend.scanned) {
    // A kernel without PAGEMAP_SCAN (before Linux 6.7): nothing is done.
    CHECK(mend.reread == 0);
    return;
  }
  CHECK(mend.cached == kStretches);
  CHECK(mend.huge_before == 0);
  CHECK(mapping_pages(file.data()).huge_bytes == mend.huge_after * kHugePageBytes);
  if (mend.huge_after == kStretches) {
    CHECK(mend.reread == kStretches);
  } else {
    // Where the kernel gives this file no 2 MiB folios (huge pages off, a
    // file system without large folios), it stops after the first stretch.
    CHECK(mend.reread == 1);
    CHECK(mend.huge_after == 0);
  }
}

TEST_CASE("mend_huge_pages leaves a file that is not cached alone unless told to read it in",
          "[loader][huge_page_mend]") {
  test::ScratchDir dir;
  std::vector<uint8_t> bytes;
  const auto path = write_pattern(dir, bytes);
  const MappedFile file = MappedFile::open(path);
  drop_from_cache(path);
  REQUIRE(cached_pages(file) == 0);
  size_t reports = 0;
  const HugePageMend mend = mend_huge_pages(file, Uncached::kLeave, [&](uint64_t, uint64_t) { ++reports; });
  CHECK(reports == 0);  // nothing read in
  CHECK(mend.cached == 0);
  CHECK(mend.read_in == 0);
  CHECK(mend.reread == 0);
  CHECK(cached_pages(file) == 0);

  std::vector<std::pair<uint64_t, uint64_t>> progress;
  const HugePageMend read = mend_huge_pages(file, Uncached::kReadIn, [&](uint64_t done, uint64_t total) {
    progress.emplace_back(done, total);
  });
  CHECK(read.cached == 0);
  CHECK(read.read_in == kStretches);
  // One report per stretch read in, in bytes of the stretches.
  REQUIRE(progress.size() == kStretches);
  for (size_t c = 0; c < kStretches; ++c) {
    CHECK(progress[c].first == (c + 1) * kHugePageBytes);
    CHECK(progress[c].second == kStretches * kHugePageBytes);
  }
  CHECK(cached_pages(file) >= kStretches * kHugePageBytes / static_cast<size_t>(::sysconf(_SC_PAGESIZE)));
  if (read.scanned) {
    CHECK(mapping_pages(file.data()).huge_bytes == read.huge_after * kHugePageBytes);
    // Read in file order, every stretch comes in one 2 MiB folio where the
    // kernel gives this file any; elsewhere one is read back and it stops.
    CHECK((read.huge_after == kStretches ? read.reread == 0 : read.reread == 1 && read.huge_after == 0));
  }
  CHECK(same_bytes(file, bytes));
}

TEST_CASE("mend_huge_pages leaves a file alone while another process maps it", "[loader][huge_page_mend]") {
  test::ScratchDir dir;
  std::vector<uint8_t> bytes;
  const auto path = write_pattern(dir, bytes);
  cache_in_pieces(path, bytes.size());
  int ready[2], done[2];
  REQUIRE(::pipe(ready) == 0);
  REQUIRE(::pipe(done) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Maps every page of the file in small folios, then holds them until told.
    const int fd = ::open(path.c_str(), O_RDONLY);
    void* p = ::mmap(nullptr, bytes.size(), PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) ::_exit(1);
    unsigned sum = 0;
    for (size_t i = 0; i < bytes.size(); i += 4096) sum += static_cast<const volatile uint8_t*>(p)[i];
    char c = static_cast<char>(sum);
    (void)!::write(ready[1], &c, 1);
    (void)!::read(done[0], &c, 1);
    ::_exit(0);
  }
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  const MappedFile file = MappedFile::open(path);
  const HugePageMend mend = mend_huge_pages(file, Uncached::kLeave);
  (void)!::write(done[1], &c, 1);
  int status = 0;
  ::waitpid(child, &status, 0);
  for (const int f : {ready[0], ready[1], done[0], done[1]}) ::close(f);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(same_bytes(file, bytes));
  if (mend.scanned) {
    CHECK(mend.cached == kStretches);
    CHECK(mend.reread == 1);  // the first stretch could not be dropped, so no more were tried
    CHECK(mend.huge_after == 0);
  }
}

}  // namespace ck
