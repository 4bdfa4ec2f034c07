// What identifies the GGUF a bump was made from, and the converter that made
// it, recorded in the bump's metadata so a later run can tell whether the
// bump is current.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "loader/metadata.h"

namespace ck {

// Raised whenever the converter writes different bytes for the same GGUF, so
// that bumps made before are converted again. 2: Q4_0 and Q4_1 kept as they
// are (native kernels) instead of transcoded to Q8_0; 3: Q5_K too; 4 (two
// branches of session 5 each called theirs 4): bump format 4 on one, Q5_0,
// Q5_1, Q2_K, Q3_K and IQ4_NL native on the other; 5: both; 6: Q4_K and
// Q5_K stored with the units in the lanes (Q4_K_L, Q5_K_L); 7: Q6_K too
// (Q6_K_L); 8: Q5_0 and Q5_1 with qh transposed (Q5_0_L, Q5_1_L); 9: Q8_0
// matrices with their rows interleaved by 16 (Q8_0_R16); 10: Q4_0 and Q4_1
// too (Q4_0_R16, Q4_1_R16); 11: Q5_0 and Q5_1 too (Q5_0_R16, Q5_1_R16);
// 12: Q4_K too (Q4_K_R16); 13: Q6_K too (Q6_K_R16). Bumps without the key
// count as 1.
inline constexpr uint64_t kConverterVersion = 13;

struct SourceFingerprint {
  uint64_t size = 0;
  uint64_t mtime_ns = 0;       // modification time, nanoseconds since the epoch
  std::string header_sha256;   // hex SHA-256 of the first min(size, 1 MiB) bytes
  uint64_t converter = kConverterVersion;  // ck.convert.version of the bump

  bool operator==(const SourceFingerprint&) const = default;
};

SourceFingerprint fingerprint_file(const std::filesystem::path& path);
void record_fingerprint(Metadata& meta, const SourceFingerprint& fp);
// std::nullopt when the keys are absent or mistyped.
std::optional<SourceFingerprint> recorded_fingerprint(const Metadata& meta);

}  // namespace ck
