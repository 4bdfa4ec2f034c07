// GGUF -> bump conversion of the real models, read back through BumpFile and
// compared with what the gguf Python package reads from the GGUF: tensor
// bytes (SHA-256 from the goldens), metadata, config.json. (Transcoding is
// tested on the synthetic models of synthetic_test.cc.)
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <vector>

#include "kernels/row_groups.h"
#include "kernels/unit_lanes.h"
#include "loader/bump_file.h"
#include "loader/convert.h"
#include "loader/gguf_reader.h"
#include "loader/sha256.h"
#include "loader/source_fingerprint.h"
#include "loader/vocab_reader.h"
#include "tests/kernels/oracle.h"
#include "tests/loader/golden_check.h"
#include "tests/loader/support.h"

namespace ck::test {
namespace {

using nlohmann::json;

const json& golden_key(const json& golden, const std::string& key) {
  for (const auto& g : golden["metadata"]) {
    if (g["key"] == key) return g["value"];
  }
  FAIL("golden has no key " << key);
  return golden;
}

int64_t elements(const json& ne) {
  int64_t n = 1;
  for (const auto& d : ne) n *= d.get<int64_t>();
  return n;
}

// Layout facts every bump must satisfy, whatever the model.
void check_layout(const BumpFile& b) {
  uint64_t end = 0;
  for (const BumpFile::Slot& s : b.slots()) {
    INFO("slot " << s.name);
    CHECK(s.offset % 64 == 0);
    CHECK(s.offset >= end);  // in order, no overlap
    end = s.offset + s.view.bytes;
  }
  CHECK(align_up(end, 64) == b.header().ext_offset);
  CHECK(b.header().ext_offset + b.header().ext_size == b.file_size());
}

// The header repeats the hyper-parameters the gguf package reads.
void check_header(const BumpFile& b, const json& golden) {
  const BumpHeader& h = b.header();
  CHECK(std::string(h.magic, 8) == "BUMPWGT3");
  CHECK(h.version == 4);
  CHECK(h.model_type == 1);
  CHECK(h.num_layers == golden_key(golden, "llama.block_count").get<uint32_t>());
  CHECK(h.embed_dim == golden_key(golden, "llama.embedding_length").get<uint32_t>());
  CHECK(h.context_len == golden_key(golden, "llama.context_length").get<uint32_t>());
  CHECK(h.num_heads == golden_key(golden, "llama.attention.head_count").get<uint32_t>());
  CHECK(h.head_dim == h.embed_dim / h.num_heads);
  CHECK(h.aligned_embed_dim == (h.embed_dim + 15) / 16 * 16);
  CHECK(h.aligned_head_dim == (h.head_dim + 15) / 16 * 16);
  CHECK(h.aligned_context == (h.context_len + 15) / 16 * 16);
  CHECK(std::all_of(std::begin(h.reserved), std::end(h.reserved), [](uint8_t x) { return x == 0; }));
}

// All source metadata, verbatim and in order, then the ck.* keys.
void check_metadata_round_trip(const BumpFile& b, const std::filesystem::path& gguf, const json& golden) {
  const GgufFile g = GgufFile::open(gguf);
  const auto& src = g.metadata().entries();
  const auto& out = b.metadata().entries();
  REQUIRE(out.size() == src.size() + 12);
  for (size_t i = 0; i < src.size(); ++i) {
    INFO(src[i].key);
    CHECK(out[i].key == src[i].key);
    CHECK(out[i].type == src[i].type);
    CHECK(out[i].raw == src[i].raw);
  }
  check_metadata(b.metadata(), golden["metadata"]);
  const Metadata& m = b.metadata();
  CHECK(*m.get_u64("ck.source.size") == golden["size"].get<uint64_t>());
  CHECK(*m.get_u64("ck.convert.version") == kConverterVersion);
  const std::vector<uint8_t> head = read_bytes(gguf);
  CHECK(*m.get_string("ck.source.header_sha256") ==
        to_hex(sha256(std::span(head).first(std::min<size_t>(head.size(), 1 << 20)))));
  const auto mtime = std::chrono::file_clock::to_sys(std::filesystem::last_write_time(gguf));
  CHECK(*m.get_u64("ck.source.mtime") ==
        static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(mtime.time_since_epoch()).count()));
  const tok::VocabData a = b.vocab(), v = vocab_from_metadata(g.metadata(), g.source());
  CHECK(a.tokens == v.tokens);
  CHECK(a.scores == v.scores);
  CHECK(a.token_types == v.token_types);
  CHECK(a.merges == v.merges);
  CHECK(a.chat_template == v.chat_template);
}

void check_config_json(const std::filesystem::path& bump, const json& golden, bool tied) {
  std::ifstream in(config_json_path(bump));
  REQUIRE(in.good());
  const json j = json::parse(in);
  CHECK(j["architectures"] == json::array({"LlamaForCausalLM"}));
  CHECK(j["model_type"] == "llama");
  CHECK(j["num_hidden_layers"] == golden_key(golden, "llama.block_count"));
  CHECK(j["hidden_size"] == golden_key(golden, "llama.embedding_length"));
  CHECK(j["intermediate_size"] == golden_key(golden, "llama.feed_forward_length"));
  CHECK(j["num_attention_heads"] == golden_key(golden, "llama.attention.head_count"));
  CHECK(j["num_key_value_heads"] == golden_key(golden, "llama.attention.head_count_kv"));
  CHECK(j["max_position_embeddings"] == golden_key(golden, "llama.context_length"));
  CHECK(j["rms_norm_eps"].get<double>() == Approx(1e-5));
  CHECK(j["tie_word_embeddings"] == tied);
}

TEST_CASE("stories260K converts and every tensor keeps the GGUF's exact bytes", "[convert][real]") {
  ScratchDir dir;
  const auto bump = dir.file("stories260K.bump");
  const ConvertStats stats = convert_gguf_to_bump(stories_gguf(), bump);
  CHECK(stats.transcoded == 0);
  const BumpFile b = BumpFile::open(bump, {.verify = true});
  const json golden = load_golden("stories260K");
  check_header(b, golden);
  check_layout(b);
  CHECK(b.slots().size() == 2 + 18 * 5 + 6);

  size_t covered = 0;
  for (const auto& g : golden["tensors"]) {
    const std::string name = g["name"];
    INFO(name);
    const auto view = b.find(name);
    REQUIRE(view.has_value());
    CHECK(std::string(traits(view->dtype).name) == g["type"].get<std::string>());
    CHECK(view->rows * view->cols == elements(g["ne"]));
    CHECK(view->cols == g["ne"][0].get<int64_t>());
    CHECK(sha256_hex({static_cast<const uint8_t*>(view->data), view->bytes}) == g["sha256"].get<std::string>());
    covered += view->bytes;
  }
  CHECK(covered == b.weight_bytes());  // nothing in the bump that the GGUF lacks
  CHECK_FALSE(b.config().tied_output);
  CHECK(b.output().data == b.find("output.weight")->data);
  CHECK(b.layers().size() == 5);
  CHECK(b.layers()[2].wk.data == b.find("blk.2.attn_k.weight")->data);
  CHECK(b.layers()[2].w_gate_up.rows == 2 * 172);
  CHECK(b.layers()[2].w_gate_up.data == b.find("blk.2.ffn_gate.weight")->data);
  CHECK(b.layers()[2].bq.empty());
  CHECK_FALSE(b.find("blk.0.attn_q.bias").has_value());
  check_metadata_round_trip(b, stories_gguf(), golden);
  check_config_json(bump, golden, false);
}

TEST_CASE("SmolLM2 converts: its Q4_1, Q8_0 and F32 tensors kept byte for byte", "[convert][real]") {
  ScratchDir dir;
  const auto bump = dir.file("smol.bump");
  const ConvertStats stats = convert_gguf_to_bump(smollm_gguf(), bump);
  CHECK(stats.transcoded == 0);
  const BumpFile b = BumpFile::open(bump, {.verify = true});
  const json golden = load_golden("SmolLM2-135M-Instruct.Q4_1");
  check_header(b, golden);
  check_layout(b);
  CHECK(b.config().tied_output);
  CHECK(b.slots().back().view.empty());
  CHECK(b.output().data == b.token_embd().data);
  for (const auto& gt : golden["tensors"]) {
    const std::string name = gt["name"];
    INFO(name);
    const auto view = b.find(name);
    REQUIRE(view.has_value());
    CHECK(view->cols == gt["ne"][0].get<int64_t>());
    CHECK(view->rows * view->cols == elements(gt["ne"]));
    // Q8_0 and Q4_1 matrices are stored with their rows interleaved by 16
    // (Q8_0_R16, Q4_1_R16): their rows gathered back are the GGUF's bytes.
    const DTypeTraits& t = traits(view->dtype);
    CHECK(std::string(traits(plain_form(view->dtype)).name) == gt["type"].get<std::string>());
    std::vector<uint8_t> plain(static_cast<const uint8_t*>(view->data), static_cast<const uint8_t*>(view->data) + view->bytes);
    if (gt["ne"].size() == 2) CHECK(t.row_group == 16);  // every matrix of this file: 16 | rows
    if (t.row_group > 1) {
      const size_t rb = row_bytes(t, view->cols);
      for (int64_t r = 0; r < view->rows; ++r) gather_row(view->dtype, static_cast<const uint8_t*>(view->data), view->cols, r, plain.data() + r * rb);
    }
    CHECK(sha256_hex(plain) == gt["sha256"].get<std::string>());
  }
  CHECK(b.token_embd().dtype == DType::Q8_0_R16);
  check_metadata_round_trip(b, smollm_gguf(), golden);
  check_config_json(bump, golden, true);
}

}  // namespace
}  // namespace ck::test
