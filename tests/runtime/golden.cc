#include "tests/runtime/golden.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unistd.h>

namespace ck::test {
namespace {

// The shared data folder must never receive a converted .bump (and as root
// every folder looks writable), so tests use a private copy of the GGUF in a
// per-process folder, removed at exit.
class PrivateCopies {
 public:
  PrivateCopies() : dir_(std::filesystem::temp_directory_path() / ("ck-runtime-tests-" + std::to_string(::getpid()))) {}
  ~PrivateCopies() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::filesystem::path copy_of(const std::filesystem::path& src) {
    const auto dst = dir_ / src.filename();
    if (!std::filesystem::exists(dst)) {
      std::filesystem::create_directories(dir_);
      std::filesystem::copy_file(src, dst);
    }
    return dst;
  }

 private:
  std::filesystem::path dir_;
};

PrivateCopies& private_copies() {
  static PrivateCopies copies;
  return copies;
}

}  // namespace

Golden load_golden(const std::string& name) {
  const std::filesystem::path dir = CK_GOLDEN_DIR;
  std::ifstream meta_in(dir / (name + ".json"));
  if (!meta_in) throw std::runtime_error("missing golden file " + (dir / (name + ".json")).string());
  const nlohmann::json meta = nlohmann::json::parse(meta_in);
  Golden g;
  g.name = name;
  const std::string where = meta.at("model_dir");
  const std::string file = meta.at("model");
  // Models in read-only or repository folders are used through a private
  // copy, so that their .bump is written there.
  if (where == "shared") {
    g.model = private_copies().copy_of(std::filesystem::path(CK_SHARED_DATA) / file);
  } else if (where == "golden") {
    g.model = private_copies().copy_of(dir / file);
  } else {
    g.model = std::filesystem::path(CK_MODELS_DIR) / file;
  }
  g.tokens = meta.at("tokens").get<std::vector<int32_t>>();
  g.n_prefill = meta.value("n_prefill", static_cast<int>(g.tokens.size()));
  g.n_ctx = meta.value("n_ctx", 0);
  g.positions = meta.at("positions").get<std::vector<int>>();
  g.n_vocab = meta.at("n_vocab");
  g.greedy = meta.at("greedy").get<std::vector<int32_t>>();
  g.greedy_runner_up = meta.value("greedy_runner_up", std::vector<int32_t>{});
  g.greedy_margin = meta.value("greedy_margin", std::vector<float>{});
  auto read_logits = [&](const std::string& key, std::vector<float>& out) {
    out.resize(g.positions.size() * g.n_vocab);
    std::ifstream data(dir / meta.at(key).get<std::string>(), std::ios::binary);
    data.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size() * sizeof(float)));
    if (!data || data.peek() != EOF) throw std::runtime_error("golden " + key + " of " + name + " has the wrong size");
  };
  read_logits("logits_file", g.logits);
  if (meta.contains("exact_logits_file")) read_logits("exact_logits_file", g.exact_logits);
  return g;
}

std::filesystem::path stories_gguf() {
  return private_copies().copy_of(std::filesystem::path(CK_SHARED_DATA) / "models/stories260K.gguf");
}
std::filesystem::path smollm2_gguf() { return std::filesystem::path(CK_MODELS_DIR) / "SmolLM2-135M-Instruct.Q4_1.gguf"; }
bool model_available(const std::filesystem::path& p) { return std::filesystem::exists(p); }

std::vector<int32_t> repeated_prompt(const Golden& g, size_t n) {
  if (g.tokens.empty()) throw std::runtime_error("golden " + g.name + " has no prompt tokens");
  std::vector<int32_t> tokens;
  while (tokens.size() < n) tokens.insert(tokens.end(), g.tokens.begin(), g.tokens.end());
  tokens.resize(n);
  return tokens;
}

}  // namespace ck::test
