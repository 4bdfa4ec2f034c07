#include "tokenizer/pretokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdexcept>

namespace ck::tok {

namespace {

// The regex lists are llama.cpp's (llama-vocab.cpp, llm_tokenizer_bpe), which
// in turn transcribe each model's tokenizer.json. Non-ASCII characters are
// written as \x{...} so that no editor can normalise them (the DeepSeek class
// holds compatibility characters such as U+2126 OHM SIGN on purpose).
constexpr std::string_view kGpt2 = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))";
constexpr std::string_view kLlama3 =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kQwen2 =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kCjk = R"([\x{4E00}-\x{9FA5}\x{0800}-\x{4E00}\x{AC00}-\x{D7FF}]+)";
constexpr std::string_view kDeepseekLetters =
    R"(\s?[\x{0041}-\x{005A}\x{0061}-\x{007A}\x{00B5}\x{00C0}-\x{00D6}\x{00D8}-\x{00F6}\x{00F8}-\x{01BA})"
    R"(\x{01BC}-\x{01BF}\x{01C4}-\x{0293}\x{0295}-\x{02AF}\x{0370}-\x{0373}\x{0376}\x{0377}\x{037B}-\x{037D})"
    R"(\x{037F}\x{0386}\x{0388}-\x{038A}\x{038C}\x{038E}-\x{03A1}\x{03A3}-\x{03F5}\x{03F7}-\x{0481})"
    R"(\x{048A}-\x{052F}\x{0531}-\x{0556}\x{10A0}-\x{10C5}\x{13A0}-\x{13F5}\x{13F8}-\x{13FD}\x{1C90}-\x{1CBA})"
    R"(\x{1CBD}-\x{1CBF}\x{1D00}-\x{1D2B}\x{1D6B}-\x{1D77}\x{1D79}-\x{1D9A}\x{1E00}-\x{1F15}\x{1F18}-\x{1F1D})"
    R"(\x{1F20}-\x{1F45}\x{1F48}-\x{1F4D}\x{1F50}-\x{1F57}\x{1F59}\x{1F5B}\x{1F5D}\x{1F5F}-\x{1F7D})"
    R"(\x{1F80}-\x{1FB4}\x{1FB6}-\x{1FBC}\x{1FBE}\x{1FC2}-\x{1FC4}\x{1FC6}-\x{1FCC}\x{1FD0}-\x{1FD3})"
    R"(\x{1FD6}-\x{1FDB}\x{1FE0}-\x{1FEC}\x{1FF2}-\x{1FF4}\x{1FF6}-\x{1FFC}\x{2102}\x{2107}\x{210A}-\x{2113})"
    R"(\x{2115}\x{2119}-\x{211D}\x{2124}\x{2126}\x{2128}\x{212A}-\x{212D}\x{212F}-\x{2134}\x{2139})"
    R"(\x{213C}-\x{213F}\x{2145}-\x{2149}\x{214E}\x{2183}\x{2184}\x{2C00}-\x{2C7B}\x{2C7E}-\x{2CE4})"
    R"(\x{2CEB}-\x{2CEE}\x{2CF2}\x{2CF3}\x{A640}-\x{A66D}\x{A680}-\x{A69B}\x{A722}-\x{A76F}\x{A771}-\x{A787})"
    R"(\x{A78B}-\x{A78E}\x{AB70}-\x{ABBF}\x{FB00}-\x{FB06}\x{FB13}-\x{FB17}\x{FF21}-\x{FF3A}\x{FF41}-\x{FF5A})"
    R"(\x{10400}-\x{1044F}\x{104B0}-\x{104D3}\x{104D8}-\x{104FB}\x{10C80}-\x{10CB2}\x{10CC0}-\x{10CF2})"
    R"(\x{118A0}-\x{118DF}\x{1E900}-\x{1E943}]+)";

const std::vector<PretokenizerSpec>& all_specs() {
  static const std::vector<PretokenizerSpec> specs = {
      {{"default"},
       {R"([\p{P}\$\+<=>\^~\|]+)", kGpt2, R"(\p{N}+)", R"([0-9][0-9][0-9])"}},
      {{"gpt-2", "phi-2", "mpt", "olmo", "jais", "roberta-bpe"}, {kGpt2}},
      {{"llama3", "llama-v3", "llama-bpe", "falcon3", "pixtral"}, {kLlama3}, /*ignore_merges=*/true},
      {{"dbrx", "smaug-bpe"}, {kLlama3}},
      {{"qwen2", "deepseek-r1-qwen", "stablelm2", "megrez"}, {kQwen2}},
      {{"smollm", "starcoder", "refact", "command-r", "codeshell", "exaone", "minerva-7b"},
       {R"(\p{N})", kGpt2}},
      {{"deepseek-llm"},
       {R"([\r\n])", kDeepseekLetters,
        R"(\s?[!-/:-~\x{FF01}-\x{FF0F}\x{FF1A}-\x{FF5E}\x{2018}-\x{201F}\x{3000}-\x{3002}]+)", R"(\s+$)", kCjk,
        R"(\p{N}+)"}},
      {{"deepseek-coder"}, {R"([\r\n])", R"(\s?\p{L}+)", R"(\s?\p{P}+)", kCjk, R"(\p{N})"}},
      {{"falcon"}, {R"([\p{P}\$\+<=>\^~\|`]+)", kGpt2, R"([0-9][0-9][0-9])"}},
  };
  return specs;
}

