// One GEMV kernel timed alone, built three ways by scripts/peer-gemv:
// against ck's kernel library (CK), llama.cpp's ggml (LLAMA) or
// ik_llama.cpp's ggml (IK), so that the three are measured by the same
// loop on the same data. Weights: N(0, 0.02), quantized by the library
// itself; activations all 0.5, rounded by the library per call (as a
// decode step does). PEER_GEMV_THREADS threads (default 1): ck's own
// split; ik_llama.cpp's iqk_mul_mat with each thread's ith of nth (as ggml
// calls it); llama.cpp's rows split evenly.
//
//   peer_gemv DTYPE ROWS COLS CYCLE_MIB
//
// CYCLE_MIB 0: one copy, read again and again from cache (compute);
// otherwise enough copies to pass that many MiB, cycled (DRAM). With
// PEER_GEMV_HUGE set, the copies are madvise(MADV_HUGEPAGE)d, as a model's
// file pages may be mapped (docs/kernels.md, session 27). Prints the
// median and best of 7 runs of 0.3 s in GB/s of weights, and y[0].
#include <strings.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <omp.h>

#if defined(CK)
#include "kernels/gemv.h"
#include "kernels/quantize.h"
#else
#include "ggml.h"
#if defined(IK)
#include "iqk/iqk_mul_mat.h"
#else
#include "ggml-cpu.h"
#endif
#endif

namespace {

#if defined(CK)
constexpr const char* kName = "ck";
ck::DType dtype_named(const std::string& name) {
  for (int code = 0; code < ck::kDTypeCount; ++code) {
    const auto dt = ck::dtype_from_code(static_cast<uint8_t>(code));
    if (dt && strcasecmp(std::string(ck::traits(*dt).name).c_str(), name.c_str()) == 0) return *dt;
  }
  std::fprintf(stderr, "peer_gemv: no ck dtype %s\n", name.c_str());
  std::exit(2);
}
struct Kernel {
  ck::DType dt;
  int64_t rows, cols;
  explicit Kernel(const std::string& name, int64_t r, int64_t c) : dt(dtype_named(name)), rows(r), cols(c) {}
  size_t matrix_bytes() const { return ck::row_bytes(ck::traits(dt), cols) * rows; }
  void quantize(const float* w, uint8_t* out) const { ck::quantize(dt, w, out, rows * cols); }
  void gemv(const uint8_t* W, const float* x, float* y) { ck::gemv(dt, W, rows, cols, x, y); }
};
#else
ggml_type type_of(const std::string& name) {
  for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
    const char* n = ggml_type_name(static_cast<ggml_type>(t));
    if (n != nullptr && strcasecmp(n, name.c_str()) == 0) return static_cast<ggml_type>(t);
  }
  std::fprintf(stderr, "peer_gemv: no ggml type %s\n", name.c_str());
  std::exit(2);
}
#if defined(IK)
constexpr const char* kName = "ik_llama.cpp";
#else
constexpr const char* kName = "llama.cpp";
#endif
struct Kernel {
  ggml_type t, vec_dot_type;
  int64_t rows, cols;
  size_t row_bytes;
  std::vector<uint8_t> xq;
  Kernel(const std::string& name, int64_t r, int64_t c) : t(type_of(name)), rows(r), cols(c) {
    ggml_init_params params{16 << 20, nullptr, false};
    ggml_init(params);  // the fp16 tables
#if defined(IK)
    vec_dot_type = ggml_internal_get_type_traits(t).vec_dot_type;
#else
    ggml_cpu_init();
    vec_dot_type = ggml_get_type_traits_cpu(t)->vec_dot_type;
#endif
    row_bytes = ggml_row_size(t, cols);
    xq.resize(ggml_row_size(vec_dot_type, cols) + 1024);
  }
  size_t matrix_bytes() const { return row_bytes * rows; }
  void quantize(const float* w, uint8_t* out) const { ggml_quantize_chunk(t, w, out, 0, rows, cols, nullptr); }
  void gemv(const uint8_t* W, const float* x, float* y) {
#if defined(IK)
    ggml_internal_get_type_traits(vec_dot_type).from_float(x, xq.data(), cols);
#pragma omp parallel
    iqk_mul_mat(rows, 1, cols, t, W, row_bytes, vec_dot_type, xq.data(), ggml_row_size(vec_dot_type, cols), y, rows,
                omp_get_thread_num(), omp_get_num_threads());
#else
    ggml_get_type_traits_cpu(vec_dot_type)->from_float(x, xq.data(), cols);
    const auto vec_dot = ggml_get_type_traits_cpu(t)->vec_dot;
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; ++r) vec_dot(static_cast<int>(cols), y + r, 0, W + r * row_bytes, 0, xq.data(), 0, 1);
#endif
  }
};
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s DTYPE ROWS COLS CYCLE_MIB\n", argv[0]);
    return 2;
  }
  const int64_t rows = std::atol(argv[2]), cols = std::atol(argv[3]);
  const size_t cycle = static_cast<size_t>(std::atol(argv[4])) << 20;
  const char* threads = std::getenv("PEER_GEMV_THREADS");
  omp_set_num_threads(threads != nullptr ? std::atoi(threads) : 1);
  Kernel k(argv[1], rows, cols);
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<float> w(static_cast<size_t>(rows * cols));
  for (float& v : w) v = normal(rng);
  const size_t mb = k.matrix_bytes(), count = cycle == 0 ? 1 : cycle / mb + 1;
  constexpr size_t kHuge = size_t{2} << 20;
  const size_t bytes = (mb * count + kHuge - 1) / kHuge * kHuge;
  auto* W = static_cast<uint8_t*>(std::aligned_alloc(kHuge, bytes));
  if (std::getenv("PEER_GEMV_HUGE") != nullptr) madvise(W, bytes, MADV_HUGEPAGE);
  k.quantize(w.data(), W);
  for (size_t i = 1; i < count; ++i) std::memcpy(W + i * mb, W, mb);
  std::vector<float> x(static_cast<size_t>(cols), 0.5f), y(static_cast<size_t>(rows));
  size_t i = 0;
  for (int warm = 0; warm < 50; ++warm) k.gemv(W + (i++ % count) * mb, x.data(), y.data());
  std::vector<double> gbs;
  for (int run = 0; run < 7; ++run) {
    const auto t0 = std::chrono::steady_clock::now();
    int calls = 0;
    double seconds = 0;
    do {
      k.gemv(W + (i++ % count) * mb, x.data(), y.data());
      ++calls;
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } while (seconds < 0.3);
    gbs.push_back(static_cast<double>(mb) * calls / seconds / 1e9);
  }
  std::sort(gbs.begin(), gbs.end());
  std::printf("%-12s %dt %-5s %6ld x %-6ld %-4s %s  median %6.2f GB/s  best %6.2f  (%8.1f us a call)  y[0] %.6g\n", kName,
              omp_get_max_threads(), argv[1], static_cast<long>(rows), static_cast<long>(cols), cycle == 0 ? "hot" : "DRAM",
              std::getenv("PEER_GEMV_HUGE") != nullptr ? "2M" : "4K", gbs[3], gbs[6], static_cast<double>(mb) / gbs[3] / 1e3,
              y[0]);
  std::free(W);
}
