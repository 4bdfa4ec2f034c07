// The pure parts behind -e and -r: escape processing as llama.cpp's
// string_process_escapes, and stop strings found across token boundaries.
#include <catch2/catch.hpp>

#include "apps/common/escapes.h"
#include "apps/common/sampling_flags.h"
#include "apps/common/stop_strings.h"

using ck::app::process_escapes;

TEST_CASE("escapes: the ones llama.cpp knows, and a backslash before anything else stays", "[flags][issue13]") {
  CHECK(process_escapes(R"(a\nb\tc\rd)") == "a\nb\tc\rd");
  CHECK(process_escapes(R"(\'\"\\)") == "'\"\\");
  CHECK(process_escapes(R"(\x41\x7a!)") == "Az!");
  CHECK(process_escapes(R"(\x4)") == R"(\x4)");   // too short: kept
  CHECK(process_escapes(R"(\xZZ)") == R"(\xZZ)");  // not hex: kept
  CHECK(process_escapes(R"(\q \)") == R"(\q \)");   // unknown, and a final backslash
  CHECK(process_escapes(R"(\\n)") == R"(\n)");     // an escaped backslash, then a plain n
}

TEST_CASE("stop strings match across token boundaries", "[flags][issue13]") {
  ck::app::StopStrings stops({"User:", "\n\n"});
  CHECK_FALSE(stops.push("Hello"));
  CHECK_FALSE(stops.push(" Us"));
  CHECK(stops.push("er: hi"));
  stops.reset();
  CHECK_FALSE(stops.push("a\n"));
  CHECK(stops.push("\nb"));
  ck::app::StopStrings none({""});
  CHECK(none.empty());
  CHECK_FALSE(none.push("anything"));
}

TEST_CASE("the logit bias syntax TOKEN_ID(+/-)BIAS", "[flags][issue13]") {
  CHECK(ck::app::parse_logit_bias("15043+1").token == 15043);
  CHECK(ck::app::parse_logit_bias("15043+1").bias == 1.0f);
  CHECK(ck::app::parse_logit_bias("7-0.5").bias == -0.5f);
  CHECK(ck::app::parse_logit_bias("7-inf").bias == -INFINITY);
  for (const char* bad : {"", "7", "+1", "7+", "7*1", "7+x", "x+1", "7+-1", "7+nan"}) {
    INFO(bad);
    CHECK_THROWS_WITH(ck::app::parse_logit_bias(bad), Catch::Contains("expected TOKEN_ID(+/-)BIAS"));
  }
}
