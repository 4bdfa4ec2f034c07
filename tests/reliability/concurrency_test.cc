// What the headers promise about threads: a Tokenizer's methods are const
// and thread-safe, and one loaded Model serves several Sessions at once.
// Several std::threads use one shared object and must get exactly the
// serial results. These are the tests that make a ThreadSanitizer build
// (-DCK_TSAN=ON) meaningful; OpenMP is held to one thread per session here
// because libgomp is not TSan-instrumented (docs/reliability.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <thread>
#include <vector>

#include "loader/gguf_reader.h"
#include "loader/vocab_reader.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "tests/reliability/fixtures.h"
#include "tokenizer/tokenizer.h"

namespace {

constexpr int kThreads = 4;

std::vector<std::string> wikitext_pieces() {
  const std::vector<uint8_t> all =
      ck::reliability::read_file(ck::reliability::wikitext_test());
  std::vector<std::string> pieces;
  for (size_t at = 0; at + 1500 <= all.size() && pieces.size() < 48; at += 27000) {
    pieces.emplace_back(all.begin() + static_cast<ptrdiff_t>(at), all.begin() + static_cast<ptrdiff_t>(at + 1500));
  }
  return pieces;
}

}  // namespace

TEST_CASE("one Tokenizer shared by several threads gives every thread the serial result", "[reliability][threads]") {
  const std::vector<std::string> texts = wikitext_pieces();
  REQUIRE(texts.size() == 48);
  for (const char* vocab : {"ggml-vocab-llama-spm.gguf", "ggml-vocab-gpt-2.gguf"}) {
    INFO(vocab);
    const auto path = std::filesystem::path(CK_SHARED_DATA) / "tokenizer-tests" / vocab;
    const ck::GgufFile file = ck::GgufFile::open(path);
    const ck::tok::Tokenizer tok(ck::vocab_from_metadata(file.metadata(), path.string()));
    std::vector<std::vector<int32_t>> serial;
    for (const auto& t : texts) serial.push_back(tok.encode(t, true, true));

    std::vector<int> mismatches(kThreads, 0);
    std::vector<std::thread> threads;
    for (int k = 0; k < kThreads; ++k) {
      threads.emplace_back([&, k] {
        // Each thread walks the texts from a different start so that
        // different texts are encoded at the same moment.
        for (size_t i = 0; i < texts.size(); ++i) {
          const size_t j = (i + static_cast<size_t>(k) * 13) % texts.size();
          const auto ids = tok.encode(texts[j], true, true);
          if (ids != serial[j] || tok.decode(ids) != tok.decode(serial[j])) ++mismatches[k];
        }
      });
    }
    for (auto& t : threads) t.join();
    CHECK(mismatches == std::vector<int>(kThreads, 0));
  }
}

TEST_CASE("one Model serves sessions on several threads with the serial logits", "[reliability][threads]") {
  const auto model = ck::Model::load(ck::reliability::stories_bump());
  const std::vector<int32_t> prompt = model->tokenizer().encode("Once upon a time, a little cat", true, false);
  auto logits_of = [&] {
    ck::set_threads(1);  // per thread: OpenMP's thread count is a per-thread setting
    ck::Session session(*model, {.n_ctx = 64});
    session.eval(prompt);
    const auto last = session.eval(std::vector<int32_t>{prompt.back()});
    return std::vector<float>(last.begin(), last.end());
  };
  const std::vector<float> serial = logits_of();
  std::vector<std::vector<float>> got(kThreads);
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k) threads.emplace_back([&, k] { got[k] = logits_of(); });
  for (auto& t : threads) t.join();
  for (const auto& g : got) CHECK(g == serial);
}
