// ck-convert: converts a GGUF model into a bump file, and inspects, dumps
// tensors from, or verifies either kind of file. docs/bump-format.md.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "apps/common/app_main.h"
#include "apps/common/bump_dir_flag.h"
#include "apps/common/progress.h"
#include "apps/convert/cache.h"
#include "apps/convert/dump.h"
#include "apps/convert/inspect.h"
#include "loader/bump_file.h"
#include "loader/convert.h"
#include "loader/file_kind.h"
#include "loader/gguf_reader.h"
#include "loader/sha256.h"

namespace {

namespace fs = std::filesystem;

// Without -o: into the folder the user chose (--bump-dir, $CK_BUMP_DIR) under
// the name the other apps look for there, else beside the GGUF.
int convert(const fs::path& in, fs::path out, const fs::path& bump_dir) {
  if (out.empty() && !ck::chosen_bump_dir(bump_dir).empty()) {
    out = ck::cached_bump_path(in, bump_dir);
    fs::create_directories(out.parent_path());
  }
  if (out.empty()) out = in.parent_path() / (in.stem().string() + ".bump");
  // Counted in MB of the source; the total is known once conversion starts.
  std::optional<ck::app::ProgressBar> bar;
  const ck::ConvertStats s = ck::convert_gguf_to_bump(in, out, [&](uint64_t done, uint64_t total) {
    if (!bar) bar.emplace("converting " + in.filename().string(), static_cast<int64_t>((total + 999999) / 1000000));
    bar->update(static_cast<int64_t>(done / 1000000), "MB");
  });
  bar.reset();
  std::printf("wrote %s (%.2f MB, %zu tensor slots, %zu tensors transcoded) and %s in %.2f s (%.1f MB/s)\n",
              out.c_str(), s.bytes_written / 1e6, s.slots, s.transcoded, ck::config_json_path(out).c_str(), s.seconds,
              s.bytes_written / 1e6 / (s.seconds > 0 ? s.seconds : 1e-9));
  return 0;
}

int verify(const fs::path& in) {
  if (ck::detect_file_kind(in) == ck::FileKind::Gguf) {
    const ck::GgufFile g = ck::GgufFile::open(in);
    std::printf("%s: GGUF structure OK (%zu tensors, %zu metadata keys); GGUF files carry no checksum\n", in.c_str(),
                g.tensors().size(), g.metadata().entries().size());
    return 0;
  }
  const ck::BumpFile b = ck::BumpFile::open(in, {.verify = true});
  std::printf("%s: OK, SHA-256 %s matches (%zu bytes)\n", in.c_str(), ck::to_hex(b.header().sha256).c_str(),
              b.file_size());
  return 0;
}

int inspect(const fs::path& in) {
  if (ck::detect_file_kind(in) == ck::FileKind::Gguf) {
    ck::convert::inspect_gguf(ck::GgufFile::open(in), stdout);
  } else {
    ck::convert::inspect_bump(ck::BumpFile::open(in), stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Converts a GGUF model (llama, qwen2, qwen3, gemma3, phi3) into a .bump file that ck-run maps directly, and "
      "inspects, dumps or verifies GGUF and bump files.\n\n"
      "  ck-convert model.gguf [-o model.bump]     convert (also writes model.config.json)\n"
      "  ck-convert --inspect FILE                 header, metadata, tensor table, bytes per dtype\n"
      "  ck-convert --dump NAME FILE -o out.f32    one tensor as raw little-endian fp32\n"
      "  ck-convert --verify FILE                  check a bump's SHA-256 (a GGUF's structure)\n"
      "  ck-convert --cache-list | --cache-clean   the bumps in the bump folder (--bump-dir, $CK_BUMP_DIR, else\n"
      "                                            ~/.cache/ck): list them, or remove them",
      "ck-convert"};
  std::string input, output, dump_name, bump_dir;
  bool inspect_flag = false, verify_flag = false, cache_list = false, cache_clean = false;
  app.add_option("FILE", input, "Input: the GGUF to convert, or the GGUF/bump file to inspect, dump or verify")
      ->check(CLI::ExistingFile);
  app.add_option("-o,--output", output,
                 "Output path: the .bump to write (default: FILE with .bump beside it), or the .f32 file of --dump");
  auto* inspect_opt = app.add_flag("--inspect", inspect_flag,
                                   "Print FILE's header, metadata (long arrays summarized), tensor table (name, dtype, "
                                   "shape, bytes, offset) and bytes per dtype");
  auto* dump_opt = app.add_option("--dump", dump_name,
                                  "Write tensor NAME (its GGUF name, e.g. blk.0.attn_q.weight) of FILE, dequantized "
                                  "to little-endian fp32 in GGUF row order, to the -o path")
                       ->type_name("NAME");
  auto* verify_opt = app.add_flag("--verify", verify_flag,
                                  "Recompute a bump file's SHA-256 and compare it with its header (for a GGUF: check "
                                  "its structure)");
  inspect_opt->excludes(dump_opt)->excludes(verify_opt);
  dump_opt->excludes(verify_opt);
  ck::app::add_bump_dir_flag(app, bump_dir);
  auto* list_opt = app.add_flag("--cache-list", cache_list,
                                "List the bumps in the bump folder (--bump-dir, $CK_BUMP_DIR, else ~/.cache/ck) with "
                                "their sizes; bumps beside their GGUF are not listed");
  auto* clean_opt = app.add_flag("--cache-clean", cache_clean,
                                 "Remove the bumps (and their .config.json) from that folder; a later run converts "
                                 "its GGUF again");
  list_opt->excludes(clean_opt);

  return ck::app::run_app(app, argc, argv, [&] {
    if (cache_list || cache_clean) {
      if (!input.empty()) throw std::runtime_error("--cache-list and --cache-clean take no FILE");
      return cache_list ? ck::convert::list_cache(bump_dir) : ck::convert::clean_cache(bump_dir);
    }
    if (input.empty()) throw std::runtime_error("FILE is required (the GGUF to convert, or a file to inspect)");
    if (inspect_flag) return inspect(input);
    if (verify_flag) return verify(input);
    if (!dump_name.empty()) {
      if (output.empty()) throw std::runtime_error("--dump needs -o OUT.f32");
      const int64_t n = ck::convert::dump_tensor(input, dump_name, output);
      std::printf("wrote %s: %lld fp32 values of %s\n", output.c_str(), static_cast<long long>(n), dump_name.c_str());
      return 0;
    }
    if (ck::detect_file_kind(input) != ck::FileKind::Gguf) {
      throw std::runtime_error(input + ": is already a bump file (convert takes a GGUF)");
    }
    return convert(input, output, bump_dir);
  });
}
