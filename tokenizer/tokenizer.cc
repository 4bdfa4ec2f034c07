#include "tokenizer/tokenizer.h"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <optional>
#include <stdexcept>

#include "tokenizer/bpe_model.h"
#include "tokenizer/byte_unicode.h"
#include "tokenizer/special_split.h"
#include "tokenizer/spm_model.h"
#include "tokenizer/token_index.h"
#include "tokenizer/validate_vocab.h"

namespace ck::tok {

namespace {

constexpr std::string_view kSpmSpace = "\xE2\x96\x81";  // U+2581, SentencePiece's space

// Tokens that end a turn in the chat formats we know; llama.cpp recognises the
// same texts (llama-vocab.cpp) because converters do not always set eot_token_id.
constexpr std::string_view kEndMarkers[] = {
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|eom_id|>",
    "<|end_of_text|>", "<EOT>", "<end_of_utterance>",
};

// The byte a SentencePiece byte token "<0xNN>" stands for.
std::optional<char> byte_token_value(std::string_view text) {
  if (text.size() != 6 || text.substr(0, 3) != "<0x" || text[5] != '>') return std::nullopt;
  int value = 0;
  for (char c : text.substr(3, 2)) {
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) return std::nullopt;
    value = value * 16 + digit;
  }
  return static_cast<char>(value);
}

// The token types llama.cpp works with: as stored (Normal when the file has
// none), except that end markers count as Control even when the converter
// wrote them as Normal or UserDefined.
std::vector<TokenType> effective_types(const VocabData& v) {
  std::vector<TokenType> types(v.tokens.size(), TokenType::Normal);
  for (size_t i = 0; i < v.token_types.size(); ++i) types[i] = static_cast<TokenType>(v.token_types[i]);
  for (size_t i = 0; i < v.tokens.size(); ++i) {
    if (std::find(std::begin(kEndMarkers), std::end(kEndMarkers), v.tokens[i]) != std::end(kEndMarkers)) {
      types[i] = TokenType::Control;
    }
  }
  return types;
}

std::vector<int32_t> end_of_generation_ids(const VocabData& v) {
  std::vector<int32_t> eog;
  for (size_t i = 0; i < v.tokens.size(); ++i) {
    if (std::find(std::begin(kEndMarkers), std::end(kEndMarkers), v.tokens[i]) != std::end(kEndMarkers)) {
      eog.push_back(static_cast<int32_t>(i));
    }
  }
  for (int32_t id : {v.eos_id, v.eot_id, v.eom_id}) {
    if (id >= 0) eog.push_back(id);
  }
  std::sort(eog.begin(), eog.end());
  eog.erase(std::unique(eog.begin(), eog.end()), eog.end());
  return eog;
}

// The ids of the tokens of the given types, longest text first (the order
// special tokens are looked for in the text).
std::vector<int32_t> specials_longest_first(const VocabData& v, const std::vector<TokenType>& types,
                                            std::initializer_list<TokenType> wanted) {
  std::vector<int32_t> ids;
  for (size_t i = 0; i < types.size(); ++i) {
    if (!v.tokens[i].empty() && std::find(wanted.begin(), wanted.end(), types[i]) != wanted.end()) {
      ids.push_back(static_cast<int32_t>(i));
    }
  }
  std::stable_sort(ids.begin(), ids.end(),
                   [&](int32_t a, int32_t b) { return v.tokens[a].size() > v.tokens[b].size(); });
  return ids;
}

// SentencePiece writes spaces as U+2581.
std::string escape_spaces(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 4);
  for (char c : text) {
    if (c == ' ') {
      out += kSpmSpace;
    } else {
      out += c;
    }
  }
  return out;
}

std::string unescape_spaces(std::string_view text) {
  std::string out;
  for (size_t pos = 0; pos < text.size();) {
    if (text.substr(pos, kSpmSpace.size()) == kSpmSpace) {
      out += ' ';
      pos += kSpmSpace.size();
    } else {
      out += text[pos++];
    }
  }
  return out;
}

}  // namespace

struct Tokenizer::Impl {
  VocabData vocab;
  bool spm;
  std::vector<TokenType> types;  // effective_types()
  TokenIndex index;
  std::vector<int32_t> specials_parsed;    // control, unknown, user-defined; longest first
  std::vector<int32_t> specials_verbatim;  // user-defined only; longest first
  std::vector<int32_t> eog;
  std::optional<SpmModel> spm_model;
  std::optional<BpeModel> bpe_model;
  std::vector<std::string> pieces;  // token_to_piece without render_special

