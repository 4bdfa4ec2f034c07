// GGUF-style key/value metadata: the model's hyper-parameters, its tokenizer
// and anything else the source file carried. GGUF files hold it after their
// header; bump files hold the same block (plus ck.* keys) in their extension
// section, parsed by the same code.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ck {

class ByteReader;

// GGUF metadata value type ids.
enum class GgufType : uint32_t {
  U8 = 0, I8 = 1, U16 = 2, I16 = 3, U32 = 4, I32 = 5, F32 = 6, Bool = 7,
  String = 8, Array = 9, U64 = 10, I64 = 11, F64 = 12,
};
std::string_view gguf_type_name(GgufType t);

// One key/value pair. The value is kept as its GGUF v3 encoding (the bytes
// after the type id: u64 string lengths and array counts), so it can be
// written back verbatim and decoded lazily by the typed getters.
struct MetaEntry {
  std::string key;
  GgufType type;
  std::string raw;
};

class Metadata {
 public:
  // `source` names the file in error messages.
  explicit Metadata(std::string source = {}) : source_(std::move(source)) {}

  const std::string& source() const { return source_; }
  const std::vector<MetaEntry>& entries() const { return entries_; }
  const MetaEntry* find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != nullptr; }

  // Typed look-ups: std::nullopt when the key is absent; a std::runtime_error
  // naming the key when it is present with another type or out of range.
  // Integer getters accept any integer type whose value fits; float getters
  // accept F32 and F64.
  std::optional<uint64_t> get_u64(std::string_view key) const;
  std::optional<uint32_t> get_u32(std::string_view key) const;
  std::optional<int64_t> get_i64(std::string_view key) const;
  std::optional<int32_t> get_i32(std::string_view key) const;
  std::optional<float> get_f32(std::string_view key) const;
  std::optional<double> get_f64(std::string_view key) const;
  std::optional<bool> get_bool(std::string_view key) const;
  std::optional<std::string> get_string(std::string_view key) const;
  std::optional<std::vector<std::string>> get_string_array(std::string_view key) const;
  std::optional<std::vector<float>> get_f32_array(std::string_view key) const;  // F32 or F64 elements
  std::optional<std::vector<int32_t>> get_i32_array(std::string_view key) const;  // any integer elements that fit

  struct ArrayInfo {
    GgufType element_type;
    uint64_t count;
  };
  std::optional<ArrayInfo> get_array_info(std::string_view key) const;

  // One line for humans: scalars in full, strings quoted and escaped, arrays
  // with at most `max_items` elements shown.
  std::string describe(const MetaEntry& entry, size_t max_items = 8) const;

  // Adds or replaces a key (the converter's ck.* keys).
  void set_bool(std::string_view key, bool value);
  void set_u32(std::string_view key, uint32_t value);
  void set_u64(std::string_view key, uint64_t value);
  void set_string(std::string_view key, std::string_view value);

  // Appends a parsed pair; a duplicate key is an error naming `offset`.
  void add(MetaEntry entry, uint64_t offset);

  // The pairs in GGUF v3 encoding (key string, u32 type, value), in order.
  std::string encode_pairs() const;

 private:
  const MetaEntry& require_type(std::string_view key, const MetaEntry& e, bool ok, std::string_view expected) const;
  void set(std::string_view key, GgufType type, std::string raw);

  std::string source_;
  std::vector<MetaEntry> entries_;
  std::unordered_map<std::string, size_t> index_;
};

// Reads `n_kv` pairs at the reader's position, validating every length, count
// and type id against the bytes left. `v1_counts`: GGUF v1 wrote string
// lengths and array counts as u32 (the entries are still stored as v3).
Metadata read_metadata(ByteReader& reader, uint64_t n_kv, bool v1_counts);

}  // namespace ck
