#include "app_test_support.h"

#include <fstream>

#include "subprocess.h"

namespace ck::test {

std::string stories_model() { return std::string(CK_SHARED_DATA) + "/models/stories260K.gguf"; }
std::string smollm2_model() { return std::string(CK_MODELS_DIR) + "/SmolLM2-135M-Instruct.Q4_1.gguf"; }
bool have_smollm2() { return std::filesystem::exists(smollm2_model()); }

size_t occurrences(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

bool is_one_error_line(const std::string& err, const std::string& app) {
  return err.rfind(app + ": error: ", 0) == 0 && err.find('\n') == err.size() - 1;
}

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace ck::test
