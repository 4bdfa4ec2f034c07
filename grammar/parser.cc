#include "grammar/parser.h"

#include <functional>
#include <map>

namespace ck::grammar {
namespace {

constexpr int kMaxRepeat = 1000;
constexpr int kMaxNesting = 100;  // groups in groups: the parser recurses once per level
constexpr size_t kNone = static_cast<size_t>(-1);

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Grammar parse() {
    skip_space(true);
    while (!at_end()) {
      parse_rule();
      skip_space(true);
    }
    for (size_t id = 0; id < g_.rules.size(); ++id) {
      if (!defined_[id]) fail(where_[id], "undefined rule '" + g_.rules[id].name + "'");
    }
    const auto root = ids_.find("root");
    if (root == ids_.end()) fail(text_.size(), "the grammar has no rule 'root' (where it starts)");
    g_.root = root->second;
    check_left_recursion();
    return std::move(g_);
  }

 private:
  [[noreturn]] void fail(size_t at, const std::string& what) const {
    int line = 1, column = 1;
    for (size_t i = 0; i < at && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw GrammarError(line, column, what);
  }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }

  // Blanks and comments; line breaks too when `newlines` (inside a group,
  // after '|' or '::=', and between rules).
  void skip_space(bool newlines) {
    while (!at_end()) {
      const char c = peek();
      if (c == ' ' || c == '\t' || (newlines && (c == '\n' || c == '\r'))) {
        ++pos_;
      } else if (c == '#') {
        while (!at_end() && peek() != '\n') ++pos_;
      } else {
        return;
      }
    }
  }

