// Bad input at run time: flags out of range, prompts that cannot fit, empty
// or invalid text, paths that are not models. Every case must end with a
// non-zero exit and a message naming the problem, never a signal or a hang.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/kernels/oracle.h"
#include "tests/reliability/fixtures.h"
#include "tests/reliability/process.h"

namespace {

using ck::reliability::describe;
using ck::reliability::failed_cleanly;
using ck::reliability::Outcome;
using ck::reliability::run;
using ck::reliability::stories_bump;
using ck::reliability::wikitext_test;

struct Case {
  std::string name;
  std::vector<std::string> argv;
  std::string expected;  // a part of the message that names the problem
};

void check_cases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    INFO(c.name);
    const Outcome o = run(c.argv);
    INFO(describe(o));
    CHECK(failed_cleanly(o));
    CHECK(o.err.find(c.expected) != std::string::npos);
  }
}

std::string long_prompt() {
  std::string s;
  for (int i = 0; i < 100; ++i) s += "Once upon a time there was a little dog. ";
  return s;
}

}  // namespace

TEST_CASE("ck-run refuses flags out of range and prompts that cannot fit", "[reliability][run]") {
  const std::string m = stories_bump().string();
  check_cases({
      {"prompt longer than the context", {"ck-run", "-m", m, "-c", "32", "-p", long_prompt()}, "too long for a context of 32"},
      {"prompt longer than the model's context", {"ck-run", "-m", m, "-c", "0", "-p", long_prompt() + long_prompt() + long_prompt() + long_prompt() + long_prompt() + long_prompt()}, "shorten the prompt"},
      {"-c beyond the memory", {"ck-run", "-m", m, "-c", "2000000000", "-p", "x"}, "use a smaller context (-c)"},
      {"-c negative", {"ck-run", "-m", m, "-c", "-5", "-p", "x"}, "-c must be"},
      {"-c not a number", {"ck-run", "-m", m, "-c", "lots", "-p", "x"}, "-c"},
      {"-n beyond the context", {"ck-run", "-m", m, "-n", "100000", "-p", "x"}, "exceeds the context of 2048 tokens"},
      {"-n below -1", {"ck-run", "-m", m, "-n", "-7", "-p", "x"}, "-n must be"},
      {"-n overflowing int", {"ck-run", "-m", m, "-n", "99999999999999999999", "-p", "x"}, "-n"},
      {"-t absurd", {"ck-run", "-m", m, "-t", "100000", "-p", "x"}, "-t must be between 1 and"},
      {"-t negative", {"ck-run", "-m", m, "-t", "-2", "-p", "x"}, "-t must be between 1 and"},
      {"-b 0", {"ck-run", "-m", m, "-b", "0", "-p", "x"}, "-b must be at least 1"},
      {"empty prompt", {"ck-run", "-m", m, "-p", ""}, "empty"},
      {"-p and -f", {"ck-run", "-m", m, "-p", "x", "-f", m}, "not both"},
  });
}

TEST_CASE("ck-run, ck-tokenize, ck-perplexity and ck-convert refuse paths that are not models", "[reliability][paths]") {
  ck::test::ScratchDir dir;
  const auto text = dir.file("text.gguf"), empty = dir.file("empty.bump"), folder = dir.file("folder.gguf");
  ck::reliability::write_file(text, std::string_view("this is not a model, just text that is long enough to read"));
  ck::reliability::write_file(empty, std::string_view());
  std::filesystem::create_directory(folder);
  const std::string missing = dir.file("missing.gguf").string();
  std::vector<Case> cases;
  // What each app is told, and the word the message must contain.
  const std::vector<std::pair<std::string, std::string>> bad = {
      {missing, "missing.gguf"}, {folder.string(), "folder.gguf"}, {text.string(), "text.gguf"}, {empty.string(), "empty.bump"}};
  for (const auto& [path, word] : bad) {
    cases.push_back({"ck-run -m " + path, {"ck-run", "-m", path, "-p", "x", "-n", "1"}, word});
    cases.push_back({"ck-tokenize -m " + path, {"ck-tokenize", "-m", path, "-p", "x"}, word});
    cases.push_back({"ck-perplexity -m " + path, {"ck-perplexity", "-m", path, "-f", text.string()}, word});
    cases.push_back({"ck-convert " + path, {"ck-convert", path, "-o", dir.file("out.bump").string()}, word});
    cases.push_back({"ck-convert --inspect " + path, {"ck-convert", "--inspect", path}, word});
  }
  check_cases(cases);
  CHECK_FALSE(std::filesystem::exists(dir.file("out.bump")));
}

