// Golden logits from scripts/reference/make_golden.py (numpy reference) and
// scripts/oracle/make_goldens.py (llama.cpp, goldens under oracle/), and the
// models they were computed for.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ck::test {

struct Golden {
  std::string name;
  std::filesystem::path model;    // the .gguf (shared-data models: a private copy)
  std::vector<int32_t> tokens;    // the prompt ids
  int n_prefill = 0;              // the oracle's goldens: tokens evaluated as one batch before decoding the rest
  int n_ctx = 0;                  // the oracle's goldens: the context llama.cpp ran with (0: not recorded)
  std::vector<int> positions;     // positions whose logits are stored
  int n_vocab = 0;
  std::vector<float> logits;      // positions.size() x n_vocab
  std::vector<float> exact_logits;  // oracle, quantized weights: llama.cpp on them dequantized to F32 (else empty)
  std::vector<int32_t> greedy;    // the reference's greedy continuation
  // Per step of it (numpy reference goldens only, else empty): the second
  // best token and the margin between the two logits.
  std::vector<int32_t> greedy_runner_up;
  std::vector<float> greedy_margin;
};

Golden load_golden(const std::string& name);

// The golden's prompt repeated and cut to n tokens: a long context from a
// short prompt (decode deep in the context, past the keys' split).
std::vector<int32_t> repeated_prompt(const Golden& g, size_t n);

// The paths of the test models (stories260K: a private copy, converted
// there, never beside the shared data); model_available() is false when a
// downloaded model is missing (scripts/fetch-models.sh fetches it).
std::filesystem::path stories_gguf();
std::filesystem::path smollm2_gguf();
bool model_available(const std::filesystem::path& p);

}  // namespace ck::test
