// Weight-streaming speed of the GEMV kernels at the TinyLlama-1.1B matrix
// shapes and SmolLM2's gate and up (3072 x 576: short rows), and the read
// bandwidth they are measured against.
//
// Each benchmark cycles through enough copies of its matrix (>= 1 GiB, more
// than the last-level cache) that every call reads its weights from DRAM, as
// a decode step does. Counter "GB/s" = weight bytes streamed per second.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "kernels/bandwidth.h"
#include "kernels/gemv.h"
#include "kernels/huge_pages.h"
#include "kernels/quantize.h"
#include "kernels/unit_lanes.h"

namespace {

constexpr size_t kCycleBytes = size_t{1} << 30;
constexpr size_t kHotBytes = 0;  // one copy: stays in cache, measures compute

// In 2 MiB pages, as decode reads the model file.
struct Copies {
  ck::HugePageBuffer bytes;
  size_t matrix_bytes;
  size_t count;
};

Copies make_copies(ck::DType dt, int64_t rows, int64_t cols, size_t cycle_bytes) {
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<float> w(static_cast<size_t>(rows * cols));
  for (auto& v : w) v = normal(rng);
  Copies c;
  c.matrix_bytes = ck::row_bytes(ck::traits(dt), cols) * static_cast<size_t>(rows);
  c.count = std::max<size_t>(1, cycle_bytes / c.matrix_bytes + 1);
  c.bytes = ck::allocate_huge_pages(c.matrix_bytes * c.count);
  try {
    // The unit-lanes and row-grouped dtypes: their plain blocks, permuted
    // and interleaved as the converter does.
    ck::quantize(ck::plain_form(dt), w.data(), c.bytes.get(), rows * cols);
    ck::to_stored_rows(dt, c.bytes.get(), rows, cols);
  } catch (const std::runtime_error&) {
    // No quantizer for this dtype (Q2_K, Q3_K, IQ4_NL, IQ4_XS): random bytes, since
    // the integer kernels take the same time whatever the values.
    for (size_t i = 0; i < c.matrix_bytes; ++i) c.bytes[i] = static_cast<uint8_t>(rng());
  }
  for (size_t i = 1; i < c.count; ++i) std::memcpy(c.bytes.get() + i * c.matrix_bytes, c.bytes.get(), c.matrix_bytes);
  return c;
}

// Activations: all 0.5, or (spiky) normal with a value 40 times the RMS
// every 1024, so that a quarter of the super-blocks of 256 take the
// second pass (gemv.h, kInt8SpikeRatioSuperBlock), as a fifth of the 1.1B
// shape's ffn_down inputs and a third of SmolLM2's do.
std::vector<float> activations(int64_t cols, bool spiky) {
  std::vector<float> x(static_cast<size_t>(cols), 0.5f);
  if (spiky) {
    std::mt19937 rng(2);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (auto& v : x) v = normal(rng);
    for (size_t i = 100; i < x.size(); i += 1024) x[i] = 40.0f;
  }
  return x;
}

void BM_gemv(benchmark::State& state, ck::DType dt, size_t cycle_bytes, bool spiky = false) {
  const int64_t rows = state.range(0), cols = state.range(1);
  if (cols % ck::traits(dt).block_size != 0) {  // SmolLM2's 576 columns in a K-quant
    state.SkipWithError("cols is not a multiple of the dtype's block size");
    return;
  }
  omp_set_num_threads(static_cast<int>(state.range(2)));
  const Copies c = make_copies(dt, rows, cols, cycle_bytes);
  std::vector<float> x = activations(cols, spiky), y(static_cast<size_t>(rows));
  size_t i = 0;
  for (auto _ : state) {
    ck::gemv(dt, c.bytes.get() + (i++ % c.count) * c.matrix_bytes, rows, cols, x.data(), y.data());
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["GB/s"] =
      benchmark::Counter(static_cast<double>(c.matrix_bytes) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

void Shapes(benchmark::internal::Benchmark* b) {
  for (int threads : {1, 2}) {
    for (auto [rows, cols] : {std::pair{2048, 2048}, {256, 2048}, {5632, 2048}, {2048, 5632}, {32000, 2048}, {3072, 576}}) {
      b->Args({rows, cols, threads});
    }
  }
  b->ArgNames({"rows", "cols", "threads"})->UseRealTime()->MinTime(0.5);
}

BENCHMARK_CAPTURE(BM_gemv, Q4_K, ck::DType::Q4_K, kCycleBytes)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_gemv, Q4_K_L, ck::DType::Q4_K_L, kCycleBytes)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_gemv, Q4_K_R16, ck::DType::Q4_K_R16, kCycleBytes)->Apply(Shapes);
// From DRAM with a quarter of the super-blocks spiky, as a real decode's
// activations often are: their second pass costs the stream 4-9 % on the
// Intel Xeon though the kernel stays 2.3 times faster in cache
// (docs/kernels.md, "Session 55").
BENCHMARK_CAPTURE(BM_gemv, spiky_Q4_K_R16, ck::DType::Q4_K_R16, kCycleBytes, true)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_gemv, Q6_K, ck::DType::Q6_K, kCycleBytes)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_gemv, Q6_K_L, ck::DType::Q6_K_L, kCycleBytes)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_gemv, Q6_K_R16, ck::DType::Q6_K_R16, kCycleBytes)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_gemv, Q8_0, ck::DType::Q8_0, kCycleBytes)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_gemv, Q8_0_R16, ck::DType::Q8_0_R16, kCycleBytes)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_gemv, Q4_0, ck::DType::Q4_0, kCycleBytes)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_gemv, Q4_0_R16, ck::DType::Q4_0_R16, kCycleBytes)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_gemv, Q4_1, ck::DType::Q4_1, kCycleBytes)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_gemv, Q4_1_R16, ck::DType::Q4_1_R16, kCycleBytes)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_gemv, Q5_0, ck::DType::Q5_0, kCycleBytes)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_gemv, Q5_1, ck::DType::Q5_1, kCycleBytes)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_gemv, Q5_0_L, ck::DType::Q5_0_L, kCycleBytes)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_gemv, Q5_0_R16, ck::DType::Q5_0_R16, kCycleBytes)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_gemv, Q3_K, ck::DType::Q3_K, kCycleBytes)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_gemv, Q2_K, ck::DType::Q2_K, kCycleBytes)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_gemv, IQ4_NL, ck::DType::IQ4_NL, kCycleBytes)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_gemv, IQ4_XS, ck::DType::IQ4_XS, kCycleBytes)->Apply(Shapes);