TEST_CASE("an unreadable model is refused with the reason", "[reliability][paths]") {
  // No read permission on the file or its folder; root reads anything, so
  // there the child also drops to the user nobody.
  ck::test::ScratchDir dir;
  const auto locked = dir.file("locked");
  std::filesystem::create_directory(locked);
  const auto model = locked / "model.bump";
  std::filesystem::copy_file(stories_bump(), model);
  std::filesystem::permissions(model, std::filesystem::perms::none);
  std::filesystem::permissions(locked, std::filesystem::perms::owner_all);
  ck::reliability::RunOptions as_nobody;
  as_nobody.in_child = [] {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(126);
  };
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{"ck-run", "-m", model.string(), "-p", "x", "-n", "1"},
        std::vector<std::string>{"ck-tokenize", "-m", model.string(), "-p", "x"},
        std::vector<std::string>{"ck-convert", "--verify", model.string()}}) {
    const Outcome o = run(argv, as_nobody);
    INFO(argv[0] << ": " << describe(o));
    CHECK(failed_cleanly(o));
    CHECK(o.err.find("model.bump") != std::string::npos);
  }
}

TEST_CASE("invalid UTF-8 in a prompt or a text file is refused naming the place", "[reliability][utf8]") {
  // Issue 7: a specific message (the source, the byte offset, for files the
  // line, and what was expected) and exit code 1, before the model is used.
  ck::test::ScratchDir dir;
  const std::string m = stories_bump().string();
  const std::string prompt = "caf\xC3 \xFF\xFE tail \xE2\x82 \xED\xA0\x80 end\xF0\x9F";  // first bad byte: 3
  // Lines 1-3 valid (with a 2-byte character), the 0xFF at byte 31 on line 4.
  const auto file = dir.file("invalid.txt");
  std::string text = "line one\nline two\ncaf\xC3\xA9 ok\nbad \xFF here\n";
  for (int i = 0; i < 40; ++i) text += "Once upon a time there was a little dog.\n";
  ck::reliability::write_file(file, text);
  const std::string f = file.string();
  struct Refusal {
    std::vector<std::string> argv;
    std::vector<std::string> pieces;  // all must be in stderr
  };
  const std::string expected = "; expected valid UTF-8 text";
  const std::vector<Refusal> refusals = {
      {{"ck-run", "-m", m, "-p", prompt, "-n", "4"},
       {"ck-run: error: the prompt is not valid UTF-8: invalid or cut-off sequence at byte offset 3, byte 0xC3" + expected}},
      {{"ck-run", "-m", m, "-f", f, "-n", "4"},
       {"ck-run: error: " + f + " is not valid UTF-8: invalid or cut-off sequence at byte offset 31 (line 4), byte 0xFF" + expected}},
      {{"ck-run", "-m", m, "--chat", "-sys", "be \xC0\x80 nice", "-n", "4"},
       {"ck-run: error: the system prompt (-sys) is not valid UTF-8: invalid or cut-off sequence at byte offset 3, byte 0xC0"}},
      {{"ck-run", "-m", m, "--chat", "-sysf", f, "-n", "4"},
       {"ck-run: error: " + f + " is not valid UTF-8: invalid or cut-off sequence at byte offset 31 (line 4)"}},
      {{"ck-perplexity", "-m", m, "-f", f, "-c", "64", "--chunks", "2"},
       {"ck-perplexity: error: " + f + " is not valid UTF-8: invalid or cut-off sequence at byte offset 31 (line 4), byte 0xFF" + expected}},
      {{"ck-tokenize", "-m", m, "-p", prompt},
       {"ck-tokenize: error: the prompt is not valid UTF-8: invalid or cut-off sequence at byte offset 3, byte 0xC3"}},
      {{"ck-tokenize", "-m", m, "-f", f, "--ids"},
       {"ck-tokenize: error: " + f + " is not valid UTF-8: invalid or cut-off sequence at byte offset 31 (line 4)"}},
      // A surrogate and a cut-off sequence at the very end.
      {{"ck-run", "-m", m, "-p", "ok \xED\xA0\x80", "-n", "4"}, {"the prompt is not valid UTF-8", "byte offset 3, byte 0xED"}},
      {{"ck-run", "-m", m, "-p", "smile \xF0\x9F\x98", "-n", "4"}, {"the prompt is not valid UTF-8", "byte offset 6, byte 0xF0"}},
  };
  for (const Refusal& r : refusals) {
    const Outcome o = run(r.argv);
    INFO(r.argv[0] << " " << r.argv[3] << ": " << describe(o));
    CHECK(o.exit_code == 1);
    CHECK(failed_cleanly(o));
    for (const std::string& piece : r.pieces) CHECK(o.err.find(piece) != std::string::npos);
    CHECK(o.out.empty());  // nothing generated, tokenized or scored
  }
  // Refused before the model is loaded: ck-perplexity says nothing of it.
  const Outcome ppl = run({"ck-perplexity", "-m", m, "-f", f});
  CHECK(ppl.err.find("loaded") == std::string::npos);
  // The same text made valid is accepted by all three.
  const auto good = dir.file("valid.txt");
  std::string fixed = text;
  fixed.replace(fixed.find('\xFF'), 1, "\xC3\xBF");  // U+00FF
  ck::reliability::write_file(good, fixed);
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{"ck-run", "-m", m, "-f", good.string(), "-n", "4", "--temp", "0"},
        std::vector<std::string>{"ck-tokenize", "-m", m, "-f", good.string(), "--ids"},
        std::vector<std::string>{"ck-perplexity", "-m", m, "-f", good.string(), "-c", "64", "--chunks", "2"}}) {
    const Outcome o = run(argv);
    INFO(argv[0] << ": " << describe(o));
    CHECK(o.exit_code == 0);
  }
}

