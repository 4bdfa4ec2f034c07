#include "apps/common/flag_aliases.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace ck::app {
namespace {

bool is_number(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  if (s.empty()) return false;
  bool digit = false;
  for (char c : s) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digit = true;
    } else if (c != '.' && c != 'e' && c != 'E' && c != '-' && c != '+') {
      return false;
    }
  }
  return digit;
}

bool looks_like_flag(std::string_view a) { return a.size() > 1 && a[0] == '-' && !is_number(a); }

bool is_switch_value(std::string_view v) {
  for (std::string_view s : {"on", "off", "auto", "enabled", "disabled", "true", "false", "1", "0", "-1"}) {
    if (v == s) return true;
  }
  return false;
}

const IgnoredFlag* find_ignored(const FlagSpellings& sp, std::string_view name) {
  for (const IgnoredFlag& f : sp.ignored) {
    for (size_t at = 0; at < f.names.size();) {
      const size_t end = std::min(f.names.find(' ', at), f.names.size());
      if (f.names.substr(at, end - at) == name) return &f;
      at = end + 1;
    }
  }
  return nullptr;
}

// "-m", "--model": CLI11 matches either spelling of an option.
const CLI::Option* find_option(const CLI::App& app, const std::string& name) {
  return app.get_option_no_throw(name);
}

// Help text lines of at most `width` columns (CLI11 prints a footer as is).
std::string wrap(const std::string& text, size_t width) {
  std::string out, line;
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = std::min(text.find(' ', at), text.size());
    const std::string word = text.substr(at, end - at);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    at = end + 1;
  }
  return out + line;
}

// A flag (add_flag) expects no value: CLI11 sets its expected count to 0.
bool takes_value(const CLI::Option* o) { return o->get_expected_max() > 0 && o->get_type_size_max() > 0; }

}  // namespace

NormalizedArgs normalize_args(const CLI::App& app, std::vector<std::string> in, const FlagSpellings& sp) {
  NormalizedArgs out;
  if (in.empty()) return out;
  out.args.push_back(in[0]);
  for (size_t i = 1; i < in.size(); ++i) {
    std::string arg = in[i];
    if (arg == "--") {  // the rest is positional
      out.args.insert(out.args.end(), in.begin() + static_cast<std::ptrdiff_t>(i), in.end());
      break;
    }
    if (!looks_like_flag(arg)) {
      out.args.push_back(arg);
      continue;
    }
    const size_t eq = arg.find('=');
    std::string name = arg.substr(0, eq);
    std::string attached = eq == std::string::npos ? "" : arg.substr(eq + 1);

    for (const auto& [from, to] : sp.aliases) {
      if (name == from && find_option(app, std::string(to)) != nullptr) {
        name = to;
        break;
      }
    }
    if (const IgnoredFlag* f = find_ignored(sp, name); f != nullptr && find_option(app, name) == nullptr) {
      std::string shown = name;
      if (eq != std::string::npos) {
        shown += " " + attached;
      } else if (f->value == IgnoredValue::One && i + 1 < in.size()) {
        shown += " " + in[++i];
      } else if (f->value == IgnoredValue::OptionalSwitch && i + 1 < in.size() && is_switch_value(in[i + 1])) {
        shown += " " + in[++i];
      }
      out.notes.push_back(shown + " ignored: " + std::string(f->why));
      continue;
    }
    const CLI::Option* opt = find_option(app, name);
    if (opt == nullptr) throw std::invalid_argument("unknown flag " + name);
    if (eq != std::string::npos) {  // -p=x or --prompt=x: CLI11 splits only the long form at '='
      out.args.push_back((opt->get_lnames().empty() ? name : "--" + opt->get_lnames().front()) + "=" + attached);
      continue;
    }
    if (!takes_value(opt) || i + 1 >= in.size()) {
      out.args.push_back(name);
      continue;
    }
    // The next argument is this option's value, whatever it looks like.
    // CLI11 takes "--name=value" as one value; a short-only option, and an
    // empty value (which "--name=" would lose), keep the two-argument form.
    const std::string& value = in[++i];
    if (!opt->get_lnames().empty() && !value.empty()) {
      out.args.push_back("--" + opt->get_lnames().front() + "=" + value);
    } else {
      out.args.push_back(name);
      out.args.push_back(value);
    }
  }
  return out;
}

std::string describe_spellings(const CLI::App& app, const FlagSpellings& sp) {
  std::string aliases, ignored;
  for (const auto& [from, to] : sp.aliases) {
    if (find_option(app, std::string(to)) != nullptr) {
      aliases += std::string(aliases.empty() ? "" : ", ") + std::string(from) + " = " + std::string(to);
    }
  }
  for (const IgnoredFlag& f : sp.ignored) ignored += std::string(ignored.empty() ? "" : " ") + std::string(f.names);
  if (aliases.empty() && ignored.empty()) return {};
  std::string text;
  if (!aliases.empty()) text += wrap("llama.cpp's spellings: " + aliases + ".", 100) + "\n";
  if (!ignored.empty()) {
    text += wrap("Accepted and ignored with a one-line note (no meaning on ck's CPU runtime): " + ignored + ".", 100) +
            "\n";
  }
  return text + "Any other unknown flag is an error naming it.";
}

}  // namespace ck::app