  explicit Impl(VocabData v)
      : vocab((validate_vocab(v), std::move(v))),
        spm(vocab.model == "llama"),
        types(effective_types(vocab)),
        index(vocab.tokens),
        specials_parsed(specials_longest_first(
            vocab, types, {TokenType::Control, TokenType::Unknown, TokenType::UserDefined})),
        specials_verbatim(specials_longest_first(vocab, types, {TokenType::UserDefined})),
        eog(end_of_generation_ids(vocab)) {
    if (spm) {
      spm_model.emplace(vocab, index);
    } else {
      bpe_model.emplace(vocab, index);
    }
    pieces.reserve(vocab.tokens.size());
    for (size_t i = 0; i < vocab.tokens.size(); ++i) pieces.push_back(render(static_cast<int32_t>(i)));
  }

  // llama.cpp's token_to_piece with special = false.
  std::string render(int32_t id) const {
    const std::string& text = vocab.tokens[id];
    switch (types[id]) {
      case TokenType::UserDefined:
        return text;
      case TokenType::Normal: {
        if (spm) return unescape_spaces(text);
        std::string bytes;
        append_from_byte_level(text, bytes);
        return bytes;
      }
      case TokenType::Byte:
        if (auto byte = byte_token_value(text)) return std::string(1, *byte);
        return {};
      default:  // Control, Unknown (shown only when asked), Unused, Undefined
        return {};
    }
  }

  void check(int32_t id) const {
    if (id < 0 || id >= static_cast<int32_t>(vocab.tokens.size())) {
      throw std::runtime_error("token id " + std::to_string(id) + " is outside the vocabulary [0, " +
                               std::to_string(vocab.tokens.size()) + ")");
    }
  }

  bool is_special(int32_t id) const { return types[id] == TokenType::Control || types[id] == TokenType::Unknown; }
};

Tokenizer::Tokenizer(VocabData vocab) : impl_(std::make_unique<const Impl>(std::move(vocab))) {}
Tokenizer::~Tokenizer() = default;
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool add_special, bool parse_special) const {
  const Impl& m = *impl_;
  if (text.size() >= std::numeric_limits<uint32_t>::max()) {
    throw std::runtime_error("tokenizer: text of " + std::to_string(text.size()) +
                             " bytes is too long, expected under 4 GiB");
  }
  std::vector<int32_t> out;
  out.reserve(text.size() / 3 + 4);
  if (add_special && m.vocab.add_bos) out.push_back(m.vocab.bos_id);
  const auto fragments = split_specials(text, parse_special ? m.specials_parsed : m.specials_verbatim, m.vocab.tokens);
  // SPM puts a space before text that starts the input or follows a special token.
  bool after_special = true;
  for (const Fragment& fragment : fragments) {
    if (fragment.token >= 0) {
      out.push_back(fragment.token);
      after_special = true;
      continue;
    }
    if (m.spm) {
      const bool prefix = m.vocab.add_space_prefix && after_special;
      m.spm_model->encode((prefix ? std::string(kSpmSpace) : std::string()) + escape_spaces(fragment.text), out);
    } else {
      m.bpe_model->encode(fragment.text, out);
    }
    after_special = false;
  }
  if (add_special && m.vocab.add_eos) out.push_back(m.vocab.eos_id);
  return out;
}

std::string Tokenizer::token_to_piece(int32_t id, bool render_special) const {
  impl_->check(id);
  if (render_special && impl_->is_special(id)) return impl_->vocab.tokens[id];
  return impl_->pieces[id];
}

std::string Tokenizer::decode(std::span<const int32_t> ids, bool render_special) const {
  // The space encode() prefixed sits on the first token after a leading BOS.
  const size_t first = !ids.empty() && ids[0] == impl_->vocab.bos_id ? 1 : 0;
  const bool strip_space = impl_->spm && impl_->vocab.add_space_prefix;
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string piece = token_to_piece(ids[i], render_special);
    const bool strip = strip_space && i == first && !piece.empty() && piece[0] == ' ';
    text.append(piece, strip ? 1 : 0);
  }
  return text;
}

int32_t Tokenizer::n_vocab() const { return static_cast<int32_t>(impl_->vocab.tokens.size()); }
int32_t Tokenizer::bos() const { return impl_->vocab.bos_id; }
int32_t Tokenizer::eos() const { return impl_->vocab.eos_id; }
bool Tokenizer::add_bos() const { return impl_->vocab.add_bos; }
bool Tokenizer::add_eos() const { return impl_->vocab.add_eos; }
bool Tokenizer::is_eog(int32_t id) const { return std::binary_search(impl_->eog.begin(), impl_->eog.end(), id); }
const std::vector<int32_t>& Tokenizer::eog_ids() const { return impl_->eog; }
const std::string& Tokenizer::chat_template() const { return impl_->vocab.chat_template; }
bool Tokenizer::is_spm() const { return impl_->spm; }

const std::string& Tokenizer::token_text(int32_t id) const {
  impl_->check(id);
  return impl_->vocab.tokens[id];
}

TokenType Tokenizer::token_type(int32_t id) const {
  impl_->check(id);
  return impl_->types[id];
}

}  // namespace ck::tok
