// The synthetic-model writer: llama.cpp's Q4_K_M mix for the TinyLlama
// shape, and files that gguf-py reads back to the same bytes and values.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "apps/make-synthetic/synthetic_model.h"
#include "loader/gguf_reader.h"
#include "loader/model_config.h"
#include "tests/kernels/oracle.h"

namespace ck {

TEST_CASE("Q4_K_M mix at the TinyLlama shape is the one of issue 3", "[synthetic]") {
  const std::vector<int64_t> more_bits = {0, 1, 4, 7, 10, 13, 16, 19, 20, 21};
  for (int64_t l = 0; l < 22; ++l) {
    const bool q6 = std::find(more_bits.begin(), more_bits.end(), l) != more_bits.end();
    INFO("layer " << l);
    CHECK(matrix_type(QuantMix::Q4_K_M, "attn_v", l, 22) == (q6 ? DType::Q6_K : DType::Q4_K));
    CHECK(matrix_type(QuantMix::Q4_K_M, "ffn_down", l, 22) == (q6 ? DType::Q6_K : DType::Q4_K));
    for (const char* role : {"attn_q", "attn_k", "attn_output", "ffn_gate", "ffn_up"}) {
      CHECK(matrix_type(QuantMix::Q4_K_M, role, l, 22) == DType::Q4_K);
    }
  }
  CHECK(matrix_type(QuantMix::Q4_K_M, "output", -1, 22) == DType::Q6_K);
  CHECK(matrix_type(QuantMix::Q4_K_M, "token_embd", -1, 22) == DType::Q4_K);
  CHECK(matrix_type(QuantMix::Q8_0, "attn_v", 3, 22) == DType::Q8_0);
  CHECK(matrix_type(QuantMix::Q6_K, "token_embd", -1, 22) == DType::Q6_K);
}

TEST_CASE("a synthetic model reads back through gguf-py and our loader", "[synthetic]") {
  test::ScratchDir scratch;
  const std::string vocab = std::string(CK_SHARED_DATA) + "/models/stories260K.gguf";
  const auto path = scratch.file("synthetic.gguf");
  SyntheticOptions o;
  o.shape = {.dim = 256, .n_layers = 3, .n_heads = 4, .n_kv_heads = 4, .ffn_dim = 512, .context_len = 128};
  const SyntheticStats stats = write_synthetic_model(vocab, path, o);
  CHECK(stats.n_params == 512 * 256 * 2 + 3 * (256 * 256 * 4 + 3 * 256 * 512 + 2 * 256) + 256);

  const GgufFile file = GgufFile::open(path);
  const ModelConfig config = config_from_metadata(file.metadata(), path.string());
  CHECK(config.arch == "llama");
  CHECK(config.dim == 256);
  CHECK(config.n_layers == 3);
  CHECK(config.vocab_size == 512);
  CHECK(config.ffn_dim == 512);
  CHECK(file.metadata().get_string("tokenizer.ggml.model") == "llama");

  const std::vector<std::string> names = {"token_embd.weight", "blk.2.attn_v.weight", "blk.0.ffn_down.weight",
                                          "output.weight", "blk.1.attn_norm.weight"};
  const std::vector<DType> types = {DType::Q4_K, DType::Q6_K, DType::Q4_K, DType::Q6_K, DType::F32};
  std::vector<std::string> jobs;
  for (size_t i = 0; i < names.size(); ++i) {
    jobs.push_back("tensor " + path.string() + " " + names[i] + " 100000 " + scratch.file(std::to_string(i) + ".raw").string() +
                   " " + scratch.file(std::to_string(i) + ".f32").string());
  }
  test::run_oracle(jobs, scratch);
  for (size_t i = 0; i < names.size(); ++i) {
    INFO(names[i]);
    const GgufTensorInfo* t = file.find(names[i]);
    REQUIRE(t != nullptr);
    CHECK(t->type == types[i]);
    const auto data = file.tensor_data(*t);
    const std::vector<uint8_t> ours(data.begin(), data.end());
    CHECK(ours == test::read_bytes(scratch.file(std::to_string(i) + ".raw")));
    std::vector<float> values(static_cast<size_t>(t->n_elements()));
    traits(t->type).dequantize(data.data(), values.data(), t->n_elements());
    CHECK(test::first_bit_mismatch(values, test::read_floats(scratch.file(std::to_string(i) + ".f32"))) == -1);
    double sum2 = 0;
    for (float v : values) sum2 += static_cast<double>(v) * v;
    const double rms = std::sqrt(sum2 / static_cast<double>(values.size()));
    CHECK(rms == Approx(t->type == DType::F32 ? 1.0 : o.weight_std).epsilon(0.05));
  }
}

TEST_CASE("synthetic model shapes the K-quants cannot hold are refused", "[synthetic]") {
  test::ScratchDir scratch;
  SyntheticOptions o;
  o.shape = {.dim = 200, .n_layers = 1, .n_heads = 4, .n_kv_heads = 4, .ffn_dim = 512, .context_len = 128};
  CHECK_THROWS_WITH(write_synthetic_model(std::string(CK_SHARED_DATA) + "/models/stories260K.gguf",
                                          scratch.file("x.gguf"), o),
                    Catch::Contains("multiples of 256"));
}

}  // namespace ck
