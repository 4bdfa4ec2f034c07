// Puts a mapped model file's page cache back into 2 MiB folios where it has
// come apart, so decode reads its weights through 2 MiB pages.
//
// Why: a page cache that holds part of a 2 MiB-aligned stretch of the file
// in small folios maps it in 4 KiB pages for as long as it keeps them, and
// decode then reads those weights 10-25 % slower (docs/kernels.md, "Session
// 52"). Partial eviction does this: a reclaimer that pages out some of a
// file while no process maps it (this host's DAMON pages out page cache
// that nobody has mapped for a minute), or the file read through read().
// The stretch read back whole while nobody else maps it comes back in one
// 2 MiB folio.
#pragma once

#include <cstdint>

namespace ck {

class MappedFile;

struct HugePageMend {
  bool scanned = false;      // the kernel said which stretches it maps in 2 MiB pages
  uint64_t chunks = 0;       // 2 MiB-aligned stretches wholly inside the file
  uint64_t cached = 0;       // of them, in the page cache at the start, whole or in part
  uint64_t huge_before = 0;  // of them, mapped in 2 MiB pages at the start
  uint64_t reread = 0;       // dropped from the page cache and read back
  uint64_t huge_after = 0;   // mapped in 2 MiB pages at the end
};

// For every 2 MiB stretch of `file` the page cache holds, whole or in part,
// but that is not mapped in a 2 MiB page: drops the stretch from the page
// cache and reads it back through the mapping. Stretches not cached at all
// are left to be read on demand (they come in whole). The mapping is left
// populated where the file was cached.
//
// Needs the kernel's PAGEMAP_SCAN (Linux 6.7): without it, it changes
// nothing and reports scanned = false. Where the first stretch read back
// does not come in a 2 MiB folio (file huge pages off, a file system
// without large folios, another process mapping it), it stops there.
HugePageMend mend_huge_pages(const MappedFile& file);

}  // namespace ck
