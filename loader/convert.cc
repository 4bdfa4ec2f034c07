#include "loader/convert.h"

#include <spdlog/spdlog.h>

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/dtype.h"
#include "kernels/quantize.h"
#include "kernels/unit_lanes.h"
#include "loader/atomic_file.h"
#include "loader/bump_layout.h"
#include "loader/gguf_reader.h"
#include "loader/model_config.h"
#include "loader/sha256.h"
#include "loader/source_fingerprint.h"

namespace ck {

namespace {

// Rows are transcoded in chunks of about this many values.
constexpr int64_t kChunkValues = int64_t{1} << 20;
constexpr size_t kCopyChunk = size_t{4} << 20;

// Rows row0 .. row0 + rows of a GGUF tensor (all of them, or one part of a fused one).
struct SourceRows {
  const GgufTensorInfo* tensor;
  int64_t row0, rows;
  uint64_t bytes() const { return static_cast<uint64_t>(rows) * row_bytes(traits(tensor->type), tensor->cols()); }
};

struct SlotPlan {
  SlotSpec spec;
  DType dtype = DType::F32;
  std::vector<SourceRows> sources;
};

void check_shape(const GgufFile& g, const GgufTensorInfo& t, const SlotSpec& s, int64_t rows) {
  const std::vector<int64_t> want = s.kind == SlotKind::Vector ? std::vector<int64_t>{s.cols}
                                                                 : std::vector<int64_t>{s.cols, rows};
  std::vector<int64_t> ne = t.ne;
  while (ne.size() > want.size() && ne.back() == 1) ne.pop_back();  // [n, 1] is a vector too
  if (ne != want) {
    throw std::runtime_error(g.source() + ": tensor '" + t.name + "' has shape " + shape_string(t.ne) +
                             ", expected " + shape_string(want) + " from the metadata");
  }
}

// The metadata a bump carries: the source's, verbatim, plus the ck.* keys
// that describe what the tensor table implies.
Metadata bump_metadata(const GgufFile& g, const SourceFingerprint& fp) {
  Metadata meta = g.metadata();
  meta.set_bool("ck.tied_output", g.find("output.weight") == nullptr);
  meta.set_bool("ck.qkv_bias", g.find("blk.0.attn_q.bias") != nullptr);
  meta.set_bool("ck.qk_norm", g.find("blk.0.attn_q_norm.weight") != nullptr);
  meta.set_bool("ck.rope_freqs", g.find("rope_freqs.weight") != nullptr);
  meta.set_bool("ck.longrope", g.find("rope_factors_long.weight") != nullptr);
  meta.set_bool("ck.fused_qkv", g.find("blk.0.attn_qkv.weight") != nullptr);
  meta.set_bool("ck.fused_gate_up",
                g.find("blk.0.ffn_gate.weight") == nullptr && g.find("blk.0.ffn_up.weight") != nullptr);
  // The pairing follows from the architecture (model_config.cc); recorded for tools.
  meta.set_bool("ck.rope_neox", config_from_metadata(meta, g.source()).rope_neox);
  record_fingerprint(meta, fp);
  return meta;
}

// Matches every slot to its GGUF tensors and picks the stored dtype; every
// check happens here, before anything is written.
std::vector<SlotPlan> plan_slots(const GgufFile& g, const ModelConfig& c) {
  std::vector<SlotPlan> plan;
  std::set<std::string> used;
  for (SlotSpec& spec : bump_slots(c)) {
    SlotPlan p;
    p.spec = std::move(spec);
    const SlotSpec& s = p.spec;
    if (s.kind == SlotKind::Empty) {
      plan.push_back(std::move(p));
      continue;
    }
    const int64_t rows_each = s.rows / static_cast<int64_t>(s.sources.size());
    for (const std::string& name : s.sources) {
      const GgufTensorInfo* t = g.find(name);
      if (!t) throw std::runtime_error(g.source() + ": required tensor '" + name + "' is missing");
      check_shape(g, *t, s, s.source_rows > 0 ? s.source_rows : rows_each);
      p.sources.push_back({t, s.source_row0, rows_each});
      used.insert(name);
    }
    if (s.kind == SlotKind::Matrix) {
      const DType first = p.sources[0].tensor->type;
      bool same = true;
      for (const SourceRows& src : p.sources) same = same && src.tensor->type == first;
      // A stacked matrix needs one dtype; a type without a kernel needs another.
      if (same && traits(first).native) {
        // Rows interleaved by groups need whole groups in every part the
        // runtime reads too (gate and up).
        p.dtype = stored_form(first, std::gcd(rows_each, s.part_rows));
      } else {
        p.dtype = s.cols % traits(DType::Q8_0).block_size == 0 ? DType::Q8_0 : DType::F32;
      }
    }
    plan.push_back(std::move(p));
  }
  for (const GgufTensorInfo& t : g.tensors()) {
    if (!used.count(t.name)) {
      throw std::runtime_error(g.source() + ": tensor '" + t.name +
                               "' has no place in a bump file (a feature of this model that ck does not support)");
    }
  }
  return plan;
}

// Appends to the file and hashes what it appends (the bump payload).
class PayloadWriter {
 public:
  explicit PayloadWriter(AtomicFile& file) : file_(file) {}
  void write(std::span<const uint8_t> bytes) {
    file_.write(bytes);
    hash_.update(bytes);
  }
  void pad_to(uint64_t alignment) {
    static constexpr uint8_t zeros[kBumpTensorAlignment] = {};
    write({zeros, static_cast<size_t>(align_up(file_.size(), alignment) - file_.size())});
  }
  uint64_t size() const { return file_.size(); }
  Sha256Digest finish() { return hash_.finish(); }

