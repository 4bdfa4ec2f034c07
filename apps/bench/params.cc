#include "apps/bench/params.h"

#include <regex>
#include <stdexcept>

namespace ck::bench {

std::vector<int> parse_int_list(const std::string& s) {
  // first[-last[(+|*)step]], comma separated
  static const std::regex item(R"(^(\d+)(?:-(\d+)(?:([+*])(\d+))?)?$)");
  std::vector<int> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    const size_t comma = s.find(',', pos);
    const std::string part = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    std::smatch m;
    if (!std::regex_match(part, m, item)) {
      throw std::invalid_argument("'" + s + "': expected numbers, ranges like 1-4, 1-16*2 or 128-512+128");
    }
    const long first = std::stol(m[1]);
    const long last = m[2].matched ? std::stol(m[2]) : first;
    const char op = m[3].matched ? m[3].str()[0] : '+';
    const long step = m[4].matched ? std::stol(m[4]) : 1;
    if (last < first || (op == '+' && step < 1) || (op == '*' && step < 2) || last > 1'000'000'000) {
      throw std::invalid_argument("'" + part + "': empty or endless range");
    }
    for (long i = first; i <= last; i = op == '+' ? i + step : (i == 0 ? last + 1 : i * step)) {
      out.push_back(static_cast<int>(i));
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

std::pair<int, int> parse_pg(const std::string& s) {
  static const std::regex pair(R"(^(\d+),(\d+)$)");
  std::smatch m;
  if (!std::regex_match(s, m, pair)) throw std::invalid_argument("-pg '" + s + "': expected PROMPT,GEN like 512,128");
  return {std::stoi(m[1]), std::stoi(m[2])};
}

OutputFormat parse_output_format(const std::string& s) {
  if (s == "md") return OutputFormat::Markdown;
  if (s == "csv") return OutputFormat::Csv;
  if (s == "json") return OutputFormat::Json;
  if (s == "jsonl") return OutputFormat::Jsonl;
  throw std::invalid_argument("-o '" + s + "': expected md, csv, json or jsonl");
}

std::string TestSpec::name() const {
  std::string n = n_gen == 0 ? "pp" + std::to_string(n_prompt)
                  : n_prompt == 0 ? "tg" + std::to_string(n_gen)
                                  : "pp" + std::to_string(n_prompt) + "+tg" + std::to_string(n_gen);
  if (n_depth > 0) n += " @ d" + std::to_string(n_depth);
  return n;
}

std::vector<TestSpec> expand_tests(const std::vector<int>& n_prompt, const std::vector<int>& n_gen,
                                   const std::vector<std::pair<int, int>>& n_pg, const std::vector<int>& n_depth) {
  std::vector<TestSpec> tests;
  for (int d : n_depth) {
    for (int p : n_prompt) if (p > 0) tests.push_back({p, 0, d});
    for (int g : n_gen) if (g > 0) tests.push_back({0, g, d});
    for (auto [p, g] : n_pg) if (p > 0 || g > 0) tests.push_back({p, g, d});
  }
  return tests;
}

}  // namespace ck::bench
