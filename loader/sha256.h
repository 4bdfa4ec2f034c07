// Incremental SHA-256 (OpenSSL EVP): the bump payload checksum and the
// GGUF header fingerprint used to match a cached bump to its source.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX, kept out of this header

namespace ck {

using Sha256Digest = std::array<uint8_t, 32>;

class Sha256 {
 public:
  Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  ~Sha256();

  void update(std::span<const uint8_t> bytes);
  Sha256Digest finish();

 private:
  ::evp_md_ctx_st* ctx_;
};

Sha256Digest sha256(std::span<const uint8_t> bytes);
std::string to_hex(std::span<const uint8_t> bytes);

}  // namespace ck
