#include "apps/common/bump_dir_flag.h"

namespace ck::app {

void add_bump_dir_flag(CLI::App& app, std::string& dir) {
  app.add_option("--bump-dir", dir,
                 "Folder for the .bump a GGUF is converted to on first use (looked for and written there only; "
                 "default: $CK_BUMP_DIR, else beside the GGUF, else ~/.cache/ck when that folder is read-only). "
                 "ck-convert --cache-list shows what a folder holds");
}

}  // namespace ck::app
