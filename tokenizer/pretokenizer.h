// The pre-tokenizers of byte-level BPE vocabularies: tokenizer.ggml.pre names
// a list of regexes (the facts are in llama.cpp's llama-vocab.cpp), applied
// one after the other; each splits every piece of the previous step into its
// matches and the text between them. Compiled once with PCRE2 (UTF, Unicode
// properties, JIT).
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ck::tok {

struct PretokenizerSpec {
  std::vector<std::string_view> names;    // tokenizer.ggml.pre values that select it
  std::vector<std::string_view> regexes;  // applied in this order
  bool ignore_merges = false;  // a piece that is a whole token is emitted as is (Llama-3)
};

// The spec for `pre` ("" means "default"); throws listing the known names.
const PretokenizerSpec& pretokenizer_spec(std::string_view pre);

// Every supported name, comma-separated (for --help and error messages).
std::string known_pretokenizers();

class Pretokenizer {
 public:
  explicit Pretokenizer(std::string_view pre);  // throws on an unknown name
  ~Pretokenizer();
  Pretokenizer(const Pretokenizer&) = delete;
  Pretokenizer& operator=(const Pretokenizer&) = delete;

  bool ignore_merges() const { return spec_.ignore_merges; }

  // Replaces `words` with the pieces of `text`, in order; their
  // concatenation is `text`. Invalid UTF-8 matches no pattern item, so such
  // bytes end up in the pieces between matches and are kept, not replaced.
  void split(std::string_view text, std::vector<std::string_view>& words) const;

 private:
  struct Compiled;
  const PretokenizerSpec& spec_;
  std::vector<std::unique_ptr<Compiled>> regexes_;
};

}  // namespace ck::tok
