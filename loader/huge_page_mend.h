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
#include <functional>

namespace ck {

class MappedFile;

struct HugePageMend {
  bool scanned = false;      // the kernel said which stretches it maps in 2 MiB pages
  uint64_t chunks = 0;       // 2 MiB-aligned stretches wholly inside the file
  uint64_t cached = 0;       // of them, in the page cache at the start, whole or in part
  uint64_t read_in = 0;      // of them, not cached at the start and read in (ReadIn)
  uint64_t huge_before = 0;  // of them, mapped in 2 MiB pages once the cached ones were mapped
  uint64_t reread = 0;       // dropped from the page cache and read back
  uint64_t huge_after = 0;   // mapped in 2 MiB pages at the end
};

// What to do with the stretches the page cache does not hold at all.
enum class Uncached {
  kLeave,   // leave them to be read on demand
  kReadIn,  // read them in now, in file order
};

// Maps `file`'s stretches that the page cache holds (and with ReadIn the
// ones it does not), then drops each one that is not mapped in a 2 MiB page
// from the page cache and reads it back. Read in file order, at load, a
// stretch comes in as one 2 MiB folio; read on demand by the forward pass,
// some came in small folios (1.1B Q8_0 on the Intel Xeon: 958 of 1116 MB in
// 2 MiB pages after a prefill run with 2 threads).
//
// Needs the kernel's PAGEMAP_SCAN (Linux 6.7): without it, it only reads
// in (ReadIn) and reports scanned = false. Where the first stretch read
// back does not come in a 2 MiB folio (file huge pages off, a file system
// without large folios, another process mapping it), it stops there.
//
// With ReadIn, `progress` is called after each stretch of the first pass
// with the bytes of the stretches done and of all of them: reading a large
// model from disk takes seconds.
HugePageMend mend_huge_pages(const MappedFile& file, Uncached uncached,
                             const std::function<void(uint64_t done, uint64_t total)>& progress = {});

}  // namespace ck
