// Features the forward pass does not implement are refused by name.
#include <catch2/catch.hpp>

#include "loader/metadata.h"
#include "runtime/features.h"

TEST_CASE("unsupported model features are refused, naming the feature and key", "[features]") {
  ck::Metadata plain("m.gguf");
  plain.set_u32("llama.block_count", 2);
  REQUIRE_NOTHROW(ck::refuse_unsupported_features(plain, "llama", "m.gguf"));

  auto with = [&](auto set) {
    ck::Metadata m = plain;
    set(m);
    return m;
  };
  REQUIRE_THROWS_WITH(
      ck::refuse_unsupported_features(with([](ck::Metadata& m) { m.set_u32("llama.attention.sliding_window", 4096); }),
                                      "llama", "m.gguf"),
      Catch::Contains("sliding-window attention (llama.attention.sliding_window)"));
  REQUIRE_THROWS_WITH(
      ck::refuse_unsupported_features(with([](ck::Metadata& m) { m.set_u32("qwen2.expert_count", 8); }), "qwen2",
                                      "m.gguf"),
      Catch::Contains("mixture of experts"));
  REQUIRE_NOTHROW(ck::refuse_unsupported_features(
      with([](ck::Metadata& m) { m.set_u32("llama.expert_count", 0); }), "llama", "m.gguf"));
  REQUIRE_THROWS_WITH(
      ck::refuse_unsupported_features(with([](ck::Metadata& m) { m.set_string("llama.rope.scaling.type", "yarn"); }),
                                      "llama", "m.gguf"),
      Catch::Contains("RoPE scaling 'yarn'"));
  REQUIRE_NOTHROW(ck::refuse_unsupported_features(
      with([](ck::Metadata& m) { m.set_string("llama.rope.scaling.type", "none"); }), "llama", "m.gguf"));
  REQUIRE_NOTHROW(ck::refuse_unsupported_features(
      with([](ck::Metadata& m) { m.set_string("llama.rope.scaling.type", "linear"); }), "llama", "m.gguf"));
  REQUIRE_NOTHROW(ck::refuse_unsupported_features(
      with([](ck::Metadata& m) { m.set_u32("gemma3.attention.sliding_window", 512); }), "gemma3", "m.gguf"));
  REQUIRE_THROWS_WITH(ck::refuse_unsupported_features(
                          with([](ck::Metadata& m) { m.set_u32("llama.attention.layer_norm_epsilon", 1); }), "llama",
                          "m.gguf"),
                      Catch::Contains("LayerNorm"));
}
