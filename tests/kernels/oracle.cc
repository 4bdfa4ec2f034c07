#include "tests/kernels/oracle.h"

#include <atomic>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace ck::test {

ScratchDir::ScratchDir() : ScratchDir(std::filesystem::temp_directory_path()) {}

ScratchDir::ScratchDir(const std::filesystem::path& parent) {
  static std::atomic<int> counter{0};
  dir_ = parent / ("ck-kernel-tests-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  std::filesystem::create_directories(dir_);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

void write_bytes(const std::filesystem::path& path, const void* data, size_t size) {
  std::ofstream f(path, std::ios::binary);
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  REQUIRE(f.good());
}

std::vector<uint8_t> read_bytes(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE(f.good());
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::vector<float> read_floats(const std::filesystem::path& path) {
  const std::vector<uint8_t> bytes = read_bytes(path);
  REQUIRE(bytes.size() % sizeof(float) == 0);
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

void run_oracle(const std::vector<std::string>& jobs, const ScratchDir& scratch) {
  std::ostringstream text;
  for (const auto& job : jobs) text << job << '\n';
  const auto jobs_path = scratch.file("jobs.txt");
  const auto answers_path = scratch.file("answers.txt");
  const std::string body = text.str();
  write_bytes(jobs_path, body.data(), body.size());
  const std::string cmd = std::string("python3 '") + CK_GGUF_ORACLE + "' < '" + jobs_path.string() +
                          "' > '" + answers_path.string() + "'";
  INFO("running " << cmd << " (python3 with the gguf package comes from scripts/setup.sh)");
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream answers(answers_path);
  std::string line;
  for (const auto& job : jobs) {
    INFO("oracle job: " << job);
    REQUIRE(std::getline(answers, line));
    REQUIRE(line == "ok");
  }
}

int64_t first_bit_mismatch(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const bool both_nan = std::isnan(a[i]) && std::isnan(b[i]);
    if (!both_nan && std::bit_cast<uint32_t>(a[i]) != std::bit_cast<uint32_t>(b[i])) {
      return static_cast<int64_t>(i);
    }
  }
  return -1;
}

std::vector<int> half_fields(DType dt) {
  switch (dt) {
    case DType::Q4_0: case DType::Q5_0: case DType::Q8_0: case DType::IQ4_NL: case DType::IQ4_XS:
    case DType::Q5_0_L: return {0};
    case DType::Q4_1: case DType::Q5_1: case DType::Q4_K: case DType::Q5_K: case DType::Q4_K_L: case DType::Q4_K_R16:
    case DType::Q5_K_L: case DType::Q5_1_L: return {0, 2};
    case DType::Q2_K: return {80, 82};
    case DType::Q3_K: return {108};
    case DType::Q6_K: case DType::Q6_K_L: case DType::Q6_K_R16: return {208};
    default: return {};
  }
}

}  // namespace ck::test
