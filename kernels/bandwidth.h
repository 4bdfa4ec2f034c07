// A probe of the machine's memory read bandwidth, the yardstick of every
// GEMV figure (decode streams the weights once per token).
#pragma once

namespace ck {

// Best of a few passes of `threads` OpenMP threads summing their share of a
// 1 GiB buffer in 2 MiB pages (larger than any last-level cache we
// expect; the pages as the model file's), in GB/s
// (1e9 bytes per second). Takes about a second; allocates the buffer per call.
double measure_read_bandwidth_gbs(int threads);

}  // namespace ck
