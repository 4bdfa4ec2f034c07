#include "loader/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>

namespace ck {

namespace {

constexpr size_t kBufferSize = 1 << 20;

std::filesystem::path temp_name(const std::filesystem::path& target) {
  static std::atomic<uint64_t> counter{0};
  std::random_device rd;
  const std::string suffix = ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++) + "." +
                             std::to_string(rd());
  return target.string() + suffix;
}

// A writer killed before commit (SIGKILL, power loss) leaves its temporary
// file behind: a model-sized file that never loads. Its name carries the
// writer's pid, so temporaries of processes that no longer exist are removed
// before a new write of the same target.
void remove_stale_temps(const std::filesystem::path& target) {
  const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : ".";
  const std::string prefix = target.filename().string() + ".tmp.";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string rest = name.substr(prefix.size());
    const size_t dot = rest.find('.');
    if (dot == 0 || dot == std::string::npos || rest.find_first_not_of("0123456789") != dot) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(rest.substr(0, dot)));
    if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) std::filesystem::remove(entry.path(), ec);
  }
}

void write_all(int fd, const uint8_t* p, size_t n, off_t offset, bool positioned, const std::string& path) {
  while (n > 0) {
    const ssize_t w = positioned ? ::pwrite(fd, p, n, offset) : ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(path + ": write failed: " + std::strerror(errno));
    }
    p += w;
    n -= static_cast<size_t>(w);
    offset += w;
  }
}

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)), temp_(temp_name(target_)) {
  remove_stale_temps(target_);
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("cannot create temporary file");
  buffer_.reserve(kBufferSize);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_.c_str());
}

void AtomicFile::fail(const char* what) const {
  throw std::runtime_error(temp_.string() + ": " + what + ": " + std::strerror(errno));
}

void AtomicFile::write(std::span<const uint8_t> bytes) {
  size_ += bytes.size();
  if (buffer_.size() + bytes.size() > kBufferSize) {
    flush();
    if (bytes.size() >= kBufferSize) {
      write_all(fd_, bytes.data(), bytes.size(), 0, false, temp_.string());
      return;
    }
  }
  buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
}

void AtomicFile::write_zeros(uint64_t n) {
  static constexpr uint8_t zeros[256] = {};
  while (n > 0) {
    const size_t k = n < sizeof zeros ? static_cast<size_t>(n) : sizeof zeros;
    write({zeros, k});
    n -= k;
  }
}

void AtomicFile::write_at(uint64_t offset, std::span<const uint8_t> bytes) {
  flush();
  write_all(fd_, bytes.data(), bytes.size(), static_cast<off_t>(offset), true, temp_.string());
}

void AtomicFile::flush() {
  write_all(fd_, buffer_.data(), buffer_.size(), 0, false, temp_.string());
  buffer_.clear();
}

void AtomicFile::commit() {
  flush();
  if (::fsync(fd_) != 0) fail("fsync failed");
  // Clean after the fsync, the written pages leave the page cache. The write
  // path cached them in small folios, and a mapping of a file cached so runs
  // in 4 KiB pages for as long as it stays cached; read back through
  // MappedFile's mapping instead, it is cached in 2 MiB folios where the
  // kernel can. A fresh SmolLM2 Q8_0 bump on Zen 4 (ext4, Linux 6.18): 0 of
  // its 141 MB mapped in 2 MiB pages, 141 after this (docs/kernels.md).
  // Advice only: where the kernel keeps the pages, nothing changes.
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_DONTNEED);
  if (::close(fd_) != 0) {
    fd_ = -1;
    fail("close failed");
  }
  fd_ = -1;
  if (::rename(temp_.c_str(), target_.c_str()) != 0) {
    throw std::runtime_error(target_.string() + ": cannot rename the temporary file into place: " + std::strerror(errno));
  }
  committed_ = true;
  // Make the rename itself durable.
  const std::filesystem::path dir = target_.has_parent_path() ? target_.parent_path() : ".";
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace ck
