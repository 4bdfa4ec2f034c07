// Every dtype's reference dequantizer is bit-exact with gguf.quants.dequantize
// on random blocks (with extreme, zero, subnormal, negative, infinite and NaN
// fp16 scales and all-min / all-max quants) and on blocks of real files.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <random>

#include "kernels/dtype.h"
#include "kernels/quantize.h"
#include "kernels/unit_lanes.h"
#include "tests/kernels/oracle.h"

namespace ck {
namespace {

constexpr uint16_t kSpecialHalves[] = {
    0x0000, 0x8000,  // +-0
    0x0001, 0x8001, 0x03FF, 0x0200,  // subnormals
    0x0400, 0x7BFF, 0xFBFF,  // smallest normal, +-65504
    0x3C00, 0xBC00, 0x2E66, 0xA9A5,  // ordinary, both signs
    0x7C00, 0xFC00, 0x7E00, 0x7C01,  // infinities, quiet and signalling NaN
};

// Random blocks, then: scale fields cycled through kSpecialHalves, and every
// fifth / seventh block's non-scale bytes all 0x00 / all 0xFF.
std::vector<uint8_t> random_blocks(DType dt, int n_blocks, uint32_t seed) {
  const DTypeTraits& t = traits(dt);
  std::mt19937 rng(seed);
  std::vector<uint8_t> bytes(static_cast<size_t>(n_blocks) * t.block_bytes);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  const std::vector<int> fields = test::half_fields(dt);
  int special = 0;
  for (int k = 0; k < n_blocks; ++k) {
    uint8_t* block = bytes.data() + static_cast<size_t>(k) * t.block_bytes;
    if (!fields.empty() && (k % 5 == 0 || k % 7 == 0)) {
      std::memset(block, k % 5 == 0 ? 0x00 : 0xFF, t.block_bytes);
    }
    for (int off : fields) {
      // Half the blocks get a special value, the rest keep a random-ish
      // finite scale so that ordinary magnitudes are covered too.
      uint16_t h = k % 2 == 0 ? kSpecialHalves[special++ % std::size(kSpecialHalves)]
                              : static_cast<uint16_t>(rng() & 0x3BFF);
      std::memcpy(block + off, &h, 2);
    }
  }
  if (dt == DType::F16) {
    for (size_t i = 0; i < std::size(kSpecialHalves); ++i) std::memcpy(&bytes[2 * i], &kSpecialHalves[i], 2);
  }
  return bytes;
}

std::vector<float> dequantize_ours(DType dt, const std::vector<uint8_t>& bytes) {
  const DTypeTraits& t = traits(dt);
  const int64_t n = static_cast<int64_t>(bytes.size() / t.block_bytes) * t.block_size;
  std::vector<float> out(static_cast<size_t>(n));
  t.dequantize(bytes.data(), out.data(), n);
  return out;
}

void check_bit_exact(const std::vector<float>& ours, const std::vector<float>& theirs) {
  REQUIRE(ours.size() == theirs.size());
  const int64_t bad = test::first_bit_mismatch(ours, theirs);
  INFO("first mismatch at " << bad << ": ours " << (bad >= 0 ? ours[bad] : 0.0f) << " gguf-py "
                            << (bad >= 0 ? theirs[bad] : 0.0f));
  CHECK(bad == -1);
}

}  // namespace

TEST_CASE("reference dequantize of random blocks is bit-exact with gguf-py", "[dequantize]") {
  test::ScratchDir scratch;
  std::vector<std::string> jobs;
  std::vector<std::vector<uint8_t>> inputs;
  for (int code = 0; code < kDTypeCount; ++code) {
    const DTypeTraits& t = traits(static_cast<DType>(code));
    if (t.ggml_type == GgmlType::None) {  // checked through their plain form, below
      inputs.emplace_back();
      continue;
    }
    // Element-wise types: 4096 values; block types: 70 blocks.
    inputs.push_back(random_blocks(t.dtype, t.block_size == 1 ? 4096 : 70, 1234u + code));
    const std::string name(t.name);
    test::write_bytes(scratch.file(name + ".in"), inputs.back().data(), inputs.back().size());
    jobs.push_back("dequantize " + name + " " + scratch.file(name + ".in").string() + " " +
                   scratch.file(name + ".out").string());
  }
  test::run_oracle(jobs, scratch);
  for (int code = 0; code < kDTypeCount; ++code) {
    const DTypeTraits& t = traits(static_cast<DType>(code));
    SECTION(std::string(t.name)) {
      if (t.row_group > 1) {
        // A row-grouped dtype: 16 rows of 4 of the plain dtype's blocks, permuted
        // and interleaved as the converter does; each row gathered gives gguf-py's values.
        const DType plain = plain_form(t.dtype);
        const int64_t rows = t.row_group, cols = 4 * t.block_size;
        const std::vector<uint8_t>& blocks = inputs[static_cast<size_t>(plain)];
        REQUIRE(blocks.size() >= row_bytes(t, cols) * rows);
        std::vector<uint8_t> grouped(blocks.begin(), blocks.begin() + static_cast<ptrdiff_t>(row_bytes(t, cols) * rows));
        to_stored_rows(t.dtype, grouped.data(), rows, cols);
        std::vector<float> ours(static_cast<size_t>(rows * cols));
        for (int64_t r = 0; r < rows; ++r) dequantize_row(t.dtype, grouped.data(), cols, r, ours.data() + r * cols);
        std::vector<float> theirs = test::read_floats(scratch.file(std::string(traits(plain).name) + ".out"));
        theirs.resize(ours.size());
        check_bit_exact(ours, theirs);
      } else if (t.ggml_type == GgmlType::None) {
        // A unit-lanes dtype (no ggml type): the plain dtype's blocks,
        // permuted as the converter does, give gguf-py's values for them.
        const DType plain = plain_form(t.dtype);
        REQUIRE(plain != t.dtype);
        std::vector<uint8_t> lanes = inputs[static_cast<size_t>(plain)];
        to_stored_form(plain, lanes.data(), static_cast<int64_t>(lanes.size() / traits(plain).block_bytes));
        check_bit_exact(dequantize_ours(t.dtype, lanes),
                        test::read_floats(scratch.file(std::string(traits(plain).name) + ".out")));
      } else {
        check_bit_exact(dequantize_ours(t.dtype, inputs[code]),
                        test::read_floats(scratch.file(std::string(t.name) + ".out")));
      }
    }
  }
}

TEST_CASE("reference dequantize of SmolLM2 tensors is bit-exact with gguf-py", "[dequantize][real]") {
  const std::string model = std::string(CK_MODELS_DIR) + "/SmolLM2-135M-Instruct.Q4_1.gguf";
  test::ScratchDir scratch;
  // (tensor, rows, dtype in the file)
  const std::vector<std::tuple<std::string, int, DType>> tensors = {
      {"token_embd.weight", 300, DType::Q8_0},
      {"blk.0.attn_q.weight", 576, DType::Q4_1},
      {"blk.7.ffn_down.weight", 200, DType::Q4_1},
      {"blk.29.attn_v.weight", 192, DType::Q4_1},
      {"output_norm.weight", 576, DType::F32},
  };
  std::vector<std::string> jobs;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& [name, rows, dt] = tensors[i];
    jobs.push_back("tensor " + model + " " + name + " " + std::to_string(rows) + " " +
                   scratch.file(std::to_string(i) + ".raw").string() + " " +
                   scratch.file(std::to_string(i) + ".out").string());
  }
  test::run_oracle(jobs, scratch);
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& [name, rows, dt] = tensors[i];
    INFO(name);
    const std::vector<uint8_t> raw = test::read_bytes(scratch.file(std::to_string(i) + ".raw"));
    const std::vector<float> ours = dequantize_ours(dt, raw);
    const std::vector<float> theirs = test::read_floats(scratch.file(std::to_string(i) + ".out"));
    REQUIRE(!ours.empty());
    check_bit_exact(ours, theirs);
  }
}

