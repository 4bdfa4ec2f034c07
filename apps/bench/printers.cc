#include "apps/bench/printers.h"

#include <algorithm>
#include <cstdlib>

#include "apps/common/kv_cache_flags.h"
#include "apps/common/version.h"
#include "kernels/int8_peak.h"
#include <string>
#include <vector>

namespace ck::bench {
namespace {

class JsonPrinter : public Printer {
 public:
  JsonPrinter(std::FILE* out, bool lines) : out_(out), lines_(lines) {}
  void header() override { if (!lines_) std::fputs("[\n", out_); }
  void print(const Result& r) override {
    if (lines_) {
      std::fprintf(out_, "%s\n", to_json(r).dump().c_str());
    } else {
      std::fprintf(out_, "%s%s", first_ ? "" : ",\n", to_json(r).dump(2).c_str());
      first_ = false;
    }
    std::fflush(out_);
  }
  void footer() override { if (!lines_) std::fputs("\n]\n", out_); }

 private:
  std::FILE* out_;
  bool lines_;
  bool first_ = true;
};

// Every field quoted, as llama-bench writes them; a JSON null (ttft_ms of a
// test without one) is an empty field, never the text "null".
std::string csv_field(const nlohmann::ordered_json& v) {
  std::string s = v.is_null() ? "" : v.is_string() ? v.get<std::string>() : v.dump();
  std::string quoted = "\"";
  for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

class CsvPrinter : public Printer {
 public:
  explicit CsvPrinter(std::FILE* out) : out_(out) {}
  void print(const Result& r) override {
    const auto j = to_json(r);
    std::string keys, values;
    for (const auto& [key, value] : j.items()) {
      if (value.is_array()) continue;  // samples stay out of the table, as in llama-bench
      keys += (keys.empty() ? "" : ",") + key;
      values += (values.empty() ? "" : ",") + csv_field(value);
    }
    if (first_) std::fprintf(out_, "%s\n", keys.c_str());
    first_ = false;
    std::fprintf(out_, "%s\n", values.c_str());
    std::fflush(out_);
  }

 private:
  std::FILE* out_;
  bool first_ = true;
};

// Columns: name and width (negative = left aligned), as llama-bench's table.
struct Column {
  const char* name;
  int width;
};
constexpr Column kColumns[] = {{"model", -24}, {"size", 10},   {"params", 10}, {"dtypes", -28},
                               {"threads", 7},  {"type_k", 6}, {"type_v", 6},  {"test", 15},
                               {"t/s", 20},     {"GB/s", 7},   {"% bw", 6},    {"TTFT ms", 8}};

// printf's width counts bytes; '±' is two bytes but one column.
int display_width(const std::string& s, int width) {
  int extra = 0;
  for (unsigned char c : s) extra += (c & 0xC0) == 0x80;
  return width < 0 ? width - extra : width + extra;
}

class MarkdownPrinter : public Printer {
 public:
  explicit MarkdownPrinter(std::FILE* out) : out_(out) {}
  void header() override {
    std::fputs("|", out_);
    for (const auto& c : kColumns) std::fprintf(out_, " %*s |", c.width, c.name);
    std::fputs("\n|", out_);
    for (const auto& c : kColumns) {
      std::fprintf(out_, " %s%s |", std::string(std::abs(c.width) - 1, '-').c_str(), c.width > 0 ? ":" : "-");
    }
    std::fputs("\n", out_);
  }
  void print(const Result& r) override {
    char ts[64], gbs[32], frac[32], ttft[32];
    std::snprintf(ts, sizeof ts, "%.2f ± %.2f", r.avg_ts(), r.stddev_ts());
    std::snprintf(gbs, sizeof gbs, "%.2f", r.weight_gbs());
    std::snprintf(frac, sizeof frac, r.mem_bw_gbs > 0 ? "%.0f%%" : "?", 100.0 * r.bw_fraction());
    std::snprintf(ttft, sizeof ttft, r.ttft_ns.empty() ? "" : "%.1f", r.avg_ttft_ms());
    const std::string values[] = {r.model_type,
                                  format_size(r.model_size),
                                  format_params(r.model_n_params),
                                  r.dtype_mix,
                                  std::to_string(r.n_threads),
                                  std::string(app::kv_type_name(r.kv_types.key_f16)),
                                  std::string(app::kv_type_name(r.kv_types.value_f16)),
                                  r.test.name(),
                                  ts,
                                  gbs,
                                  frac,
                                  ttft};
    std::fputs("|", out_);
    for (size_t i = 0; i < std::size(kColumns); ++i) {
      std::fprintf(out_, " %*s |", display_width(values[i], kColumns[i].width), values[i].c_str());
    }
    std::fputs("\n", out_);
    std::fflush(out_);
    last_ = r;
    if (r.profile) profiled_.push_back(r);
  }
  void footer() override {
    if (last_.samples_ns.empty()) return;
    std::fprintf(out_, "\nCPU: %s; peak RSS %s. GB/s: weight bytes streamed per second; %% bw: of the read "
                       "bandwidth measured with as many threads (%.1f GB/s at %d)\n",
                 last_.cpu_info.c_str(), format_size(last_.peak_rss_bytes).c_str(), last_.mem_bw_gbs,
                 last_.n_threads);
    // Decode reads the weights near the probe's speed only from 2 MiB pages.
    if (last_.weights_resident_bytes > 0) {
      std::fprintf(out_, "Model file: %s resident, %s of it in 2 MiB pages\n",
                   format_size(last_.weights_resident_bytes).c_str(), format_size(last_.weights_huge_bytes).c_str());
    }
    for (const Result& r : profiled_) print_profile(r);
  }

 private:
  // Where one test's time went, per token: each step of the forward pass
  // and, within them, the threads' waits at barriers.
  void print_profile(const Result& r) {
    const ForwardProfile& p = *r.profile;
    if (p.tokens == 0) return;
    int64_t total_ns = 0;
    for (const StepTotals& s : p.steps) total_ns += s.ns;
    const double per_token = 1.0 / static_cast<double>(p.tokens);
    // Decode passes may have run on fewer threads (runtime/decode_threads.h).
    const double team = p.passes > 0 ? static_cast<double>(p.thread_passes) / static_cast<double>(p.passes) : 0.0;
    std::fprintf(out_,
                 "\nProfile of %s, %s, %d threads (%lld passes, %.2f threads per pass, %lld tokens): %.1f us per "
                 "token\n\n",
                 r.model_type.c_str(), r.test.name().c_str(), r.n_threads, static_cast<long long>(p.passes), team,
                 static_cast<long long>(p.tokens), 1e-3 * static_cast<double>(total_ns) * per_token);
    std::fprintf(out_, "| %-32s | %13s | %10s | %6s | %8s | %6s |\n", "step", "rows x cols", "us/token", "%", "GMAC/s",
                 "% peak");
    std::fprintf(out_, "| %s | %s: | %s: | %s: | %s: | %s: |\n", std::string(32, '-').c_str(),
                 std::string(12, '-').c_str(), std::string(9, '-').c_str(), std::string(5, '-').c_str(),
                 std::string(7, '-').c_str(), std::string(5, '-').c_str());
    for (size_t i = 0; i < p.steps.size(); ++i) {
      const StepTotals& s = p.steps[i];
      char shape[32] = "", rate[32] = "", of_peak[32] = "";
      if (step_is_matmul(static_cast<Step>(i))) {
        std::snprintf(shape, sizeof shape, "%lld x %lld", static_cast<long long>(s.rows),
                      static_cast<long long>(s.cols));
        if (s.ns > 0) {
          const double gmacs = static_cast<double>(s.macs) / static_cast<double>(s.ns);
          std::snprintf(rate, sizeof rate, "%.1f", gmacs);
          if (r.int8_peak_gmacs > 0) std::snprintf(of_peak, sizeof of_peak, "%.0f%%", 100.0 * gmacs / r.int8_peak_gmacs);
        }
      }
      std::fprintf(out_, "| %-32s | %13s | %10.2f | %6.1f | %8s | %6s |\n",
                   std::string(step_name(static_cast<Step>(i))).c_str(), shape,
                   1e-3 * static_cast<double>(s.ns) * per_token,
                   100.0 * static_cast<double>(s.ns) / static_cast<double>(std::max<int64_t>(total_ns, 1)), rate,
                   of_peak);
    }
    // The waits are spread over the steps above: per thread, on average.
    const double wait_ns = p.thread_passes > 0 ? static_cast<double>(p.barrier_wait_ns) * static_cast<double>(p.passes) /
                                                     static_cast<double>(p.thread_passes)
                                               : 0.0;
    std::fprintf(out_, "| %-32s | %13s | %10.2f | %6.1f | %8s | %6s |\n", "(of which waiting at barriers)", "",
                 1e-3 * wait_ns * per_token, 100.0 * wait_ns / static_cast<double>(std::max<int64_t>(total_ns, 1)), "",
                 "");
    std::fprintf(out_, "\n%% peak: of the byte multiply-adds per second measured with as many threads, %.1f G (%s)\n",
                 r.int8_peak_gmacs, int8_peak_instruction());
    std::fflush(out_);
  }

  std::FILE* out_;
  Result last_;
  std::vector<Result> profiled_;
};

}  // namespace

std::string format_size(uint64_t bytes) {
  char buf[32];
  if (bytes < (uint64_t{1} << 30)) {
    std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  } else {
    std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  }
  return buf;
}

std::string format_params(uint64_t n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, n < 1'000'000'000 ? "%.2f M" : "%.2f B",
                static_cast<double>(n) / (n < 1'000'000'000 ? 1e6 : 1e9));
  return buf;
}

nlohmann::ordered_json to_json(const Result& r) {
  nlohmann::ordered_json j;
  j["build_commit"] = std::string(ck::app::build_commit());
  j["cpu_info"] = r.cpu_info;
  j["backends"] = "CPU";
  j["model_filename"] = r.model_filename;
  j["model_type"] = r.model_type;
  j["model_size"] = r.model_size;
  j["model_n_params"] = r.model_n_params;
  j["n_batch"] = r.n_batch;
  j["n_threads"] = r.n_threads;
  j["type_k"] = std::string(app::kv_type_name(r.kv_types.key_f16));
  j["type_v"] = std::string(app::kv_type_name(r.kv_types.value_f16));
  j["n_prompt"] = r.test.n_prompt;
  j["n_gen"] = r.test.n_gen;
  j["n_depth"] = r.test.n_depth;
  j["test_time"] = r.test_time;
  j["avg_ns"] = r.avg_ns();
  j["stddev_ns"] = r.stddev_ns();
  j["avg_ts"] = r.avg_ts();
  j["stddev_ts"] = r.stddev_ts();
  j["dtype_mix"] = r.dtype_mix;
  j["weight_bytes"] = r.weight_bytes;
  j["weight_gbs"] = r.weight_gbs();
  j["mem_bw_gbs"] = r.mem_bw_gbs;
  j["bw_fraction"] = r.bw_fraction();
  j["ttft_ms"] = r.ttft_ns.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.avg_ttft_ms());
  j["peak_rss_bytes"] = r.peak_rss_bytes;
  j["weights_resident_bytes"] = r.weights_resident_bytes;
  j["weights_huge_bytes"] = r.weights_huge_bytes;
  j["samples_ns"] = r.samples_ns;
  j["samples_ts"] = r.samples_ts();
  if (r.profile) {
    const ForwardProfile& p = *r.profile;
    nlohmann::ordered_json steps = nlohmann::ordered_json::array();
    for (size_t i = 0; i < p.steps.size(); ++i) {
      const StepTotals& s = p.steps[i];
      nlohmann::ordered_json step{{"step", std::string(step_name(static_cast<Step>(i)))}, {"ns", s.ns}, {"calls", s.calls}};
      if (step_is_matmul(static_cast<Step>(i))) {
        step["rows"] = s.rows;
        step["cols"] = s.cols;
        step["macs"] = s.macs;
      }
      steps.push_back(step);
    }
    j["profile"] = {{"int8_peak_gmacs", r.int8_peak_gmacs},
                    {"int8_peak_instruction", std::string(int8_peak_instruction())},
                    {"passes", p.passes},
                    {"tokens", p.tokens},
                    {"barrier_wait_ns", p.barrier_wait_ns},
                    {"thread_passes", p.thread_passes},
                    {"steps", steps}};
  }
  return j;
}

std::unique_ptr<Printer> make_printer(OutputFormat format, std::FILE* out) {
  switch (format) {
    case OutputFormat::Markdown: return std::make_unique<MarkdownPrinter>(out);
    case OutputFormat::Csv: return std::make_unique<CsvPrinter>(out);
    case OutputFormat::Json: return std::make_unique<JsonPrinter>(out, false);
    case OutputFormat::Jsonl: return std::make_unique<JsonPrinter>(out, true);
  }
  return nullptr;
}

}  // namespace ck::bench
