#include "loader/source_fingerprint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "loader/sha256.h"

namespace ck {

namespace {
constexpr size_t kHeaderBytes = 1 << 20;
constexpr const char* kSize = "ck.source.size";
constexpr const char* kMtime = "ck.source.mtime";
constexpr const char* kHash = "ck.source.header_sha256";
constexpr const char* kConverter = "ck.convert.version";
}  // namespace

SourceFingerprint fingerprint_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(path.string() + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    throw std::runtime_error(path.string() + ": cannot stat: " + std::strerror(errno));
  }
  SourceFingerprint fp;
  fp.size = static_cast<uint64_t>(st.st_size);
  fp.mtime_ns = static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000ull + static_cast<uint64_t>(st.st_mtim.tv_nsec);
  std::vector<uint8_t> head(std::min<uint64_t>(fp.size, kHeaderBytes));
  size_t got = 0;
  while (got < head.size()) {
    const ssize_t r = ::pread(fd, head.data() + got, head.size() - got, static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      ::close(fd);
      throw std::runtime_error(path.string() + ": cannot read its first bytes");
    }
    got += static_cast<size_t>(r);
  }
  ::close(fd);
  fp.header_sha256 = to_hex(sha256(head));
  return fp;
}

void record_fingerprint(Metadata& meta, const SourceFingerprint& fp) {
  meta.set_u64(kSize, fp.size);
  meta.set_u64(kMtime, fp.mtime_ns);
  meta.set_string(kHash, fp.header_sha256);
  meta.set_u64(kConverter, fp.converter);
}

std::optional<SourceFingerprint> recorded_fingerprint(const Metadata& meta) {
  try {
    auto size = meta.get_u64(kSize);
    auto mtime = meta.get_u64(kMtime);
    auto hash = meta.get_string(kHash);
    if (!size || !mtime || !hash) return std::nullopt;
    return SourceFingerprint{*size, *mtime, *hash, meta.get_u64(kConverter).value_or(1)};
  } catch (const std::runtime_error&) {
    return std::nullopt;  // mistyped keys: treat the bump as not matching
  }
}

}  // namespace ck