  std::string name() {
    const size_t start = pos_;
    while (is_name_char(peek())) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  uint32_t add_rule(std::string name, bool defined, size_t at) {
    g_.rules.push_back({std::move(name), {}});
    defined_.push_back(defined);
    where_.push_back(at);
    return static_cast<uint32_t>(g_.rules.size() - 1);
  }

  uint32_t rule_id(const std::string& name, size_t at) {
    const auto it = ids_.find(name);
    if (it != ids_.end()) return it->second;
    const uint32_t id = add_rule(name, false, at);
    ids_.emplace(name, id);
    return id;
  }

  // A rule made for a group or a repetition inside rule `base`.
  uint32_t helper(const std::string& base, std::vector<Sequence> alternatives) {
    const uint32_t id = add_rule(base + "_" + std::to_string(g_.rules.size()), true, pos_);
    g_.rules[id].alternatives = std::move(alternatives);
    return id;
  }

  static Element ref(uint32_t rule) {
    Element e;
    e.kind = Element::Kind::Rule;
    e.rule = rule;
    return e;
  }

  void parse_rule() {
    const size_t at = pos_;
    const std::string n = name();
    if (n.empty()) fail(pos_, "expected a rule name");
    skip_space(false);
    if (text_.substr(pos_, 3) != "::=") fail(pos_, "expected '::=' after the rule name '" + n + "'");
    pos_ += 3;
    skip_space(true);
    const uint32_t id = rule_id(n, at);
    if (defined_[id]) fail(at, "rule '" + n + "' is defined twice");
    defined_[id] = true;
    where_[id] = at;
    std::vector<Sequence> alternatives = parse_alternatives(n, false);
    g_.rules[id].alternatives = std::move(alternatives);
    if (!at_end() && peek() != '\n' && peek() != '\r') {
      fail(pos_, std::string("unexpected '") + peek() + "' in rule '" + n + "'");
    }
  }

  std::vector<Sequence> parse_alternatives(const std::string& rule, bool nested) {
    std::vector<Sequence> alternatives;
    alternatives.push_back(parse_sequence(rule, nested));
    while (peek() == '|') {
      ++pos_;
      skip_space(true);
      alternatives.push_back(parse_sequence(rule, nested));
    }
    return alternatives;
  }

  Sequence parse_sequence(const std::string& rule, bool nested) {
    Sequence seq;
    size_t last = kNone;  // where the item a postfix operator repeats begins
    while (!at_end()) {
      const char c = peek();
      const size_t at = pos_;
      if (c == '"') {
        ++pos_;
        last = seq.size();
        while (peek() != '"') {
          if (at_end()) fail(at, "unterminated string literal");
          const uint32_t cp = parse_char();
          Element e;
          e.ranges = {{cp, cp}};
          seq.push_back(std::move(e));
        }
        ++pos_;
      } else if (c == '[') {
        last = seq.size();
        seq.push_back(parse_class());
      } else if (c == '.') {
        ++pos_;
        last = seq.size();
        Element any;
        any.negated = true;
        seq.push_back(std::move(any));
      } else if (is_name_char(c)) {
        last = seq.size();
        seq.push_back(ref(rule_id(name(), at)));
      } else if (c == '(') {
        if (++nesting_ > kMaxNesting) fail(at, "groups nested more than " + std::to_string(kMaxNesting) + " deep");
        ++pos_;
        skip_space(true);
        std::vector<Sequence> inner = parse_alternatives(rule, true);
        if (peek() != ')') fail(pos_, at_end() ? "missing ')' before the end of the grammar" : "expected ')'");
        ++pos_;
        --nesting_;
        last = seq.size();
        seq.push_back(ref(helper(rule, std::move(inner))));
      } else if (c == '*' || c == '+' || c == '?' || c == '{') {
        if (last == kNone) fail(at, std::string("'") + c + "' has nothing before it to repeat");
        int min = 0, max = -1;
        ++pos_;
        if (c == '+') min = 1;
        if (c == '?') max = 1;
        if (c == '{') parse_counts(at, min, max);
        repeat(seq, last, min, max, rule);
        last = kNone;
      } else {
        break;  // '|', ')', the end of the line, or something the caller refuses
      }
      skip_space(nested);
    }
    return seq;
  }

  int parse_count(size_t brace) {
    if (!(peek() >= '0' && peek() <= '9')) fail(pos_, "expected a number in the repetition {m,n}");
    long n = 0;
    while (peek() >= '0' && peek() <= '9') {
      n = n * 10 + (peek() - '0');
      ++pos_;
      if (n > kMaxRepeat) fail(brace, "repetition count above " + std::to_string(kMaxRepeat));
    }
    return static_cast<int>(n);
  }

  // After '{': "m}", "m,}" or "m,n}".
  void parse_counts(size_t brace, int& min, int& max) {
    skip_space(false);
    min = parse_count(brace);
    skip_space(false);
    max = min;
    if (peek() == ',') {
      ++pos_;
      skip_space(false);
      max = peek() == '}' ? -1 : parse_count(brace);
      skip_space(false);
    }
    if (peek() != '}') fail(pos_, "expected '}' to close the repetition {m,n}");
    ++pos_;
    if (max != -1 && max < min) fail(brace, "repetition {m,n} with n < m");
  }

  // seq[from..] repeated min to max times (max -1: no limit), as helper
  // rules: x* is R ::= x R | (empty), x{0,n} nests n optional rules.
  void repeat(Sequence& seq, size_t from, int min, int max, const std::string& rule) {
    Sequence item(seq.begin() + static_cast<std::ptrdiff_t>(from), seq.end());
    seq.resize(from);
    if (item.empty()) return;  // "" repeated is still ""
    const Element unit = item.size() == 1 ? item[0] : ref(helper(rule, {item}));
    for (int i = 0; i < min; ++i) seq.push_back(unit);
    if (max == -1) {
      const uint32_t star = helper(rule, {});
      g_.rules[star].alternatives = {{unit, ref(star)}, {}};
      seq.push_back(ref(star));
      return;
    }
    size_t optional = kNone;
    for (int i = min; i < max; ++i) {
      Sequence more = {unit};
      if (optional != kNone) more.push_back(ref(static_cast<uint32_t>(optional)));
      optional = helper(rule, {more, {}});
    }
    if (optional != kNone) seq.push_back(ref(static_cast<uint32_t>(optional)));
  }

  Element parse_class() {
    const size_t open = pos_;
    ++pos_;
    Element e;
    if (peek() == '^') {
      e.negated = true;
      ++pos_;
    }
    while (peek() != ']') {
      if (at_end()) fail(open, "unterminated character class");
      const size_t at = pos_;
      const uint32_t lo = parse_char();
      uint32_t hi = lo;
      if (peek() == '-' && peek(1) != ']' && pos_ + 1 < text_.size()) {
        ++pos_;
        hi = parse_char();
        if (hi < lo) fail(at, "character range with its end before its start");
      }
      e.ranges.push_back({lo, hi});
    }
    ++pos_;
    return e;
  }

  // One character of a literal or a class: an escape or a UTF-8 sequence.
  uint32_t parse_char() {
    const size_t at = pos_;
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(peek(i)); };
    if (peek() == '\\') {
      const char e = peek(1);
      pos_ += 2;
      switch (e) {
        case 'n': return '\n';
        case 'r': return '\r';
        case 't': return '\t';
        case '\\': case '"': case '\'': case '[': case ']': case '-': case '^': case '/': return static_cast<uint32_t>(e);
        case 'x': return parse_hex(at, 2);
        case 'u': return parse_hex(at, 4);
        case 'U': return parse_hex(at, 8);
        default:
          if (at + 1 >= text_.size()) fail(at, "unfinished escape at the end of the grammar");
          fail(at, std::string("unknown escape '\\") + e + "'");
      }
    }
    const unsigned char b0 = byte(0);
    const int len = b0 < 0x80 ? 1 : (b0 >> 5) == 0x6 ? 2 : (b0 >> 4) == 0xE ? 3 : (b0 >> 3) == 0x1E ? 4 : 0;
    if (len == 0) fail(at, "invalid UTF-8");
    uint32_t cp = len == 1 ? b0 : b0 & (0x7F >> len);
    for (int i = 1; i < len; ++i) {
      if ((byte(static_cast<size_t>(i)) & 0xC0) != 0x80) fail(at, "invalid UTF-8");
      cp = (cp << 6) | (byte(static_cast<size_t>(i)) & 0x3F);
    }
    pos_ += static_cast<size_t>(len);
    return cp;
  }

