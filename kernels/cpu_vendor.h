// Facts about the CPU that the kernels' memory access depends on, read from
// CPUID once.
#pragma once

namespace ck {

// True on AMD's cores (and Hygon's, the same design), which fill L1 for
// every prefetch hint (AMD's optimization guides): there a prefetcht2 is no
// cheaper than a prefetcht0, and software prefetches hold L1 fill buffers
// that the hardware prefetcher would otherwise use.
bool prefetch_hints_all_fill_l1();

}  // namespace ck
