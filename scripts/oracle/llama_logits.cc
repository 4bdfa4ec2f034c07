// llama_logits: llama.cpp's logits for a fixed token sequence, the oracle of
// tests/runtime/oracle_test.cc. Built against a llama.cpp build by
// build_llama_logits.sh (never by CI, never part of ck).
//
//   llama_logits [--cache f16] [--greedy N] MODEL.gguf OUT.f32 N_CTX N_PREFILL TOKEN...
//
// With a context of N_CTX (llama.cpp rounds it up to a multiple of 256; it
// picks LongRoPE's factors), evaluates the first N_PREFILL tokens as one batch (logits of every
// position), then the rest one token per llama_decode call (the decode
// path), and writes the logits of all positions, n_tokens x n_vocab float32,
// to OUT.f32. The KV cache is F32 (llama.cpp defaults to F16, which ck does
// not round to) and flash attention is off, so that what differs from ck is
// the model code and the weights' kernels, not a storage choice.
// --cache f16 makes the cache llama.cpp's default F16 instead (the size of
// the change an f16 cache makes, for tests/runtime/kv_cache_test.cc).
// --greedy N then appends N tokens, each the argmax of the previous
// position's logits, evaluated one at a time, and prints them on stdout
// ("greedy: ID ..."); their logits are written too.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "llama.h"

namespace {

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "llama_logits: %s\n", message.c_str());
  std::exit(1);
}

// Evaluates tokens[first, first + n) at their positions; all of them output logits.
void decode(llama_context* ctx, const std::vector<llama_token>& tokens, int first, int n) {
  llama_batch batch = llama_batch_init(n, 0, 1);
  for (int i = 0; i < n; ++i) {
    batch.token[i] = tokens[first + i];
    batch.pos[i] = first + i;
    batch.n_seq_id[i] = 1;
    batch.seq_id[i][0] = 0;
    batch.logits[i] = 1;
  }
  batch.n_tokens = n;
  if (llama_decode(ctx, batch) != 0) die("llama_decode failed at position " + std::to_string(first));
  llama_batch_free(batch);
}

}  // namespace

int main(int argc, char** argv) {
  ggml_type cache_type = GGML_TYPE_F32;
  int n_greedy = 0;
  while (argc > 2 && argv[1][0] == '-') {
    const std::string option = argv[1], value = argv[2];
    if (option == "--cache" && value == "f16") {
      cache_type = GGML_TYPE_F16;
    } else if (option == "--greedy") {
      n_greedy = std::atoi(value.c_str());
    } else {
      die("unknown option " + option + " " + value);
    }
    argc -= 2;
    argv += 2;
  }
  if (argc < 6) die("usage: llama_logits [--cache f16] [--greedy N] MODEL.gguf OUT.f32 N_CTX N_PREFILL TOKEN...");
  const int n_ctx = std::atoi(argv[3]), n_prefill = std::atoi(argv[4]);
  std::vector<llama_token> tokens;
  for (int i = 5; i < argc; ++i) tokens.push_back(std::atoi(argv[i]));
  const int n = static_cast<int>(tokens.size());
  if (n_prefill < 1 || n_prefill > n) die("N_PREFILL must be 1 .. the number of tokens");
  if (n_ctx < n + n_greedy) die("N_CTX must hold the tokens");

  llama_backend_init();
  llama_model_params mp = llama_model_default_params();
  llama_model* model = llama_model_load_from_file(argv[1], mp);
  if (model == nullptr) die(std::string("cannot load ") + argv[1]);
  llama_context_params cp = llama_context_default_params();
  cp.n_ctx = static_cast<uint32_t>(n_ctx);
  cp.n_batch = cp.n_ubatch = static_cast<uint32_t>(n_prefill);
  cp.n_threads = cp.n_threads_batch = 1;
  cp.type_k = cp.type_v = cache_type;
  cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
  cp.no_perf = true;
  llama_context* ctx = llama_init_from_model(model, cp);
  if (ctx == nullptr) die("cannot create a context");
  const int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));

  std::vector<float> out;
  decode(ctx, tokens, 0, n_prefill);
  for (int i = 0; i < n_prefill; ++i) {
    const float* l = llama_get_logits_ith(ctx, i);
    out.insert(out.end(), l, l + n_vocab);
  }
  for (int t = n_prefill; t < n; ++t) {
    decode(ctx, tokens, t, 1);
    const float* l = llama_get_logits_ith(ctx, 0);
    out.insert(out.end(), l, l + n_vocab);
  }
  if (n_greedy > 0) std::printf("greedy:");
  for (int g = 0; g < n_greedy; ++g) {
    const float* last = out.data() + out.size() - n_vocab;
    llama_token best = 0;
    for (int v = 1; v < n_vocab; ++v) best = last[v] > last[best] ? v : best;
    std::printf(" %d", best);
    tokens.push_back(best);
    decode(ctx, tokens, static_cast<int>(tokens.size()) - 1, 1);
    const float* l = llama_get_logits_ith(ctx, 0);
    out.insert(out.end(), l, l + n_vocab);
  }
  if (n_greedy > 0) std::printf("\n");
  FILE* f = std::fopen(argv[2], "wb");
  if (f == nullptr || std::fwrite(out.data(), sizeof(float), out.size(), f) != out.size() || std::fclose(f) != 0) {
    die(std::string("cannot write ") + argv[2]);
  }
  std::printf("%s: %d positions x %d logits\n", argv[2], n + n_greedy, n_vocab);
  llama_free(ctx);
  llama_model_free(model);
  llama_backend_free();
  return 0;
}