// Unicode's White_Space property, the set llama.cpp (unicode-data.cpp) and
// Hugging Face's Oniguruma mean by \s. PCRE2's own \s also takes U+180E
// MONGOLIAN VOWEL SEPARATOR (white space before Unicode 6.3), so every \s and
// \S of the patterns is spelled out with this set before compiling.
constexpr std::string_view kWhiteSpace =
    R"(\t-\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000})";

std::string spell_out_whitespace(std::string_view pattern) {
  std::string out;
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      const char e = pattern[++i];
      if (e == 's') {
        out += in_class ? std::string(kWhiteSpace) : "[" + std::string(kWhiteSpace) + "]";
      } else if (e == 'S' && !in_class) {
        out += "[^" + std::string(kWhiteSpace) + "]";
      } else if (e == 'S') {
        throw std::logic_error("pre-tokenizer regex: \\S inside a character class is not supported");
      } else {
        out += c;
        out += e;
      }
      continue;
    }
    if (c == '[' && !in_class) {
      in_class = true;
      out += c;
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];  // a literal ']' first
      continue;
    }
    if (c == ']' && in_class) in_class = false;
    out += c;
  }
  return out;
}

}  // namespace

std::string known_pretokenizers() {
  std::string names;
  for (const auto& spec : all_specs()) {
    for (auto name : spec.names) {
      if (!names.empty()) names += ", ";
      names += name;
    }
  }
  return names;
}

const PretokenizerSpec& pretokenizer_spec(std::string_view pre) {
  if (pre.empty()) pre = "default";
  for (const auto& spec : all_specs()) {
    for (auto name : spec.names) {
      if (name == pre) return spec;
    }
  }
  throw std::runtime_error("tokenizer.ggml.pre: unknown pre-tokenizer '" + std::string(pre) +
                           "', expected one of: " + known_pretokenizers());
}

struct Pretokenizer::Compiled {
  pcre2_code* code = nullptr;
  ~Compiled() { pcre2_code_free(code); }
};

Pretokenizer::Pretokenizer(std::string_view pre) : spec_(pretokenizer_spec(pre)) {
  // DOLLAR_ENDONLY: "$" means the end of the piece only, as in std::regex
  // (PCRE2 would also match before a final newline).
  const uint32_t options = PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF | PCRE2_DOLLAR_ENDONLY;
  for (auto original : spec_.regexes) {
    const std::string pattern = spell_out_whitespace(original);
    auto compiled = std::make_unique<Compiled>();
    int error = 0;
    PCRE2_SIZE offset = 0;
    compiled->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), options, &error,
                                   &offset, nullptr);
    if (compiled->code == nullptr) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(error, message, sizeof message);
      throw std::runtime_error("pre-tokenizer regex '" + pattern + "' does not compile at offset " +
                               std::to_string(offset) + ": " + reinterpret_cast<const char*>(message));
    }
    // Without JIT (a PCRE2 built without it) the interpreter gives the same matches.
    pcre2_jit_compile(compiled->code, PCRE2_JIT_COMPLETE);
    regexes_.push_back(std::move(compiled));
  }
}

Pretokenizer::~Pretokenizer() = default;

void Pretokenizer::split(std::string_view text, std::vector<std::string_view>& words) const {
  words.clear();
  if (text.empty()) return;
  words.push_back(text);
  std::vector<std::string_view> next;
  for (const auto& regex : regexes_) {
    std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> match(
        pcre2_match_data_create_from_pattern(regex->code, nullptr), &pcre2_match_data_free);
    if (!match) throw std::bad_alloc();
    next.clear();
    for (std::string_view word : words) {
      const auto* subject = reinterpret_cast<PCRE2_SPTR>(word.data());
      size_t start = 0;  // where the next search begins
      size_t emitted = 0;  // end of the last piece pushed
      while (start < word.size()) {
        const int rc = pcre2_match(regex->code, subject, word.size(), start, 0, match.get(), nullptr);
        if (rc == PCRE2_ERROR_NOMATCH) break;
        if (rc < 0) {
          PCRE2_UCHAR message[256];
          pcre2_get_error_message(rc, message, sizeof message);
          throw std::runtime_error(std::string("pre-tokenizer: regex match failed: ") +
                                   reinterpret_cast<const char*>(message));
        }
        const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match.get());
        const size_t begin = ovector[0], end = ovector[1];
        if (end == begin) {  // none of our patterns matches empty; never loop on one
          start = end + 1;
          continue;
        }
        if (begin > emitted) next.push_back(word.substr(emitted, begin - emitted));
        next.push_back(word.substr(begin, end - begin));
        emitted = start = end;
      }
      if (emitted < word.size()) next.push_back(word.substr(emitted));
    }
    words.swap(next);
  }
}

}  // namespace ck::tok
