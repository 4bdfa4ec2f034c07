// The first-run step (prepare_model) and the atomic write of conversions.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "loader/bump_file.h"
#include "loader/convert.h"
#include "loader/source_fingerprint.h"
#include "tests/kernels/oracle.h"
#include "tests/loader/support.h"

namespace ck::test {
namespace {

namespace fs = std::filesystem;

// Points XDG_CACHE_HOME into a scratch folder for the test's lifetime.
class ScopedCache {
 public:
  explicit ScopedCache(const fs::path& dir) {
    if (const char* old = std::getenv("XDG_CACHE_HOME")) old_ = old;
    setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  }
  ~ScopedCache() { old_.empty() ? unsetenv("XDG_CACHE_HOME") : setenv("XDG_CACHE_HOME", old_.c_str(), 1); }

 private:
  std::string old_;
};

ino_t inode(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_ino;
}

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST_CASE("prepare_model returns a bump as is", "[prepare]") {
  ScratchDir dir;
  convert_gguf_to_bump(stories_gguf(), dir.file("s.bump"));
  fs::rename(dir.file("s.bump"), dir.file("named-anything"));  // recognised by magic, not name
  CHECK(prepare_model(dir.file("named-anything")) == dir.file("named-anything"));
  CHECK_THROWS_WITH(prepare_model(dir.file("missing.gguf")), Catch::Contains("missing.gguf: cannot open"));
}

TEST_CASE("prepare_model converts a GGUF beside it once, and again only when the GGUF changes", "[prepare]") {
  ScratchDir dir;
  ScopedCache cache(dir.file("cache"));
  const fs::path gguf = dir.file("m.gguf");
  fs::copy_file(stories_gguf(), gguf);

  const fs::path bump = prepare_model(gguf);
  CHECK(bump == dir.file("m.bump"));
  CHECK_NOTHROW(BumpFile::open(bump, {.verify = true}));
  CHECK(fs::exists(dir.file("m.config.json")));
  CHECK_FALSE(fs::exists(dir.file("cache")));
  const ino_t first = inode(bump);

  SECTION("reused while the GGUF is unchanged") {
    CHECK(prepare_model(gguf) == bump);
    CHECK(inode(bump) == first);  // not rewritten (a rewrite renames a new file in)
  }
  SECTION("converted again when the GGUF's mtime changes") {
    fs::last_write_time(gguf, fs::last_write_time(gguf) + std::chrono::seconds(5));
    CHECK(prepare_model(gguf) == bump);
    CHECK(inode(bump) != first);
    const auto again = inode(bump);
    CHECK(prepare_model(gguf) == bump);
    CHECK(inode(bump) == again);
  }
  SECTION("converted again when the GGUF's header changes but size and mtime do not") {
    const auto mtime = fs::last_write_time(gguf);
    std::vector<uint8_t> bytes = read_bytes(gguf);
    const std::string name = "general.name";
    auto it = std::search(bytes.begin(), bytes.end(), name.begin(), name.end());
    REQUIRE(it != bytes.end());
    *(it + static_cast<ptrdiff_t>(name.size() + 4 + 8)) ^= 0x20;  // first character of its value
    write_bytes(gguf, bytes.data(), bytes.size());
    fs::last_write_time(gguf, mtime);
    CHECK(prepare_model(gguf) == bump);
    CHECK(inode(bump) != first);
  }
  SECTION("converted again when the bump was made by an older converter") {
    std::vector<uint8_t> bytes = read_bytes(bump);
    const std::string key = "ck.convert.version";
    auto it = std::search(bytes.begin(), bytes.end(), key.begin(), key.end());
    REQUIRE(it != bytes.end());
    uint64_t version = 0;
    auto value = it + static_cast<ptrdiff_t>(key.size() + 4);  // after the u32 value type
    std::memcpy(&version, &*value, sizeof(version));
    REQUIRE(version == kConverterVersion);
    version = 1;  // as bumps without the key count
    std::memcpy(&*value, &version, sizeof(version));
    write_bytes(bump, bytes.data(), bytes.size());
    CHECK(prepare_model(gguf) == bump);
    CHECK(inode(bump) != first);
    CHECK(*BumpFile::open(bump).metadata().get_u64(key) == kConverterVersion);
  }
  SECTION("converted again when the bump is damaged") {
    fs::resize_file(bump, fs::file_size(bump) - 10);
    CHECK(prepare_model(gguf) == bump);
    CHECK_NOTHROW(BumpFile::open(bump, {.verify = true}));
  }
}

TEST_CASE("prepare_model finds the converted copy in the cache folder", "[prepare]") {
  ScratchDir dir;
  ScopedCache cache(dir.file("cache"));
  const fs::path gguf = dir.file("m.gguf");
  fs::copy_file(stories_gguf(), gguf);
  const fs::path cached = cached_bump_path(gguf);
  CHECK(cached.parent_path() == dir.file("cache") / "ck");
  CHECK(cached.filename().string().rfind("m.", 0) == 0);
  fs::create_directories(cached.parent_path());
  convert_gguf_to_bump(gguf, cached);
  CHECK(prepare_model(gguf) == cached);
  CHECK_FALSE(fs::exists(dir.file("m.bump")));

  // A folder without any write bit (like ../shared/data) is read-only for
  // root too: the conversion goes to the cache instead.
  fs::remove(cached);
  const fs::perms all_write = fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write;
  fs::permissions(dir.file(""), all_write, fs::perm_options::remove);
  const fs::path made = prepare_model(gguf);
  fs::permissions(dir.file(""), fs::perms::owner_write, fs::perm_options::add);
  CHECK(made == cached);
  CHECK_FALSE(fs::exists(dir.file("m.bump")));
  CHECK_NOTHROW(BumpFile::open(made, {.verify = true}));
}

TEST_CASE("prepare_model puts the bump only in the folder the user chose", "[prepare][issue13]") {
  ScratchDir dir;
  ScopedCache cache(dir.file("cache"));
  const fs::path gguf = dir.file("m.gguf");
  fs::copy_file(stories_gguf(), gguf);
  SECTION("--bump-dir: there, not beside the (writable) GGUF's folder, and reused") {
    const fs::path made = prepare_model(gguf, {}, dir.file("bumps"));
    CHECK(made == cached_bump_path(gguf, dir.file("bumps")));
    CHECK(made.parent_path() == dir.file("bumps"));
    CHECK_FALSE(fs::exists(dir.file("m.bump")));
    const ino_t first = inode(made);
    CHECK(prepare_model(gguf, {}, dir.file("bumps")) == made);
    CHECK(inode(made) == first);
    CHECK(cached_bumps(dir.file("bumps")) == std::vector<fs::path>{made});
  }
  SECTION("$CK_BUMP_DIR does the same; --bump-dir wins over it") {
    setenv("CK_BUMP_DIR", dir.file("env").c_str(), 1);
    const fs::path made = prepare_model(gguf);
    const fs::path chosen = prepare_model(gguf, {}, dir.file("flag"));
    unsetenv("CK_BUMP_DIR");
    CHECK(made.parent_path() == dir.file("env"));
    CHECK(chosen.parent_path() == dir.file("flag"));
    CHECK_FALSE(fs::exists(dir.file("m.bump")));
  }
  SECTION("a bump beside the GGUF is not used when a folder is chosen") {
    convert_gguf_to_bump(gguf, dir.file("m.bump"));
    CHECK(prepare_model(gguf, {}, dir.file("bumps")).parent_path() == dir.file("bumps"));
  }
}

TEST_CASE("two conversions to one target at once both succeed and leave one good file", "[convert][atomic]") {
  ScratchDir dir;
  const fs::path target = dir.file("t.bump");
  std::exception_ptr errors[2];
  std::thread workers[2];
  for (int i = 0; i < 2; ++i) {
    workers[i] = std::thread([&, i] {
      try {
        convert_gguf_to_bump(stories_gguf(), target);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  }
  for (auto& w : workers) w.join();
  CHECK_FALSE(errors[0]);
  CHECK_FALSE(errors[1]);
  CHECK_NOTHROW(BumpFile::open(target, {.verify = true}));
  CHECK(listing(dir.file("")) == std::vector<std::string>{"t.bump", "t.config.json"});
}

TEST_CASE("a failed conversion leaves an existing bump untouched", "[convert][atomic]") {
  ScratchDir dir;
  const fs::path target = dir.file("t.bump");
  convert_gguf_to_bump(stories_gguf(), target);
  const std::vector<uint8_t> before = read_bytes(target);
  // A GGUF whose data section is cut short: refused while writing is planned.
  std::vector<uint8_t> bad = read_bytes(stories_gguf());
  bad.resize(bad.size() - 1000);
  write_bytes(dir.file("bad.gguf"), bad.data(), bad.size());
  CHECK_THROWS_WITH(convert_gguf_to_bump(dir.file("bad.gguf"), target), Catch::Contains("lies outside the file"));
  CHECK(read_bytes(target) == before);
  CHECK(listing(dir.file("")) == std::vector<std::string>{"bad.gguf", "t.bump", "t.config.json"});
}

// Pages of the file at `path` that the page cache holds, by mincore on a
// fresh mapping (which faults nothing in).
size_t cached_pages(const fs::path& path) {
  const size_t bytes = fs::file_size(path);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  void* p = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  REQUIRE(p != MAP_FAILED);
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident((bytes + page - 1) / page);
  REQUIRE(::mincore(p, bytes, resident.data()) == 0);
  ::munmap(p, bytes);
  return static_cast<size_t>(std::count_if(resident.begin(), resident.end(), [](unsigned char r) { return r & 1; }));
}

// The write path caches a file in small folios, so a bump left cached after
// its conversion would be mapped in 4 KiB pages (atomic_file.cc). In the
// build tree rather than the temporary folder, which may be a tmpfs: there
// the cache is the file and cannot be dropped.
TEST_CASE("a conversion leaves none of the bump it wrote in the page cache", "[convert][atomic]") {
  const ScratchDir dir(fs::current_path());
  struct statfs fs_info {};
  REQUIRE(::statfs(dir.file("").c_str(), &fs_info) == 0);
  constexpr long kTmpfsMagic = 0x01021994;
  INFO("folder " << dir.file("") << " is on a tmpfs; run the tests from a build folder on a disk");
  REQUIRE(static_cast<long>(fs_info.f_type) != kTmpfsMagic);
  const fs::path bump = dir.file("s.bump");
  convert_gguf_to_bump(smollm_gguf(), bump);
  CHECK(cached_pages(bump) == 0);
  CHECK(cached_pages(dir.file("s.config.json")) == 0);
  CHECK_NOTHROW(BumpFile::open(bump, {.verify = true}));  // still whole once read back
  CHECK(cached_pages(bump) > 0);  // the check above can see cached pages
}

}  // namespace
}  // namespace ck::test