 private:
  AtomicFile& file_;
  Sha256 hash_;
};

// Reports source bytes done to the caller's progress callback.
class ProgressCounter {
 public:
  // Reports 0 at once: the GGUF has been validated when the counter is made,
  // which is what a caller that announces the conversion waits for.
  ProgressCounter(const ConvertProgress& report, uint64_t total) : report_(report), total_(total) {
    if (report_) report_(0, total_);
  }
  void advance(uint64_t n) {
    done_ += n;
    if (report_) report_(done_, total_);
  }

 private:
  const ConvertProgress& report_;
  uint64_t total_, done_ = 0;
};

// Returns whether the rows were transcoded (a relayout is not: no value changes).
bool write_rows(const GgufFile& g, const SourceRows& part, DType dtype, PayloadWriter& out, ProgressCounter& bar) {
  const GgufTensorInfo& t = *part.tensor;
  const size_t src_row = row_bytes(traits(t.type), t.cols());
  const std::span<const uint8_t> src = g.tensor_data(t).subspan(part.row0 * src_row, part.bytes());
  const bool transcode = t.type != dtype && stored_form(t.type, part.rows) != dtype;
  if (t.type != dtype && !transcode) {  // the same blocks: permuted within each, rows interleaved by groups
    const size_t group = static_cast<size_t>(traits(dtype).row_group) * src_row;
    const size_t step = std::max<size_t>(1, kCopyChunk / group) * group;
    std::vector<uint8_t> chunk;
    for (size_t off = 0; off < src.size(); off += step) {
      const auto from = src.subspan(off, std::min(step, src.size() - off));
      chunk.assign(from.begin(), from.end());
      to_stored_rows(dtype, chunk.data(), static_cast<int64_t>(chunk.size() / src_row), t.cols());
      out.write(chunk);
      bar.advance(chunk.size());
    }
  } else if (!transcode) {  // byte for byte
    for (size_t off = 0; off < src.size(); off += kCopyChunk) {
      const auto chunk = src.subspan(off, std::min(kCopyChunk, src.size() - off));
      out.write(chunk);
      bar.advance(chunk.size());
    }
  } else {
    spdlog::debug("{}: transcoding {} -> {}", t.name, traits(t.type).name, traits(dtype).name);
    const int64_t cols = t.cols(), rows = part.rows;
    const int64_t chunk_rows = std::max<int64_t>(1, kChunkValues / cols);
    const size_t dst_row = row_bytes(traits(dtype), cols);
    std::vector<float> values(static_cast<size_t>(std::min(chunk_rows, rows) * cols));
    std::vector<uint8_t> encoded(static_cast<size_t>(std::min(chunk_rows, rows)) * dst_row);
    for (int64_t r = 0; r < rows; r += chunk_rows) {
      const int64_t n_rows = std::min(chunk_rows, rows - r);
      const int64_t n = n_rows * cols;
      traits(t.type).dequantize(src.data() + r * src_row, values.data(), n);
      if (dtype == DType::F32) {
        out.write({reinterpret_cast<const uint8_t*>(values.data()), static_cast<size_t>(n) * sizeof(float)});
      } else {
        try {
          quantize(dtype, values.data(), encoded.data(), n);
        } catch (const std::exception& e) {
          throw std::runtime_error(g.source() + ": tensor '" + t.name + "' rows " + std::to_string(part.row0 + r) +
                                   ".." + std::to_string(part.row0 + r + n_rows - 1) + ": " + e.what());
        }
        out.write({encoded.data(), static_cast<size_t>(n_rows) * dst_row});
      }
      bar.advance(static_cast<uint64_t>(n_rows) * src_row);
    }
  }
  g.release_tensor_pages(t);
  return transcode;
}

// The Hugging Face class name of an architecture, for config.json.
std::string hf_architecture(const std::string& arch) {
  if (arch == "qwen2") return "Qwen2ForCausalLM";
  if (arch == "qwen3") return "Qwen3ForCausalLM";
  if (arch == "gemma3") return "Gemma3ForCausalLM";
  if (arch == "phi3") return "Phi3ForCausalLM";
  return "LlamaForCausalLM";
}

// Shortest decimal that reads back as the same float (1e-05, not 9.99999975e-06).
double as_decimal(float f) {
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof buf, f);
  return std::strtod(std::string(buf, res.ptr).c_str(), nullptr);
}

// The HF-style config.json beside the bump. Rendered before anything is
// written, so that metadata it cannot read fails the conversion up front.
std::string config_json_text(const ModelConfig& c, const Metadata& meta) {
  nlohmann::ordered_json j;
  j["architectures"] = {hf_architecture(c.arch)};
  j["model_type"] = c.arch;
  j["num_hidden_layers"] = c.n_layers;
  j["hidden_size"] = c.dim;
  j["intermediate_size"] = c.ffn_dim;
  j["num_attention_heads"] = c.n_heads;
  j["num_key_value_heads"] = c.n_kv_heads;
  j["head_dim"] = c.head_dim;
  j["vocab_size"] = c.vocab_size;
  j["max_position_embeddings"] = c.context_len;
  j["rms_norm_eps"] = as_decimal(c.rms_eps);
  j["rope_theta"] = as_decimal(c.rope_base);
  j["tie_word_embeddings"] = c.tied_output;
  if (auto bos = meta.get_u32("tokenizer.ggml.bos_token_id")) j["bos_token_id"] = *bos;
  if (auto eos = meta.get_u32("tokenizer.ggml.eos_token_id")) j["eos_token_id"] = *eos;
  return j.dump(2) + "\n";
}

}  // namespace

