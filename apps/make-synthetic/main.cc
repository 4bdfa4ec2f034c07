// ck-make-synthetic: writes a llama GGUF with random weights, e.g. the
// TinyLlama-1.1B shape in the Q4_K_M mix, for benchmarks that need a model
// of real size (scripts/make-synthetic-model makes the standard set).
#include <omp.h>

#include <chrono>
#include <cstdio>

#include "apps/common/app_main.h"
#include "apps/common/plural.h"
#include "apps/make-synthetic/synthetic_model.h"

int main(int argc, char** argv) {
  CLI::App app{"Write a llama-architecture GGUF with random weights (default shape: TinyLlama-1.1B)",
               "ck-make-synthetic"};
  ck::SyntheticOptions o;
  std::string vocab, out, mix = "Q4_K_M";
  int threads = omp_get_max_threads();
  app.add_option("--vocab", vocab, "GGUF whose tokenizer.* metadata (and vocabulary size) the model takes")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("-o,--output", out, "Output GGUF path")->required();
  app.add_option("--mix", mix, "Quantization mix")->check(CLI::IsMember({"Q4_K_M", "Q6_K", "Q8_0"}))->capture_default_str();
  app.add_option("--dim", o.shape.dim, "Embedding size")->capture_default_str();
  app.add_option("--layers", o.shape.n_layers, "Number of layers")->capture_default_str();
  app.add_option("--heads", o.shape.n_heads, "Query heads")->capture_default_str();
  app.add_option("--kv-heads", o.shape.n_kv_heads, "Key/value heads")->capture_default_str();
  app.add_option("--ffn", o.shape.ffn_dim, "Feed-forward size")->capture_default_str();
  app.add_option("--context", o.shape.context_len, "Context length")->capture_default_str();
  app.add_option("--seed", o.seed, "Random seed")->capture_default_str();
  app.add_option("--std", o.weight_std, "Standard deviation of the weights")->capture_default_str();
  app.add_option("-t,--threads", threads, "Threads")->capture_default_str();
  return ck::app::run_app(app, argc, argv, [&] {
    o.mix = *ck::quant_mix_from_name(mix);
    omp_set_num_threads(threads);
    const auto start = std::chrono::steady_clock::now();
    const ck::SyntheticStats s = ck::write_synthetic_model(vocab, out, o);
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("wrote %s: %s, %.3f B parameters, %.1f MB of tensor data in %.1f s (%s)\n", out.c_str(),
                mix.c_str(), s.n_params / 1e9, s.data_bytes / 1e6, sec,
                ck::app::count_of(threads, "thread").c_str());
    return 0;
  });
}
