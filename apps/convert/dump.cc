#include "apps/convert/dump.h"

#include <stdexcept>
#include <vector>

#include "loader/atomic_file.h"
#include "loader/bump_file.h"
#include "loader/file_kind.h"
#include "loader/gguf_reader.h"

namespace ck::convert {

namespace {

void write_dequantized(DType type, const void* data, int64_t n, const std::filesystem::path& out) {
  std::vector<float> values(static_cast<size_t>(n));
  traits(type).dequantize(data, values.data(), n);
  AtomicFile file(out);
  file.write({reinterpret_cast<const uint8_t*>(values.data()), values.size() * sizeof(float)});
  file.commit();
}

}  // namespace

int64_t dump_tensor(const std::filesystem::path& model, const std::string& name, const std::filesystem::path& out) {
  if (detect_file_kind(model) == FileKind::Bump) {
    const BumpFile b = BumpFile::open(model);
    const auto view = b.find(name);
    if (!view) throw std::runtime_error(model.string() + ": no tensor named '" + name + "' (see --inspect)");
    write_dequantized(view->dtype, view->data, view->rows * view->cols, out);
    return view->rows * view->cols;
  }
  const GgufFile g = GgufFile::open(model);
  const GgufTensorInfo* t = g.find(name);
  if (!t) throw std::runtime_error(model.string() + ": no tensor named '" + name + "' (see --inspect)");
  write_dequantized(t->type, g.tensor_data(*t).data(), t->n_elements(), out);
  return t->n_elements();
}

}  // namespace ck::convert
