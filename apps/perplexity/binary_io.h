// Raw reads and writes of the reference files (host order: both formats are
// little endian, so only little-endian hosts are supported).
#pragma once
#include <bit>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace ck::app {

static_assert(std::endian::native == std::endian::little, "the KLD base files are written in host order");

template <class T>
void put(std::ofstream& out, const T* data, size_t n) {
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(n * sizeof(T)));
}

// Reads n values or throws naming the file, the offset and `what`.
template <class T>
void get(std::ifstream& in, T* data, size_t n, const std::filesystem::path& path, const char* what) {
  const auto offset = static_cast<long long>(in.tellg());
  if (!in.read(reinterpret_cast<char*>(data), static_cast<std::streamsize>(n * sizeof(T)))) {
    throw std::runtime_error(path.string() + ": truncated at offset " + std::to_string(offset) + " reading " + what);
  }
}

}  // namespace ck::app
