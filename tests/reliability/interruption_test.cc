// Faults during and after conversion: the converter killed at several
// moments, a disk that fills up, a bump changed or cut after conversion, and
// two conversions of the same model at once. None may leave a .bump that
// loads but is not the complete, checksummed file.
#include <catch2/catch.hpp>
#include <sys/resource.h>

#include <csignal>
#include <thread>

#include "tests/kernels/oracle.h"
#include "tests/reliability/fixtures.h"
#include "tests/reliability/process.h"

namespace {

namespace fs = std::filesystem;
using namespace ck::reliability;
using namespace std::chrono_literals;

// Every .bump in `dir` verifies (complete and checksummed); the only other
// files are the sources, config.json files and, after a SIGKILL (which
// cannot be caught), the converter's temporary "NAME.bump.tmp.*" or, killed
// after the bump's rename, "NAME.config.json.tmp.*" file (that window, a
// millisecond, made this test fail now and then while it allowed only the
// first). A temporary may even be complete, but no tool looks for that name,
// and the next conversion removes it.
// Returns the number of .bump files.
int check_folder(const fs::path& dir) {
  int bumps = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    INFO(name);
    if (e.path().extension() == ".bump") {
      ++bumps;
      const Outcome v = run({"ck-convert", "--verify", e.path().string()});
      INFO(describe(v));
      CHECK(v.exit_code == 0);
    } else if (name.find(".tmp.") == std::string::npos) {
      CHECK((e.path().extension() == ".gguf" || name.ends_with(".config.json")));
    }
  }
  return bumps;
}

}  // namespace

TEST_CASE("a converter killed at any moment leaves no .bump that loads", "[reliability][interrupt]") {
  REQUIRE(fs::exists(smollm_gguf()));  // scripts/fetch-models.sh
  for (auto after : {50ms, 150ms, 300ms, 600ms, 1000ms, 2000ms}) {
    INFO("SIGKILL after " << after.count() << " ms");
    ck::test::ScratchDir dir;
    const fs::path out = dir.file("smollm.bump");
    Child convert({"ck-convert", smollm_gguf().string(), "-o", out.string()});
    std::this_thread::sleep_for(after);
    convert.kill_now(SIGKILL);
    const Outcome o = convert.wait(60s);
    // Killed midway: no bump, or (killed after the rename) a whole one.
    // Finished first: the bump is whole.
    if (o.signal == SIGKILL) {
      CHECK(check_folder(dir.file("")) == (fs::exists(out) ? 1 : 0));
      // The next conversion succeeds despite what the killed one left.
      const Outcome again = run({"ck-convert", smollm_gguf().string(), "-o", out.string()}, {.timeout = 120s});
      INFO(describe(again));
      CHECK(again.exit_code == 0);
      // ... and removes the dead converter's temporary files.
      for (const auto& e : fs::directory_iterator(dir.file(""))) {
        CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
      }
    }
    CHECK(check_folder(dir.file("")) == 1);
  }
}

TEST_CASE("a full disk during conversion gives a clear error and no partial file", "[reliability][disk]") {
  // RLIMIT_FSIZE makes write() fail with EFBIG past the limit (SIGXFSZ
  // ignored), like a full disk, without needing a mount. The limits fall in
  // the header, the tokenizer block and the middle of the weights.
  for (rlim_t limit : {rlim_t(100), rlim_t(16 << 10), rlim_t(600 << 10)}) {
    INFO("file size limit " << limit);
    ck::test::ScratchDir dir;
    const fs::path out = dir.file("stories.bump");
    RunOptions limited;
    limited.in_child = [limit] {
      std::signal(SIGXFSZ, SIG_IGN);
      const rlimit r{limit, limit};
      setrlimit(RLIMIT_FSIZE, &r);
    };
    const Outcome o = run({"ck-convert", stories_gguf().string(), "-o", out.string()}, limited);
    INFO(describe(o));
    CHECK(failed_cleanly(o));
    CHECK(o.err.find("stories") != std::string::npos);
    CHECK(fs::is_empty(dir.file("")));  // no bump, no temporary file, no config.json
  }
}

TEST_CASE("one flipped payload byte is caught by --verify", "[reliability][verify]") {
  ck::test::ScratchDir dir;
  const std::vector<uint8_t> original = read_file(stories_bump());
  REQUIRE(run({"ck-convert", "--verify", stories_bump().string()}).exit_code == 0);
  // A byte of the header's checksum, the dtype table area, the tokenizer
  // block, and weights near the start, middle and end.
  for (size_t at : {size_t(0x40), size_t(200), original.size() / 10, original.size() / 2, original.size() - 1}) {
    INFO("byte " << at << " of " << original.size());
    std::vector<uint8_t> bytes = original;
    bytes[at] ^= 0x01;
    const fs::path bump = dir.file("flipped.bump");
    write_file(bump, bytes);
    const Outcome o = run({"ck-convert", "--verify", bump.string()});
    INFO(describe(o));
    CHECK(failed_cleanly(o));
  }
}

TEST_CASE("a truncated bump is refused at load", "[reliability][truncated]") {
  ck::test::ScratchDir dir;
  const std::vector<uint8_t> original = read_file(stories_bump());
  for (size_t size : {size_t(0), size_t(7), size_t(64), size_t(127), size_t(128), size_t(4096), original.size() / 2,
                      original.size() - 1}) {
    INFO("cut to " << size << " of " << original.size() << " bytes");
    const fs::path bump = dir.file("cut.bump");
    write_file(bump, std::vector<uint8_t>(original.begin(), original.begin() + static_cast<ptrdiff_t>(size)));
    for (const std::vector<std::string>& argv :
         {std::vector<std::string>{"ck-run", "-m", bump.string(), "-p", "Once", "-n", "2"},
          std::vector<std::string>{"ck-convert", "--inspect", bump.string()},
          std::vector<std::string>{"ck-perplexity", "-m", bump.string(), "-f", wikitext_test().string(), "--chunks", "1"}}) {
      const Outcome o = run(argv);
      INFO(argv[0] << ": " << describe(o));
      CHECK(failed_cleanly(o));
      CHECK(o.err.find("cut.bump") != std::string::npos);
    }
  }
}

TEST_CASE("two processes converting the same GGUF at once both succeed", "[reliability][concurrent]") {
  REQUIRE(fs::exists(smollm_gguf()));
  ck::test::ScratchDir dir;
  SECTION("ck-convert twice to the same output") {
    const std::string out = dir.file("smollm.bump").string();
    Outcome a, b;
    std::thread other([&] { a = run({"ck-convert", smollm_gguf().string(), "-o", out}, {.timeout = 180s}); });
    b = run({"ck-convert", smollm_gguf().string(), "-o", out}, {.timeout = 180s});
    other.join();
    INFO(describe(a) << "\n" << describe(b));
    CHECK(a.exit_code == 0);
    CHECK(b.exit_code == 0);
    CHECK(check_folder(dir.file("")) == 1);
  }
  SECTION("ck-run twice on a GGUF that has no bump yet (first-run conversion)") {
    const fs::path gguf = dir.file("stories.gguf");
    fs::copy_file(stories_gguf(), gguf);
    Outcome a, b;
    const std::vector<std::string> argv = {"ck-run", "-m", gguf.string(), "-p", "Once", "-n", "4", "--temp", "0"};
    std::thread other([&] { a = run(argv); });
    b = run(argv);
    other.join();
    INFO(describe(a) << "\n" << describe(b));
    CHECK(a.exit_code == 0);
    CHECK(b.exit_code == 0);
    CHECK(a.out == b.out);
    CHECK(check_folder(dir.file("")) == 1);
  }
}