TEST_CASE("chat: a message with invalid UTF-8 is not sent, the REPL goes on", "[reliability][utf8][chat]") {
  // Decided (docs/apps.md): a notice naming the byte offset, the next message
  // is answered, and the exit code stays 0 at the end of piped input.
  const std::string m = stories_bump().string();
  const std::string input = "Once upon a \xFF time\nOnce upon a time\n/system be \xC3\n";
  for (const std::string& exe : {std::string("ck-run"), std::string("ck-chat")}) {
    std::vector<std::string> argv = {exe, "-m", m, "--temp", "0", "-n", "4", "-c", "128"};
    if (exe == "ck-run") argv.push_back("--chat");
    ck::reliability::RunOptions opts;
    opts.stdin_text = input;
    const Outcome o = run(argv, opts);
    INFO(exe << ": " << describe(o));
    CHECK(o.signal == 0);
    CHECK_FALSE(o.timed_out);
    CHECK(o.exit_code == 0);
    CHECK(o.err.find("message not sent, it is not valid UTF-8: invalid or cut-off sequence at byte offset 12, "
                     "byte 0xFF; expected valid UTF-8 text") != std::string::npos);
    CHECK(o.err.find("system prompt not changed, it is not valid UTF-8: invalid or cut-off sequence at byte "
                     "offset 3, byte 0xC3") != std::string::npos);
    size_t answers = 0;  // one stats line per answered message: only the valid one
    for (size_t at = o.err.find("[ prompt:"); at != std::string::npos; at = o.err.find("[ prompt:", at + 1)) ++answers;
    CHECK(answers == 1);
    CHECK(o.out.find('\n') != std::string::npos);
  }
}

TEST_CASE("ck-perplexity refuses texts and contexts it cannot evaluate", "[reliability][perplexity]") {
  ck::test::ScratchDir dir;
  const auto empty = dir.file("empty.txt"), tiny = dir.file("tiny.txt");
  ck::reliability::write_file(empty, std::string_view());
  ck::reliability::write_file(tiny, std::string_view("Too short."));
  const std::string m = stories_bump().string(), text = wikitext_test().string();
  check_cases({
      {"missing text file", {"ck-perplexity", "-m", m, "-f", dir.file("nope.txt").string()}, "nope.txt"},
      {"empty text file", {"ck-perplexity", "-m", m, "-f", empty.string()}, "tokenizes to only"},
      {"text shorter than one chunk", {"ck-perplexity", "-m", m, "-f", tiny.string(), "-c", "128"}, "tokenizes to only 8 tokens"},
      {"-c below the minimum", {"ck-perplexity", "-m", m, "-f", text, "-c", "2"}, "-c"},
      {"-c beyond the model (warned, then too long for the text)",
       {"ck-perplexity", "-m", m, "-f", tiny.string(), "-c", "100000"},
       "100000"},
      {"-t absurd", {"ck-perplexity", "-m", m, "-f", text, "-t", "100000", "--chunks", "1"}, "100000"},
      {"-b 0", {"ck-perplexity", "-m", m, "-f", text, "-b", "0"}, "-b"},
  });
}

TEST_CASE("ck-convert refuses outputs it cannot write and inputs it does not convert", "[reliability][convert]") {
  ck::test::ScratchDir dir;
  std::filesystem::create_directory(dir.file("taken.bump"));
  const std::string g = ck::reliability::stories_gguf().string();
  check_cases({
      {"output in a missing folder", {"ck-convert", g, "-o", dir.file("no/such/dir/out.bump").string()}, "out.bump"},
      {"output is a folder", {"ck-convert", g, "-o", dir.file("taken.bump").string()}, "taken.bump"},
      {"a bump as input", {"ck-convert", stories_bump().string(), "-o", dir.file("again.bump").string()}, "already a bump"},
      {"--dump of a missing tensor", {"ck-convert", "--dump", "nope.weight", g, "-o", dir.file("x.f32").string()}, "nope.weight"},
  });
}