  uint32_t parse_hex(size_t at, int digits) {
    uint32_t v = 0;
    for (int i = 0; i < digits; ++i) {
      const int d = hex_value(peek());
      if (d < 0) fail(at, "expected " + std::to_string(digits) + " hex digits after '\\" + text_[at + 1] + "'");
      v = v * 16 + static_cast<uint32_t>(d);
      ++pos_;
    }
    if (v > 0x10FFFF) fail(at, "code point above U+10FFFF");
    return v;
  }

  // A rule that can reach itself before any character would make the
  // matcher expand forever: refused here, as llama.cpp does.
  void check_left_recursion() const {
    const size_t n = g_.rules.size();
    std::vector<bool> nullable(n, false);
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t r = 0; r < n; ++r) {
        if (nullable[r]) continue;
        for (const Sequence& alt : g_.rules[r].alternatives) {
          bool all = true;
          for (const Element& e : alt) all = all && e.kind == Element::Kind::Rule && nullable[e.rule];
          if (all) {
            nullable[r] = changed = true;
            break;
          }
        }
      }
    }
    enum Mark { kNew, kOpen, kDone };
    std::vector<Mark> mark(n, kNew);
    std::function<void(size_t)> visit = [&](size_t r) {
      mark[r] = kOpen;
      for (const Sequence& alt : g_.rules[r].alternatives) {
        for (const Element& e : alt) {
          if (e.kind != Element::Kind::Rule) break;
          if (mark[e.rule] == kOpen) {
            fail(where_[e.rule], "left recursion: rule '" + g_.rules[e.rule].name +
                                     "' can reach itself before matching a character");
          }
          if (mark[e.rule] == kNew) visit(e.rule);
          if (!nullable[e.rule]) break;
        }
      }
      mark[r] = kDone;
    };
    for (size_t r = 0; r < n; ++r) {
      if (mark[r] == kNew) visit(r);
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  int nesting_ = 0;
  Grammar g_;
  std::map<std::string, uint32_t, std::less<>> ids_;
  std::vector<bool> defined_;
  std::vector<size_t> where_;  // where each rule is defined (or first used, until it is)
};

}  // namespace

GrammarError::GrammarError(int line, int column, const std::string& what)
    : std::runtime_error("line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + what),
      line_(line),
      column_(column) {}

Grammar parse_grammar(std::string_view text) { return Parser(text).parse(); }

}  // namespace ck::grammar
