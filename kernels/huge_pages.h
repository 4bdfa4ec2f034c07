// Buffers in 2 MiB pages, for the measurements of DRAM reads: the model
// file is mapped so (loader/mapped_file.cc), and a read of 4 KiB pages pays
// a TLB miss every 4 KiB that the model's reads do not (docs/benchmarks.md,
// session 28).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace ck {

// The x86-64 transparent huge page.
inline constexpr size_t kHugePageBytes = size_t{2} << 20;

struct FreeHugePages {
  void operator()(uint8_t* p) const;
};
using HugePageBuffer = std::unique_ptr<uint8_t[], FreeHugePages>;

// `bytes` (rounded up to 2 MiB, at least one page) at a 2 MiB boundary, advised into 2 MiB
// pages (MADV_HUGEPAGE: the kernel may still give 4 KiB ones). Throws
// std::bad_alloc when the memory is not there.
HugePageBuffer allocate_huge_pages(size_t bytes);

}  // namespace ck
