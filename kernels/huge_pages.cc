#include "kernels/huge_pages.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <new>

namespace ck {

void FreeHugePages::operator()(uint8_t* p) const { std::free(p); }

HugePageBuffer allocate_huge_pages(size_t bytes) {
  const size_t rounded = std::max<size_t>(1, (bytes + kHugePageBytes - 1) / kHugePageBytes) * kHugePageBytes;
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(kHugePageBytes, rounded));
  if (p == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: an error changes nothing
#endif
  return HugePageBuffer(p);
}

}  // namespace ck
