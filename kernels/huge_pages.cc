#include "kernels/huge_pages.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace ck {

void FreeHugePages::operator()(uint8_t* p) const { std::free(p); }

HugePageBuffer allocate_huge_pages(size_t bytes) {
  constexpr size_t kHuge = size_t{2} << 20;
  const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(kHuge, rounded == 0 ? kHuge : rounded));
  if (p == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: an error changes nothing
#endif
  return HugePageBuffer(p);
}

}  // namespace ck
