// mapping_pages: what /proc/self/smaps says of the mapping that holds an
// address (loader/mapped_file.h).
#include "loader/mapped_file.h"

#include <catch2/catch.hpp>
#include <numeric>
#include <vector>

#include "tests/kernels/oracle.h"

namespace ck {

TEST_CASE("mapping_pages counts a touched file mapping as resident, and nothing outside any mapping",
          "[loader][mapped_file]") {
  test::ScratchDir dir;
  std::vector<uint8_t> bytes(3 << 20);
  std::iota(bytes.begin(), bytes.end(), uint8_t{0});
  test::write_bytes(dir.file("pages.bin"), bytes.data(), bytes.size());
  const MappedFile file = MappedFile::open(dir.file("pages.bin"));
  uint64_t sum = 0;
  for (size_t i = 1; i < file.size(); i += 4096) sum += file.data()[i];  // touch every page
  CHECK(sum > 0);
  // Any byte of the mapping names it: the first, one in the middle, the last.
  for (const size_t at : {size_t{0}, file.size() / 2, file.size() - 1}) {
    const MappingPages pages = mapping_pages(file.data() + at);
    CHECK(pages.resident_bytes == file.size());
    CHECK(pages.huge_bytes <= pages.resident_bytes);
    CHECK(pages.huge_bytes % (2 << 20) == 0);
  }
  const MappingPages none = mapping_pages(nullptr);
  CHECK(none.resident_bytes == 0);
  CHECK(none.huge_bytes == 0);
}

}  // namespace ck
