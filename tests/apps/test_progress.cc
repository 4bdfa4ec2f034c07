#include <catch2/catch.hpp>

#include "apps/common/progress.h"

TEST_CASE("format_duration is compact", "[progress]") {
  CHECK(ck::app::format_duration(0) == "0s");
  CHECK(ck::app::format_duration(42.4) == "42s");
  CHECK(ck::app::format_duration(187) == "3:07");
  CHECK(ck::app::format_duration(3723) == "1:02:03");
  CHECK(ck::app::format_duration(-5) == "0s");
}
