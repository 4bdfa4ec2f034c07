#include "grammar/regex_pattern.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "grammar/gbnf_text.h"
#include "grammar/utf8_tokens.h"

namespace ck::grammar {
namespace {

using Set = std::vector<CharRange>;  // sorted, disjoint, not touching

constexpr uint32_t kMaxCodePoint = 0x10FFFF;
constexpr int kMaxRepeat = 1000;  // the GBNF parser's limits
constexpr int kMaxNesting = 40;  // each group may add two GBNF groups, which nest 100 deep at most

Set normalized(Set s) {
  std::sort(s.begin(), s.end(), [](const CharRange& a, const CharRange& b) { return a.lo < b.lo; });
  Set out;
  for (const CharRange& r : s) {
    if (!out.empty() && r.lo <= out.back().hi + 1) {
      out.back().hi = std::max(out.back().hi, r.hi);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

Set complement(const Set& s) {  // s normalized
  Set out;
  uint32_t next = 0;
  for (const CharRange& r : s) {
    if (r.lo > next) out.push_back({next, r.lo - 1});
    next = r.hi + 1;
  }
  if (next <= kMaxCodePoint) out.push_back({next, kMaxCodePoint});
  return out;
}

Set minus(const Set& a, const Set& b) {  // both normalized
  Set both = b;
  Set out;
  for (const CharRange& r : complement(normalized(both))) {
    for (const CharRange& x : a) {
      const uint32_t lo = std::max(r.lo, x.lo), hi = std::min(r.hi, x.hi);
      if (lo <= hi) out.push_back({lo, hi});
    }
  }
  return normalized(out);
}

bool contains(const Set& s, uint32_t cp) {
  return std::any_of(s.begin(), s.end(), [&](const CharRange& r) { return cp >= r.lo && cp <= r.hi; });
}

// ECMA-262's \s and its line terminators ('.' matches anything else).
const Set kSpace = {{'\t', '\r'}, {' ', ' '}, {0xA0, 0xA0}, {0x1680, 0x1680}, {0x2000, 0x200A}, {0x2028, 0x2029},
                    {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000}, {0xFEFF, 0xFEFF}};
const Set kLineEnds = {{'\n', '\n'}, {'\r', '\r'}, {0x2028, 0x2029}};
const Set kDigit = {{'0', '9'}};
const Set kWord = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
// What JSON cannot write as itself inside a string.
const Set kEscapedInJson = {{0x00, 0x1F}, {'"', '"'}, {'\\', '\\'}};

// How JSON writes a character it must escape.
std::string json_escape(uint32_t cp) {
  switch (cp) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\b': return "\\b";
    case '\f': return "\\f";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      return buf;
    }
  }
}

// The JSON text of any one character of `s` (non-empty).
std::string json_chars(const Set& s) {
  std::vector<std::string> alts;
  const Set plain = minus(s, kEscapedInJson);
  if (!plain.empty()) alts.push_back(gbnf_class(plain));
  for (const CharRange& r : kEscapedInJson) {
    for (uint32_t cp = r.lo; cp <= r.hi; ++cp) {
      if (contains(s, cp)) alts.push_back(gbnf_literal(json_escape(cp)));
    }
  }
  if (alts.size() == 1) return alts[0];
  std::string out;
  for (const std::string& a : alts) out += (out.empty() ? "(" : " | ") + a;
  return out + ")";
}

class PatternParser {
 public:
  explicit PatternParser(const std::string& pattern) : pattern_(pattern), cps_(decode_utf8(pattern).code_points) {}

  std::string parse() {
    std::vector<std::string> branches;
    do {
      branches.push_back(top_branch());
    } while (take('|'));
    if (!at_end()) fail("unbalanced ')'");
    std::string body;
    for (const std::string& b : branches) body += (body.empty() ? "" : " | ") + b;
    return "\"\\\"\" (" + body + ") \"\\\"\"";
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("pattern '" + pattern_ + "': " + what);
  }
  bool at_end() const { return pos_ >= cps_.size(); }
  uint32_t peek(size_t ahead = 0) const { return pos_ + ahead < cps_.size() ? cps_[pos_ + ahead] : 0; }
  bool take(uint32_t c) {
    if (at_end() || peek() != c) return false;
    ++pos_;
    return true;
  }

  // A top-level alternative: anchored by ^ and $, or open (char*) on a side.
  std::string top_branch() {
    const bool anchored_start = take('^');
    std::string seq = sequence();
    const bool anchored_end = take('$');
    if (!at_end() && peek() != '|') fail(peek() == ')' ? "unbalanced ')'" : "'$' inside the pattern is not supported");
    if (!anchored_start) seq = "char* " + seq;
    if (!anchored_end) seq += " char*";
    return seq;
  }

  std::string alternatives() {
    std::string out = sequence();
    while (take('|')) out += " | " + sequence();
    return out;
  }

  std::string sequence() {
    std::string out;
    while (!at_end() && peek() != '|' && peek() != ')' && !(peek() == '$' && ends_branch())) {
      std::string a = quantified(atom());
      out += (out.empty() ? "" : " ") + a;
    }
    return out.empty() ? "\"\"" : out;
  }

  // '$' ends a top-level alternative (else it is refused there).
  bool ends_branch() const { return depth_ == 0; }

  std::string atom() {
    const uint32_t c = peek();
    ++pos_;
    switch (c) {
      case '(': return group();
      case '[': return json_chars(char_class());
      case '.': return json_chars(complement(kLineEnds));
      case '\\': return escape_atom();
      case '^': case '$': fail("an anchor inside the pattern is not supported (only at its ends)");
      case '*': case '+': case '?': case '{': fail(std::string("'") + static_cast<char>(c) + "' has nothing to repeat");
      default: return json_chars({{c, c}});
    }
  }

  std::string group() {
    if (take('?')) {
      if (take(':')) {
      } else if (peek() == '<' && peek(1) != '=' && peek(1) != '!') {
        while (!at_end() && peek() != '>') ++pos_;  // a named group: the name does not matter
        if (!take('>')) fail("unterminated group name");
      } else {
        fail("lookarounds and other (?...) groups are not supported");
      }
    }
    if (++depth_ > kMaxNesting) fail("groups nested more than " + std::to_string(kMaxNesting) + " deep");
    std::string inner = alternatives();
    --depth_;
    if (!take(')')) fail("missing ')'");
    return "(" + inner + ")";
  }

  std::string quantified(const std::string& atom) {
    int min = 0, max = -1;
    if (take('*')) {
    } else if (take('+')) {
      min = 1;
    } else if (take('?')) {
      max = 1;
    } else if (take('{')) {
      min = count();
      max = min;
      if (take(',')) max = peek() == '}' ? -1 : count();
      if (!take('}')) fail("expected '}' to end the repetition {m,n}");
      if (max != -1 && max < min) fail("repetition {" + std::to_string(min) + "," + std::to_string(max) + "} is out of order");
    } else {
      return atom;
    }
    take('?');  // lazy: the same strings
    if (peek() == '*' || peek() == '+' || peek() == '?' || peek() == '{') fail("a repetition of a repetition");
    if (min == 0 && max == -1) return "(" + atom + ")*";
    if (min == 1 && max == -1) return "(" + atom + ")+";
    if (min == 0 && max == 1) return "(" + atom + ")?";
    return "(" + atom + "){" + std::to_string(min) + (max == min ? "" : "," + (max == -1 ? "" : std::to_string(max))) + "}";
  }

  int count() {
    if (!(peek() >= '0' && peek() <= '9')) fail("expected a number in the repetition {m,n}");
    int n = 0;
    while (peek() >= '0' && peek() <= '9') {
      n = n * 10 + static_cast<int>(peek() - '0');
      if (n > kMaxRepeat) fail("a repetition count above " + std::to_string(kMaxRepeat));
      ++pos_;
    }
    return n;
  }

  // After '['.
  Set char_class() {
    const bool negated = take('^');
    Set s;
    while (!at_end() && peek() != ']') {
      Set item = class_item();
      if (item.size() == 1 && item[0].lo == item[0].hi && peek() == '-' && peek(1) != ']' && pos_ + 1 < cps_.size()) {
        ++pos_;
        Set end = class_item();
        if (end.size() != 1 || end[0].lo != end[0].hi) fail("a range in a class must end in one character");
        if (end[0].lo < item[0].lo) fail("a range in a class is out of order");
        item = {{item[0].lo, end[0].lo}};
      }
      s.insert(s.end(), item.begin(), item.end());
    }
    if (!take(']')) fail("unterminated character class");
    s = normalized(s);
    if (negated) s = complement(s);
    if (s.empty()) fail("a character class that matches nothing");
    return s;
  }

  Set class_item() {
    const uint32_t c = peek();
    ++pos_;
    if (c != '\\') return {{c, c}};
    if (take('b')) return {{'\b', '\b'}};  // backspace inside a class
    return escape();
  }

  std::string escape_atom() {
    if (peek() == 'b' || peek() == 'B') fail("word boundaries (\\b, \\B) are not supported");
    return json_chars(escape());
  }

  // After '\': the characters it stands for.
  Set escape() {
    if (at_end()) fail("a '\\' at the end");
    const uint32_t c = peek();
    ++pos_;
    switch (c) {
      case 'd': return kDigit;
      case 'D': return complement(kDigit);
      case 'w': return kWord;
      case 'W': return complement(kWord);
      case 's': return kSpace;
      case 'S': return complement(kSpace);
      case 'n': return {{'\n', '\n'}};
      case 'r': return {{'\r', '\r'}};
      case 't': return {{'\t', '\t'}};
      case 'f': return {{'\f', '\f'}};
      case 'v': return {{'\v', '\v'}};
      case '0':
        if (peek() >= '0' && peek() <= '9') fail("octal escapes are not supported");
        return {{0, 0}};
      case 'x': {
        const uint32_t cp = hex(2);
        return {{cp, cp}};
      }
      case 'u': {
        const uint32_t cp = hex(4);
        return {{cp, cp}};
      }
      default: break;
    }
    if (c >= '1' && c <= '9') fail("backreferences are not supported");
    if (c == 'p' || c == 'P') fail("Unicode property escapes (\\p, \\P) are not supported");
    const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (alnum) fail(std::string("unknown escape '\\") + static_cast<char>(c) + "'");
    return {{c, c}};  // escaped punctuation stands for itself
  }

  uint32_t hex(int digits) {
    uint32_t v = 0;
    for (int i = 0; i < digits; ++i) {
      const uint32_t c = peek();
      int d = -1;
      if (c >= '0' && c <= '9') d = static_cast<int>(c - '0');
      if (c >= 'a' && c <= 'f') d = static_cast<int>(c - 'a' + 10);
      if (c >= 'A' && c <= 'F') d = static_cast<int>(c - 'A' + 10);
      if (d < 0) fail("expected " + std::to_string(digits) + " hex digits in an escape");
      v = v * 16 + static_cast<uint32_t>(d);
      ++pos_;
    }
    return v;
  }

  const std::string& pattern_;
  std::vector<uint32_t> cps_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

std::string pattern_to_gbnf(const std::string& pattern) { return PatternParser(pattern).parse(); }

}  // namespace ck::grammar
