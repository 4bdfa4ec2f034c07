#include "kernels/gemv.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace ck {
namespace {

void check_args(DType dt, int64_t rows, int64_t cols, const char* fn) {
  const DTypeTraits& t = traits(dt);
  if (!t.native) {
    throw std::runtime_error(std::string(fn) + ": no kernel for " + std::string(t.name) +
                             " (native: F32, F16, BF16, Q8_0, Q4_K, Q6_K)");
  }
  if (rows < 0 || cols <= 0 || cols % t.block_size != 0) {
    throw std::runtime_error(std::string(fn) + ": " + std::string(t.name) + " matrix " +
                             std::to_string(rows) + "x" + std::to_string(cols) +
                             ": cols must be a positive multiple of " + std::to_string(t.block_size));
  }
}

}  // namespace

void gemv(DType dt, const void* W, int64_t rows, int64_t cols, const float* x, float* y) {
  gemm(dt, W, rows, cols, x, 1, y);
}

void gemm(DType dt, const void* W, int64_t rows, int64_t cols, const float* X, int64_t n, float* Y) {
  check_args(dt, rows, cols, "gemm");
  const DTypeTraits& t = traits(dt);
  const size_t rb = row_bytes(t, cols);
#pragma omp parallel
  {
    std::vector<float> row(static_cast<size_t>(cols));
#pragma omp for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
      t.dequantize(static_cast<const uint8_t*>(W) + r * rb, row.data(), cols);
      for (int64_t k = 0; k < n; ++k) {
        const float* x = X + k * cols;
        float acc = 0.0f;
        for (int64_t i = 0; i < cols; ++i) acc += row[i] * x[i];
        Y[k * rows + r] = acc;
      }
    }
  }
}

}  // namespace ck