// The compute ceiling: a 1024 x 2048 matrix read again and again from
// cache, one thread, and SmolLM2's ffn_down (576 x 1536); for the dtypes of
// 32-weight blocks also SmolLM2's other row length, 576 (18 blocks: four
// groups of four and a pair, gemv_int8-inl.h). With these, docs/benchmarks.md
// puts a ceiling on SmolLM2's decode that no bandwidth lifts.
void Hot(benchmark::internal::Benchmark* b) {
  b->Args({1024, 2048, 1})->Args({576, 1536, 1})->ArgNames({"rows", "cols", "threads"})->MinTime(0.3);
}
void HotShortRows(benchmark::internal::Benchmark* b) {
  Hot(b);
  b->Args({1024, 576, 1});
}
BENCHMARK_CAPTURE(BM_gemv, hot_Q4_K, ck::DType::Q4_K, kHotBytes)->Apply(Hot);
BENCHMARK_CAPTURE(BM_gemv, hot_Q5_K, ck::DType::Q5_K, kHotBytes)->Apply(Hot);
BENCHMARK_CAPTURE(BM_gemv, hot_Q4_K_L, ck::DType::Q4_K_L, kHotBytes)->Apply(Hot);
BENCHMARK_CAPTURE(BM_gemv, hot_Q4_K_R16, ck::DType::Q4_K_R16, kHotBytes)->Apply(Hot);
BENCHMARK_CAPTURE(BM_gemv, hot_Q5_K_L, ck::DType::Q5_K_L, kHotBytes)->Apply(Hot);
BENCHMARK_CAPTURE(BM_gemv, hot_Q6_K, ck::DType::Q6_K, kHotBytes)->Apply(Hot);
BENCHMARK_CAPTURE(BM_gemv, hot_Q6_K_L, ck::DType::Q6_K_L, kHotBytes)->Apply(Hot);
BENCHMARK_CAPTURE(BM_gemv, hot_Q6_K_R16, ck::DType::Q6_K_R16, kHotBytes)->Apply(Hot);
BENCHMARK_CAPTURE(BM_gemv, hot_spiky_Q4_K_L, ck::DType::Q4_K_L, kHotBytes, true)->Apply(Hot);
BENCHMARK_CAPTURE(BM_gemv, hot_spiky_Q4_K_R16, ck::DType::Q4_K_R16, kHotBytes, true)->Apply(Hot);
BENCHMARK_CAPTURE(BM_gemv, hot_spiky_Q5_K_L, ck::DType::Q5_K_L, kHotBytes, true)->Apply(Hot);
BENCHMARK_CAPTURE(BM_gemv, hot_spiky_Q6_K, ck::DType::Q6_K, kHotBytes, true)->Apply(Hot);
BENCHMARK_CAPTURE(BM_gemv, hot_spiky_Q6_K_L, ck::DType::Q6_K_L, kHotBytes, true)->Apply(Hot);
BENCHMARK_CAPTURE(BM_gemv, hot_spiky_Q6_K_R16, ck::DType::Q6_K_R16, kHotBytes, true)->Apply(Hot);
BENCHMARK_CAPTURE(BM_gemv, hot_Q8_0, ck::DType::Q8_0, kHotBytes)->Apply(HotShortRows);
BENCHMARK_CAPTURE(BM_gemv, hot_Q8_0_R16, ck::DType::Q8_0_R16, kHotBytes)->Apply(HotShortRows);
BENCHMARK_CAPTURE(BM_gemv, hot_Q4_0, ck::DType::Q4_0, kHotBytes)->Apply(HotShortRows);
BENCHMARK_CAPTURE(BM_gemv, hot_Q4_0_R16, ck::DType::Q4_0_R16, kHotBytes)->Apply(HotShortRows);
BENCHMARK_CAPTURE(BM_gemv, hot_Q4_1, ck::DType::Q4_1, kHotBytes)->Apply(HotShortRows);
BENCHMARK_CAPTURE(BM_gemv, hot_Q4_1_R16, ck::DType::Q4_1_R16, kHotBytes)->Apply(HotShortRows);
BENCHMARK_CAPTURE(BM_gemv, hot_Q5_0, ck::DType::Q5_0, kHotBytes)->Apply(HotShortRows);
BENCHMARK_CAPTURE(BM_gemv, hot_Q5_1, ck::DType::Q5_1, kHotBytes)->Apply(HotShortRows);
BENCHMARK_CAPTURE(BM_gemv, hot_Q5_0_L, ck::DType::Q5_0_L, kHotBytes)->Apply(HotShortRows);
BENCHMARK_CAPTURE(BM_gemv, hot_Q5_1_L, ck::DType::Q5_1_L, kHotBytes)->Apply(HotShortRows);
BENCHMARK_CAPTURE(BM_gemv, hot_Q5_0_R16, ck::DType::Q5_0_R16, kHotBytes)->Apply(HotShortRows);
BENCHMARK_CAPTURE(BM_gemv, hot_Q5_1_R16, ck::DType::Q5_1_R16, kHotBytes)->Apply(HotShortRows);
BENCHMARK_CAPTURE(BM_gemv, hot_Q3_K, ck::DType::Q3_K, kHotBytes)->Apply(Hot);
BENCHMARK_CAPTURE(BM_gemv, hot_Q2_K, ck::DType::Q2_K, kHotBytes)->Apply(Hot);
BENCHMARK_CAPTURE(BM_gemv, hot_IQ4_NL, ck::DType::IQ4_NL, kHotBytes)->Apply(Hot);
BENCHMARK_CAPTURE(BM_gemv, hot_IQ4_XS, ck::DType::IQ4_XS, kHotBytes)->Apply(Hot);
BENCHMARK_CAPTURE(BM_gemv, hot_F16, ck::DType::F16, kHotBytes)->Apply(Hot);

