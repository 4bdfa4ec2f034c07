// ck-bench's command line in llama-bench's terms: value lists with ranges,
// expanded into the list of test instances to run.
#pragma once
#include <string>
#include <vector>

namespace ck::bench {

// "1,2,4", "1-4" (1,2,3,4), "1-16*2" (1,2,4,8,16), "128-512+128"; several
// comma-separated items mix. Throws std::invalid_argument on anything else.
std::vector<int> parse_int_list(const std::string& s);

// "-pg 512,128" -> {512, 128}.
std::pair<int, int> parse_pg(const std::string& s);

enum class OutputFormat { Markdown, Csv, Json, Jsonl };
OutputFormat parse_output_format(const std::string& s);

struct TestSpec {
  int n_prompt = 0;
  int n_gen = 0;
  int n_depth = 0;
  std::string name() const;  // pp512, tg128, pp512+tg128, with " @ d1024"
};

// pp tests, then tg tests, then pg tests, each at every depth (zeros skipped,
// as llama-bench).
std::vector<TestSpec> expand_tests(const std::vector<int>& n_prompt, const std::vector<int>& n_gen,
                                   const std::vector<std::pair<int, int>>& n_pg, const std::vector<int>& n_depth);

}  // namespace ck::bench
