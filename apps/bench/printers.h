// ck-bench output: md (llama-bench's table plus ck's columns), csv, json (an
// array), jsonl (one object per line). Results are printed as they finish.
#pragma once
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "apps/bench/params.h"
#include "apps/bench/result.h"

namespace ck::bench {

// Every field of a result, in order; llama-bench's names first.
nlohmann::ordered_json to_json(const Result& r);

class Printer {
 public:
  virtual ~Printer() = default;
  virtual void header() {}
  virtual void print(const Result& r) = 0;
  virtual void footer() {}
};

// Prints the footer when it goes out of scope, also when a run fails part way,
// so that JSON output is always a closed array.
class FooterGuard {
 public:
  explicit FooterGuard(Printer& p) : p_(p) {}
  ~FooterGuard() { p_.footer(); }
  FooterGuard(const FooterGuard&) = delete;
  FooterGuard& operator=(const FooterGuard&) = delete;

 private:
  Printer& p_;
};

std::unique_ptr<Printer> make_printer(OutputFormat format, std::FILE* out);

// "135.06 MiB", "1.23 GiB" and "134.52 M", "1.10 B", as llama-bench prints them.
std::string format_size(uint64_t bytes);
std::string format_params(uint64_t n);

}  // namespace ck::bench