TEST_CASE("stories260K transcoded by our quantizers dequantizes bit-exactly", "[dequantize][quantize][real]") {
  const std::string model = std::string(CK_SHARED_DATA) + "/models/stories260K.gguf";
  test::ScratchDir scratch;
  // Rows of 64 floats do not fill a 256 super-block: quantize the flattened
  // tensor instead (all its values, in file order).
  test::run_oracle({"tensor " + model + " blk.0.ffn_up.weight 172 " + scratch.file("w.raw").string() +
                    " " + scratch.file("w.f32").string()},
                   scratch);
  std::vector<float> w = test::read_floats(scratch.file("w.f32"));
  w.resize(w.size() / 256 * 256);
  REQUIRE(w.size() >= 256 * 40);
  std::vector<std::string> jobs;
  const DType ours[] = {DType::Q8_0, DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1,
                        DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::F16,  DType::BF16};
  std::vector<std::vector<uint8_t>> quantized;
  for (DType dt : ours) {
    const DTypeTraits& t = traits(dt);
    quantized.emplace_back(row_bytes(t, static_cast<int64_t>(w.size())));
    quantize(dt, w.data(), quantized.back().data(), static_cast<int64_t>(w.size()));
    const std::string name(t.name);
    test::write_bytes(scratch.file(name + ".q"), quantized.back().data(), quantized.back().size());
    jobs.push_back("dequantize " + name + " " + scratch.file(name + ".q").string() + " " +
                   scratch.file(name + ".out").string());
  }
  // gguf-py's own Q8_0, Q4_0, Q4_1, Q5_0, Q5_1 and BF16 quantizers are ports
  // of ggml's reference ones, as ours are: the bytes must agree.
  const DType same_bytes[] = {DType::Q8_0, DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::BF16};
  test::write_bytes(scratch.file("w.in"), w.data(), w.size() * sizeof(float));
  for (DType dt : same_bytes) {
    const std::string name(traits(dt).name);
    jobs.push_back("quantize " + name + " " + scratch.file("w.in").string() + " " +
                   scratch.file(name + ".gguf-py").string());
  }
  test::run_oracle(jobs, scratch);
  for (size_t i = 0; i < std::size(ours); ++i) {
    const std::string name(traits(ours[i]).name);
    INFO(name);
    check_bit_exact(dequantize_ours(ours[i], quantized[i]), test::read_floats(scratch.file(name + ".out")));
    if (std::find(std::begin(same_bytes), std::end(same_bytes), ours[i]) != std::end(same_bytes)) {
      CHECK(quantized[i] == test::read_bytes(scratch.file(name + ".gguf-py")));
    }
  }
}

}  // namespace ck

