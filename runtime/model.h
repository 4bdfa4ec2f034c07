// A loaded model: the mapped bump file, its config, weight views and tokenizer.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "loader/bump_file.h"
#include "loader/model_config.h"
#include "tokenizer/tokenizer.h"

namespace ck {

struct Weights;  // runtime/weights.h

struct LoadOptions {
  bool verify = false;  // check the bump payload's SHA-256 before use
  // Where a GGUF's bump is looked for and made (--bump-dir); empty: $CK_BUMP_DIR,
  // else beside the GGUF or in the cache folder (loader/bump_cache.h).
  std::filesystem::path bump_dir;
  // Map the weights at load, read back in 2 MiB pages where their page
  // cache has come apart (loader/huge_page_mend.h); off for a load that
  // only checks the model and runs nothing.
  bool settle_pages = true;
  // Called as the long steps of a load advance, bytes done out of total:
  // "converting" (a GGUF's first run) and "reading" (the weights read in
  // from disk, or found in the page cache at once). Apps draw a bar for a
  // step that takes a while (apps/common/load_progress.h).
  std::function<void(std::string_view step, uint64_t done, uint64_t total)> progress;
};

class Model {
 public:
  // `path` is a .gguf (converted to .bump on first use, see loader/convert.h)
  // or a .bump. Refuses architectures and features the runtime cannot run.
  static std::unique_ptr<Model> load(const std::filesystem::path& path, const LoadOptions& opts = {});

  const ModelConfig& config() const;
  const tok::Tokenizer& tokenizer() const;
  const BumpFile& file() const;
  const Weights& weights() const;  // views into file(), validated against config()
  const std::filesystem::path& path() const;  // the .bump actually mapped

  size_t weight_bytes() const;       // bytes of all weight tensors in the arena
  size_t decode_bytes_per_token() const;  // weight bytes one decode step streams
  int64_t n_params() const;
  std::string dtype_mix() const;     // e.g. "Q4_K 154, Q6_K 23, F32 45"

  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

 private:
  Model();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ck
