#include "apps/bench/runner.h"

#include <sys/resource.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <random>
#include <regex>
#include <vector>

#include "loader/mapped_file.h"

namespace ck::bench {
namespace {

// into += p, step by step (the shapes are the same in every pass).
void add_to(ForwardProfile& into, const ForwardProfile& p) {
  for (size_t i = 0; i < into.steps.size(); ++i) {
    into.steps[i].ns += p.steps[i].ns;
    into.steps[i].calls += p.steps[i].calls;
    into.steps[i].macs += p.steps[i].macs;
    if (p.steps[i].rows != 0) {
      into.steps[i].rows = p.steps[i].rows;
      into.steps[i].cols = p.steps[i].cols;
    }
  }
  into.passes += p.passes;
  into.tokens += p.tokens;
  into.barrier_wait_ns += p.barrier_wait_ns;
  into.thread_passes += p.thread_passes;
}

uint64_t now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace

std::string model_type(const std::string& arch, int64_t n_params, const std::string& dtype_mix) {
  char size[32];
  if (n_params >= 1'000'000'000) {
    std::snprintf(size, sizeof size, "%.1fB", static_cast<double>(n_params) / 1e9);
  } else if (n_params >= 1'000'000) {
    std::snprintf(size, sizeof size, "%.0fM", static_cast<double>(n_params) / 1e6);
  } else {
    std::snprintf(size, sizeof size, "%.0fK", static_cast<double>(n_params) / 1e3);
  }
  // dtype_mix is "NAME COUNT, NAME COUNT, ...": the main dtype is the most
  // used one other than the F32 norms (F32 only when nothing else is there).
  static const std::regex entry(R"(([A-Za-z0-9_]+) (\d+))");
  std::string main_dtype, f32;
  long best = -1;
  for (auto it = std::sregex_iterator(dtype_mix.begin(), dtype_mix.end(), entry); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1];
    const long count = std::stol((*it)[2]);
    if (name == "F32") {
      f32 = name;
    } else if (count > best) {
      best = count;
      main_dtype = name;
    }
  }
  if (main_dtype.empty()) main_dtype = f32.empty() ? "?" : f32;
  return arch + " " + size + " " + main_dtype;
}

Result describe_model(const Model& model, const std::string& filename) {
  Result r;
  r.cpu_info = cpu_info();
  r.model_filename = filename;
  r.model_n_params = static_cast<uint64_t>(model.n_params());
  r.model_size = model.weight_bytes();
  r.dtype_mix = model.dtype_mix();
  r.model_type = model_type(model.config().arch, model.n_params(), r.dtype_mix);
  return r;
}

uint64_t weight_bytes_streamed(const TestSpec& test, uint64_t bytes_per_pass, int n_batch) {
  const uint64_t prefill_passes = test.n_prompt > 0 ? (static_cast<uint64_t>(test.n_prompt) + n_batch - 1) / n_batch : 0;
  return (prefill_passes + static_cast<uint64_t>(test.n_gen)) * bytes_per_pass;
}

void run_test(const Model& model, Session& session, const TestSpec& test, const RunOptions& opts, Result& r,
              const std::function<void(int)>& on_rep) {
  const int needed = test.n_depth + test.n_prompt + test.n_gen;
  if (needed > session.n_ctx()) {
    throw std::runtime_error(test.name() + " needs a context of " + std::to_string(needed) + " tokens, the session has " +
                             std::to_string(session.n_ctx()));
  }
  const auto& tok = model.tokenizer();
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int32_t> any_token(0, tok.n_vocab() - 1);
  auto random_tokens = [&](int n, bool starts_text) {
    std::vector<int32_t> t(static_cast<size_t>(n));
    for (auto& id : t) id = any_token(rng);
    if (starts_text && n > 0 && tok.add_bos()) t[0] = tok.bos();
    return t;
  };
  r.test = test;
  r.test_time = utc_now_rfc3339();
  r.samples_ns.clear();
  r.ttft_ns.clear();
  r.profile.reset();
  for (int rep = opts.warmup ? 0 : 1; rep <= opts.repetitions; ++rep) {
    on_rep(rep);
    session.reset();
    if (test.n_depth > 0) session.eval(random_tokens(test.n_depth, true));
    const std::vector<int32_t> prompt = random_tokens(test.n_prompt, test.n_depth == 0);
    const std::vector<int32_t> gen = random_tokens(test.n_gen, test.n_depth == 0 && test.n_prompt == 0);

    const bool profiled = opts.profile && rep > 0;
    if (profiled) start_forward_profile();
    const uint64_t t0 = now_ns();
    if (!prompt.empty()) session.eval(prompt);
    const uint64_t t_first = now_ns();
    for (int32_t id : gen) session.eval(std::span<const int32_t>(&id, 1));
    const uint64_t t1 = now_ns();
    if (profiled) {
      stop_forward_profile();
      if (!r.profile) r.profile.emplace();
      add_to(*r.profile, forward_profile());
    }

    if (rep == 0) continue;  // the warm-up
    r.samples_ns.push_back(t1 - t0);
    if (test.n_prompt > 0 && test.n_gen > 0) r.ttft_ns.push_back(t_first - t0);
  }
  r.peak_rss_bytes = peak_rss_bytes();
  const MappingPages pages = mapping_pages(model.file().token_embd().data);
  r.weights_resident_bytes = pages.resident_bytes;
  r.weights_huge_bytes = pages.huge_bytes;
}

std::string cpu_info() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown CPU";
}

uint64_t peak_rss_bytes() {
  // VmHWM follows reset_peak_rss(); getrusage's maximum does not.
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;  // "VmHWM:  1234 kB"
  }
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<uint64_t>(u.ru_maxrss) * 1024;  // KiB on Linux
}

void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

std::string utc_now_rfc3339() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%FT%TZ", &tm);
  return buf;
}

}  // namespace ck::bench
