// The tokenizer with every real vocabulary of the shared data (and SmolLM2's
// when it is downloaded): encode arbitrary bytes with and without special
// parsing and check the round trip, then decode the same bytes read as token
// ids, one at a time through StreamDecoder too.
// Input: byte 0 picks the vocabulary (low 6 bits, in the order loaded),
// render_special (0x40) and add_special (0x80); the rest is the text.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "loader/gguf_reader.h"
#include "loader/vocab_reader.h"
#include "tests/fuzz/walk.h"
#include "tokenizer/byte_unicode.h"
#include "tokenizer/tokenizer.h"

namespace {

using ck::fuzz::require;
using ck::tok::Tokenizer;

struct Vocab {
  Tokenizer tokenizer;
  std::vector<bool> byte_spelled;  // byte-level BPE: whether some token spells byte b alone
};
std::vector<Vocab>* vocabs;

void load(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) return;
  const ck::GgufFile file = ck::GgufFile::open(path);
  const auto data = ck::vocab_from_metadata(file.metadata(), path.string());
  Tokenizer tokenizer(data);
  std::vector<bool> spelled(256);
  for (int b = 0; b < 256; ++b) {
    std::string s;
    const char c = static_cast<char>(b);
    ck::tok::append_byte_level({&c, 1}, s);
    spelled[b] = std::find(data.tokens.begin(), data.tokens.end(), s) != data.tokens.end();
  }
  vocabs->push_back({std::move(tokenizer), std::move(spelled)});
}

// Independent of the tokenizer's own UTF-8 code: well-formed per RFC 3629.
bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<uint8_t>(s[i]);
    size_t n;
    uint32_t cp;
    if (b < 0x80) { ++i; continue; }
    if (b >= 0xC2 && b <= 0xDF) { n = 1; cp = b & 0x1F; }
    else if (b >= 0xE0 && b <= 0xEF) { n = 2; cp = b & 0x0F; }
    else if (b >= 0xF0 && b <= 0xF4) { n = 3; cp = b & 0x07; }
    else return false;
    if (i + n >= s.size()) return false;
    for (size_t k = 1; k <= n; ++k) {
      const auto c = static_cast<uint8_t>(s[i + k]);
      if ((c & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    if ((n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF))) return false;
    i += n + 1;
  }
  return true;
}

// What decode(encode(text)) must give back (tests/tokenizer/test_round_trip.cc
// states the same rules): SPM turns U+2581 into a space; byte-level BPE drops
// the bytes no token spells.
std::string expected_round_trip(const Vocab& v, std::string_view text) {
  std::string out;
  if (v.tokenizer.is_spm()) {
    for (size_t i = 0; i < text.size(); ++i) {
      if (text.substr(i, 3) == "\xE2\x96\x81") { out += ' '; i += 2; } else { out += text[i]; }
    }
  } else {
    for (char c : text) if (v.byte_spelled[static_cast<uint8_t>(c)]) out += c;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ck::fuzz::quiet_logs();
  const std::filesystem::path shared = CK_SHARED_DATA;
  vocabs = new std::vector<Vocab>;
  for (const char* name : {"llama-spm", "phi-3", "gpt-2", "starcoder"}) {
    load(shared / "tokenizer-tests" / (std::string("ggml-vocab-") + name + ".gguf"));
  }
  load(shared / "models" / "stories260K.gguf");
  load(std::filesystem::path(CK_MODELS_DIR) / "SmolLM2-135M-Instruct.Q4_1.gguf");
  std::fprintf(stderr, "fuzz_tokenizer: %zu vocabularies\n", vocabs->size());
  require(!vocabs->empty(), "the shared vocabularies are there (CK_SHARED_DATA)");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const Vocab& v = (*vocabs)[(data[0] & 0x3F) % vocabs->size()];
  const Tokenizer& tok = v.tokenizer;
  const bool add_special = data[0] & 0x80;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  const auto ids = tok.encode(text, add_special, false);
  for (int32_t id : ids) require(id >= 0 && id < tok.n_vocab(), "encode returns ids inside the vocabulary");
  // The round trip holds for text that became ordinary pieces: like
  // llama.cpp, SPM puts a space in front of the text after a special token
  // (user-defined ones are matched even without parse_special), unknown
  // tokens decode to nothing, and decode drops SPM's leading space only
  // after a BOS.
  const bool bos_first = !ids.empty() && ids[0] == tok.bos() && add_special && tok.add_bos();
  const bool plain = std::all_of(ids.begin() + (bos_first ? 1 : 0), ids.end(), [&](int32_t id) {
    const auto t = tok.token_type(id);
    return t != ck::tok::TokenType::Control && t != ck::tok::TokenType::UserDefined && t != ck::tok::TokenType::Unknown;
  });
  if (plain && (!tok.is_spm() || bos_first)) {
    require(tok.decode(ids) == expected_round_trip(v, text), "decode(encode(text)) gives the text back");
  }
  for (int32_t id : tok.encode(text, add_special, true)) require(id >= 0 && id < tok.n_vocab(), "encode (special) returns ids inside the vocabulary");

  // The same bytes as ids: 16-bit little-endian, reduced into the vocabulary.
  std::vector<int32_t> as_ids;
  for (size_t i = 1; i + 1 < size; i += 2) as_ids.push_back((data[i] | data[i + 1] << 8) % tok.n_vocab());
  const bool render_special = data[0] & 0x40;
  const std::string decoded = tok.decode(as_ids, render_special);
  ck::tok::StreamDecoder stream(tok, render_special);
  std::string streamed;
  for (int32_t id : as_ids) {
    const std::string piece = stream.push(id);
    require(valid_utf8(piece), "StreamDecoder::push returns valid UTF-8");
    streamed += piece;
  }
  const std::string rest = stream.flush();
  require(valid_utf8(rest), "StreamDecoder::flush returns valid UTF-8");
  streamed += rest;
  if (!tok.is_spm() && valid_utf8(decoded)) require(streamed == decoded, "streaming valid text gives decode()'s text");
  return 0;
}