std::filesystem::path config_json_path(const std::filesystem::path& bump) {
  std::filesystem::path p = bump;
  return p.replace_extension(".config.json");
}

ConvertStats convert_gguf_to_bump(const std::filesystem::path& gguf, const std::filesystem::path& bump,
                                  const ConvertProgress& progress) {
  const auto start = std::chrono::steady_clock::now();
  const SourceFingerprint fp = fingerprint_file(gguf);
  const GgufFile g = GgufFile::open(gguf);
  const Metadata meta = bump_metadata(g, fp);
  const ModelConfig config = config_from_metadata(meta, g.source());
  const std::vector<SlotPlan> plan = plan_slots(g, config);
  const std::string config_json = config_json_text(config, meta);

  uint64_t source_bytes = 0;
  for (const SlotPlan& p : plan) {
    for (const SourceRows& src : p.sources) source_bytes += src.bytes();
  }
  ProgressCounter bar(progress, source_bytes);
  ConvertStats stats;
  stats.slots = plan.size();
  std::map<std::string, size_t> transcodes;  // "Q4_1 -> Q8_0" -> tensors

  AtomicFile file(bump);
  file.write_zeros(kBumpHeaderSize);  // filled in last, once the hash is known
  PayloadWriter out(file);
  const auto count = static_cast<uint32_t>(plan.size());
  out.write({reinterpret_cast<const uint8_t*>(&count), sizeof count});
  for (const SlotPlan& p : plan) {
    const auto code = static_cast<uint8_t>(p.dtype);
    out.write({&code, 1});
  }
  for (const SlotPlan& p : plan) {
    out.pad_to(kBumpTensorAlignment);
    for (const SourceRows& src : p.sources) {
      if (write_rows(g, src, p.dtype, out, bar)) {
        ++stats.transcoded;
        ++transcodes[std::string(traits(src.tensor->type).name) + " -> " + std::string(traits(p.dtype).name)];
      }
    }
  }
  out.pad_to(kBumpTensorAlignment);
  BumpHeader header = make_bump_header(config);
  header.ext_offset = out.size();
  const std::string pairs = meta.encode_pairs();
  const uint64_t n_kv = meta.entries().size();
  out.write({reinterpret_cast<const uint8_t*>(kBumpMetaMagic), sizeof kBumpMetaMagic});
  out.write({reinterpret_cast<const uint8_t*>(&n_kv), sizeof n_kv});
  out.write({reinterpret_cast<const uint8_t*>(pairs.data()), pairs.size()});
  header.ext_size = out.size() - header.ext_offset;
  const Sha256Digest digest = out.finish();
  std::memcpy(header.sha256, digest.data(), digest.size());
  file.write_at(0, {reinterpret_cast<const uint8_t*>(&header), sizeof header});
  file.commit();
  try {
    AtomicFile json(config_json_path(bump));
    json.write({reinterpret_cast<const uint8_t*>(config_json.data()), config_json.size()});
    json.commit();
  } catch (...) {
    std::filesystem::remove(bump);  // a failed conversion leaves no .bump
    throw;
  }

  stats.bytes_written = file.size();
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& [what, n] : transcodes) spdlog::info("transcoded {} tensors {}", n, what);
  spdlog::info("wrote {} ({:.1f} MB, {} slots, {} tensors transcoded) in {:.2f} s", bump.string(),
               stats.bytes_written / 1e6, stats.slots, stats.transcoded, stats.seconds);
  return stats;
}

}  // namespace ck
