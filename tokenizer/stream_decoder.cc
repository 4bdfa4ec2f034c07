#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8.h"

namespace ck::tok {

std::string StreamDecoder::push(int32_t id) {
  pending_ += tokenizer_.token_to_piece(id, render_special_);
  std::string out;
  const size_t used = utf8::copy_valid(pending_, /*final=*/false, out);
  pending_.erase(0, used);
  return out;
}

std::string StreamDecoder::flush() {
  std::string out;
  utf8::copy_valid(pending_, /*final=*/true, out);
  pending_.clear();
  return out;
}

}  // namespace ck::tok