// Prefill: n activations against one matrix (weights from cache: compute
// bound), in GFLOP/s (2 * rows * cols * n per call).
void BM_gemm(benchmark::State& state, ck::DType dt) {
  const int64_t rows = state.range(0), cols = state.range(1), n = state.range(2);
  omp_set_num_threads(static_cast<int>(state.range(3)));
  const Copies c = make_copies(dt, rows, cols, kHotBytes);
  // Normal activations: the integer GEMM's cost depends on their spread
  // (spiky blocks take a second pass, kernels/gemm.cc).
  std::vector<float> X(static_cast<size_t>(n * cols)), Y(static_cast<size_t>(n * rows));
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (auto& v : X) v = normal(rng);
  for (auto _ : state) {
    ck::gemm(dt, c.bytes.get(), rows, cols, X.data(), n, Y.data());
    benchmark::DoNotOptimize(Y.data());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * static_cast<double>(rows * cols * n) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}
void GemmShapes(benchmark::internal::Benchmark* b) {
  b->Args({2048, 2048, 64, 1})->Args({2048, 2048, 64, 2})->Args({5632, 2048, 64, 2})->Args({2048, 2048, 512, 1});
  b->Args({2048, 5632, 512, 1});
  b->ArgNames({"rows", "cols", "n", "threads"})->UseRealTime()->Unit(benchmark::kMillisecond);
}
// Also SmolLM2's (576 columns: the dtypes of 32-weight blocks only): gate
// and up together, down.
void GemmShapesWithShortRows(benchmark::internal::Benchmark* b) {
  GemmShapes(b);
  b->Args({3072, 576, 512, 1})->Args({576, 1536, 512, 1});
}
BENCHMARK_CAPTURE(BM_gemm, Q4_K, ck::DType::Q4_K)->Apply(GemmShapes);
BENCHMARK_CAPTURE(BM_gemm, Q6_K, ck::DType::Q6_K)->Apply(GemmShapes);
BENCHMARK_CAPTURE(BM_gemm, Q6_K_L, ck::DType::Q6_K_L)->Apply(GemmShapes);
BENCHMARK_CAPTURE(BM_gemm, Q8_0, ck::DType::Q8_0)->Apply(GemmShapesWithShortRows);
BENCHMARK_CAPTURE(BM_gemm, Q8_0_R16, ck::DType::Q8_0_R16)->Apply(GemmShapesWithShortRows);
BENCHMARK_CAPTURE(BM_gemm, Q4_1, ck::DType::Q4_1)->Apply(GemmShapesWithShortRows);
BENCHMARK_CAPTURE(BM_gemm, Q4_1_R16, ck::DType::Q4_1_R16)->Apply(GemmShapesWithShortRows);
BENCHMARK_CAPTURE(BM_gemm, Q5_0, ck::DType::Q5_0)->Apply(GemmShapesWithShortRows);
BENCHMARK_CAPTURE(BM_gemm, Q5_0_L, ck::DType::Q5_0_L)->Apply(GemmShapesWithShortRows);
BENCHMARK_CAPTURE(BM_gemm, Q5_0_R16, ck::DType::Q5_0_R16)->Apply(GemmShapesWithShortRows);

// Quantizer throughput (one thread), in weights per second.
void BM_quantize(benchmark::State& state, ck::DType dt) {
  omp_set_num_threads(1);
  const int64_t n = 1 << 20;
  std::mt19937 rng(2);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<float> w(static_cast<size_t>(n));
  for (auto& v : w) v = normal(rng);
  std::vector<uint8_t> out(ck::row_bytes(ck::traits(dt), n));
  for (auto _ : state) ck::quantize(dt, w.data(), out.data(), n);
  state.counters["weights/s"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK_CAPTURE(BM_quantize, Q4_K, ck::DType::Q4_K)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_quantize, Q6_K, ck::DType::Q6_K)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_quantize, Q8_0, ck::DType::Q8_0)->Unit(benchmark::kMillisecond);

void BM_read_bandwidth(benchmark::State& state) {
  double gbs = 0;
  for (auto _ : state) gbs = ck::measure_read_bandwidth_gbs(static_cast<int>(state.range(0)));
  state.counters["GB/s"] = gbs;
}
BENCHMARK(BM_read_bandwidth)->Arg(1)->Arg(2)->ArgName("threads")->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
