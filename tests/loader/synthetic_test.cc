// A random qwen2 model written by the gguf package (make_synthetic_gguf.py)
// with every tensor type: the converter must copy native types byte for
// byte, widen F16 vectors to F32 exactly, transcode gate/up pairs of two
// types to Q8_0 within its rounding, keep real q/k/v biases, and record
// qwen2's NeoX RoPE.
#include <catch2/catch.hpp>
#include <cstdlib>

#include "kernels/unit_lanes.h"
#include "loader/bump_file.h"
#include "loader/convert.h"
#include "loader/gguf_reader.h"
#include "tests/apps/subprocess.h"
#include "tests/kernels/oracle.h"
#include "tests/loader/golden_check.h"

namespace ck::test {
namespace {

// A GGUF in dir written by make_synthetic_gguf.py with its arguments after the file name.
std::filesystem::path synthetic_gguf(const ScratchDir& dir, const std::string& args = "") {
  const auto gguf = dir.file("syn.gguf");
  const std::string make = std::string("python3 '") + CK_SOURCE_DIR + "/tests/loader/make_synthetic_gguf.py' '" +
                           gguf.string() + "' " + args;
  REQUIRE(std::system(make.c_str()) == 0);
  return gguf;
}

TEST_CASE("a qwen2 model with every tensor type converts as documented", "[convert][synthetic]") {
  ScratchDir dir;
  const auto gguf = synthetic_gguf(dir);
  const auto bump = dir.file("syn.bump");
  const ConvertStats stats = convert_gguf_to_bump(gguf, bump);
  CHECK(stats.transcoded == 7);  // both layers' gate/up pairs and three F16 norms widened to F32
  const BumpFile b = BumpFile::open(bump, {.verify = true});

  const ModelConfig& c = b.config();
  CHECK(c.arch == "qwen2");
  CHECK(c.rope_neox);
  CHECK(c.qkv_bias);
  CHECK_FALSE(c.tied_output);
  CHECK(c.n_heads == 4);
  CHECK(c.n_kv_heads == 2);
  CHECK(c.head_dim == 64);
  CHECK(c.rope_base == 1e6f);
  CHECK(c.rms_eps == 1e-6f);
  CHECK(b.output().dtype == DType::Q6_K_R16);
  CHECK(b.layers()[0].wo.dtype == DType::Q8_0_R16);
  CHECK(b.layers()[1].bk.rows == 1);
  CHECK(b.layers()[1].bk.cols == 128);

  const GgufFile g = GgufFile::open(gguf);
  std::vector<std::string> jobs;
  for (size_t i = 0; i < g.tensors().size(); ++i) {
    const GgufTensorInfo& t = g.tensors()[i];
    // The oracle slices the first axis of gguf-py's array: values for vectors, rows for matrices.
    const int64_t rows = t.ne.size() == 1 ? t.cols() : t.rows();
    jobs.push_back("tensor " + gguf.string() + " " + t.name + " " + std::to_string(rows) + " " +
                   dir.file(std::to_string(i) + ".raw").string() + " " + dir.file(std::to_string(i) + ".f32").string());
  }
  run_oracle(jobs, dir);

  // Stacked gate/up of different types are both transcoded.
  auto pair_differs = [&](const std::string& name) {
    const auto layer = name.substr(0, name.find(".ffn_"));
    return (name.ends_with(".ffn_gate.weight") || name.ends_with(".ffn_up.weight")) &&
           g.find(layer + ".ffn_gate.weight")->type != g.find(layer + ".ffn_up.weight")->type;
  };
  for (size_t i = 0; i < g.tensors().size(); ++i) {
    const GgufTensorInfo& t = g.tensors()[i];
    INFO(t.name << " (" << traits(t.type).name << ")");
    const auto view = b.find(t.name);
    REQUIRE(view.has_value());
    const std::vector<uint8_t> raw = read_bytes(dir.file(std::to_string(i) + ".raw"));
    const std::vector<float> ref = read_floats(dir.file(std::to_string(i) + ".f32"));
    const std::span<const uint8_t> ours(static_cast<const uint8_t*>(view->data), view->bytes);
    if (t.ne.size() == 1) {  // vector: F32, exactly gguf-py's values
      CHECK(view->dtype == DType::F32);
      CHECK(first_bit_mismatch(std::vector<float>(view->f32(), view->f32() + view->cols), ref) == -1);
    } else if (traits(t.type).native && !pair_differs(t.name)) {
      // copied (Q4_K, Q5_K, ...: permuted block by block; Q8_0, Q5_0, ...: rows interleaved by 16)
      CHECK(view->dtype == stored_form(t.type, t.rows()));
      std::vector<uint8_t> stored = raw;
      to_stored_rows(view->dtype, stored.data(), t.rows(), t.cols());
      CHECK(std::vector<uint8_t>(ours.begin(), ours.end()) == stored);
      // and its values are gguf-py's, bit for bit
      std::vector<float> values(ref.size());
      for (int64_t r = 0; r < t.rows(); ++r) dequantize_row(view->dtype, view->data, t.cols(), r, values.data() + r * t.cols());
      CHECK(first_bit_mismatch(values, ref) == -1);
    } else {  // transcoded
      check_requantized(*view, ref);
    }
  }

  // ck-convert --dump of a GGUF tensor is gguf-py's dequantize, bit for bit,
  // for a legacy quant, a K-quant and a 16-bit float type.
  for (const std::string name : {"blk.0.ffn_gate.weight", "blk.1.attn_v.weight", "blk.0.attn_v.weight"}) {
    INFO("--dump " << name);
    size_t i = 0;
    while (g.tensors()[i].name != name) ++i;
    const ProcessResult r = run_app({"ck-convert", "--dump", name, gguf.string(), "-o", dir.file("d.f32").string()});
    CHECK(r.exit_code == 0);
    CHECK(first_bit_mismatch(read_floats(dir.file("d.f32")), read_floats(dir.file(std::to_string(i) + ".f32"))) == -1);
  }
}

// Q8_0_R16 needs whole groups of 16 rows in every part the forward pass
// reads: phi3's fused ffn_up holds gate and up, 40 rows each, so it stays
// Q8_0, while the q, k, v parts cut from attn_qkv (64, 32, 32 rows) and the
// other Q8_0 matrices are grouped.
TEST_CASE("a fused gate/up whose halves are not whole groups of 16 rows stays Q8_0", "[convert][synthetic]") {
  ScratchDir dir;
  const auto gguf = synthetic_gguf(dir, "fused");
  const auto bump = dir.file("fused.bump");
  convert_gguf_to_bump(gguf, bump);
  const BumpFile b = BumpFile::open(bump, {.verify = true});
  const LayerView& L = b.layers()[0];
  CHECK(L.w_gate_up.dtype == DType::Q8_0);
  CHECK(L.w_gate_up.rows == 80);
  for (const TensorView* t : {&L.wq, &L.wk, &L.wv, &L.wo}) CHECK(t->dtype == DType::Q8_0_R16);
  CHECK(b.token_embd().dtype == DType::Q8_0_R16);
  CHECK(b.output().dtype == DType::Q8_0_R16);
  const GgufFile g = GgufFile::open(gguf);
  const std::span<const uint8_t> up = g.tensor_data(*g.find("blk.0.ffn_up.weight"));
  CHECK(std::vector<uint8_t>(up.begin(), up.end()) ==
        std::vector<uint8_t>(static_cast<const uint8_t*>(L.w_gate_up.data),
                             static_cast<const uint8_t*>(L.w_gate_up.data) + L.w_gate_up.bytes));
}

}  // namespace
}  // namespace ck::test