namespace ck {

// The integer GEMM's weight form (decode_u8.h) against the reference
// dequantizer: a*u + c is the same weight up to the rounding of the two
// products (the reference rounds d*sc, then *q, then subtracts the min):
// within 4 ulps of the largest term. Finite random blocks only (the form
// says nothing about NaN scales beyond propagating them).
TEST_CASE("decode_u8 forms reproduce the reference dequantization", "[dequantize][gemm]") {
  std::mt19937 rng(99);
  for (int code = 0; code < kDTypeCount; ++code) {
    const DTypeTraits& t = traits(static_cast<DType>(code));
    // (A row-grouped dtype decodes its rows gathered: its plain dtype's form.)
    if (t.decode_u8 == nullptr || t.row_group > 1) continue;
    INFO(t.name);
    const int n_blocks = 24;
    std::vector<uint8_t> bytes(static_cast<size_t>(n_blocks) * t.block_bytes);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    const std::vector<int> fields = test::half_fields(t.dtype);
    for (int k = 0; k < n_blocks; ++k) {
      for (int off : fields) {
        const uint16_t h = static_cast<uint16_t>(rng() & 0x3BFF);  // finite, below 1
        std::memcpy(bytes.data() + static_cast<size_t>(k) * t.block_bytes + off, &h, 2);
      }
    }
    const std::vector<float> ref = dequantize_ours(t.dtype, bytes);
    const int64_t n = static_cast<int64_t>(ref.size());
    std::vector<uint8_t> u(static_cast<size_t>(n));
    std::vector<float> a(static_cast<size_t>(n / t.u8_block)), c(a.size());
    t.decode_u8(bytes.data(), n, u.data(), a.data(), c.data());
    int64_t bad = -1;
    for (int64_t i = 0; i < n && bad < 0; ++i) {
      const float ai = a[i / t.u8_block], ci = c[i / t.u8_block];
      const double w = static_cast<double>(ai) * u[i] + ci;
      const double scale = std::fabs(static_cast<double>(ai) * u[i]) + std::fabs(ci);
      if (std::fabs(w - ref[i]) > 4 * 0x1p-24 * scale) bad = i;
      if (u[i] > t.u8_max) bad = i;  // the int16 bound of gemm_int8-inl.h's pair sums
    }
    // Random bytes reach the largest u: the bound is tight, not just safe.
    CHECK(*std::max_element(u.begin(), u.end()) == t.u8_max);
    INFO("first mismatch at " << bad << ": ref " << (bad >= 0 ? ref[bad] : 0.0f));
    CHECK(bad == -1);
  }
}

}  // namespace ck
