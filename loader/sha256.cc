#include "loader/sha256.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace ck {

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr || EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(ctx_);
    throw std::runtime_error("OpenSSL: cannot initialise SHA-256");
  }
}

Sha256::~Sha256() { EVP_MD_CTX_free(ctx_); }

void Sha256::update(std::span<const uint8_t> bytes) {
  if (EVP_DigestUpdate(ctx_, bytes.data(), bytes.size()) != 1) throw std::runtime_error("OpenSSL: SHA-256 update failed");
}

Sha256Digest Sha256::finish() {
  Sha256Digest out{};
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx_, out.data(), &len) != 1 || len != out.size()) {
    throw std::runtime_error("OpenSSL: SHA-256 final failed");
  }
  return out;
}

Sha256Digest sha256(std::span<const uint8_t> bytes) {
  Sha256 h;
  h.update(bytes);
  return h.finish();
}

std::string to_hex(std::span<const uint8_t> bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

}  // namespace ck
