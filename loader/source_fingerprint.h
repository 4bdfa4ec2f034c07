// What identifies the GGUF a bump was made from, recorded in the bump's
// ck.source.* metadata so a later run can tell whether the bump is current.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "loader/metadata.h"

namespace ck {

struct SourceFingerprint {
  uint64_t size = 0;
  uint64_t mtime_ns = 0;       // modification time, nanoseconds since the epoch
  std::string header_sha256;   // hex SHA-256 of the first min(size, 1 MiB) bytes

  bool operator==(const SourceFingerprint&) const = default;
};

SourceFingerprint fingerprint_file(const std::filesystem::path& path);
void record_fingerprint(Metadata& meta, const SourceFingerprint& fp);
// std::nullopt when the keys are absent or mistyped.
std::optional<SourceFingerprint> recorded_fingerprint(const Metadata& meta);

}  // namespace ck
