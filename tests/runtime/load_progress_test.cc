// Model::load reports its long steps as they go (LoadOptions::progress): a
// GGUF's first-run conversion, from its first bytes to its last, and no
// conversion once the bump exists. (The weights' read from disk reports
// per 2 MiB stretch: tests/loader/huge_page_mend_test.cc.)
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/model.h"
#include "tests/kernels/oracle.h"

namespace {

struct Report {
  std::string step;
  uint64_t done, total;
};

std::vector<Report> load_reporting(const std::filesystem::path& gguf) {
  std::vector<Report> reports;
  const auto model = ck::Model::load(gguf, {.progress = [&](std::string_view step, uint64_t done, uint64_t total) {
                                         reports.push_back({std::string(step), done, total});
                                       }});
  REQUIRE(model != nullptr);
  return reports;
}

}  // namespace

TEST_CASE("Model::load reports a GGUF's conversion as it goes, and only the first time", "[model][progress]") {
  const ck::test::ScratchDir dir;
  const auto gguf = dir.file("stories260K.gguf");
  std::filesystem::copy_file(std::filesystem::path(CK_SHARED_DATA) / "models/stories260K.gguf", gguf);

  const std::vector<Report> first = load_reporting(gguf);
  REQUIRE(std::filesystem::exists(dir.file("stories260K.bump")));
  std::vector<Report> converting;
  for (const Report& r : first) {
    if (r.step == "converting") converting.push_back(r);
  }
  REQUIRE(converting.size() >= 2);
  for (size_t i = 0; i < converting.size(); ++i) {
    CHECK(converting[i].total == converting.front().total);
    CHECK(converting[i].done <= converting[i].total);
    if (i > 0) CHECK(converting[i].done >= converting[i - 1].done);
  }
  CHECK(converting.front().done < converting.front().total);
  CHECK(converting.back().done == converting.back().total);
  CHECK(converting.back().total > 0);

  for (const Report& r : load_reporting(gguf)) CHECK(r.step != "converting");
}
