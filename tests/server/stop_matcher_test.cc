#include <catch2/catch.hpp>

#include "apps/server/stop_matcher.h"

using ck::server::StopMatcher;

TEST_CASE("stop strings end the text before them, also across pieces", "[server][stop]") {
  StopMatcher m({"</s>", "\n\n"});
  std::string shown;
  for (const char* piece : {"Hello", " wor", "ld<", "/", "s> after"}) shown += m.push(piece);
  REQUIRE(m.stopped());
  REQUIRE(shown == "Hello world");
  REQUIRE(m.push("more").empty());
  REQUIRE(m.flush().empty());
}

TEST_CASE("text that may begin a stop string is held back, and released when it does not", "[server][stop]") {
  StopMatcher m({"STOP"});
  REQUIRE(m.push("abc ST") == "abc ");  // "ST" may begin STOP
  REQUIRE(m.push("O") == "");
  REQUIRE(m.push("X") == "STOX");       // it did not
  REQUIRE(m.push("S") == "");
  REQUIRE(m.flush() == "S");             // generation ended without it
  REQUIRE_FALSE(m.stopped());
}

TEST_CASE("the earliest stop string wins; empty ones are ignored", "[server][stop]") {
  StopMatcher m({"", "cd", "b"});
  REQUIRE(m.push("abcd") == "a");
  StopMatcher none;
  REQUIRE(none.push("anything") == "anything");
}
