#include "loader/metadata.h"

#include <cinttypes>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "loader/byte_reader.h"

namespace ck {

namespace {

// Nested arrays are legal GGUF; deeper than this is an attack on the stack.
constexpr int kMaxArrayDepth = 8;

bool valid_type(uint32_t t) { return t <= static_cast<uint32_t>(GgufType::F64); }

// Bytes of a fixed-size value; 0 for strings and arrays.
size_t scalar_size(GgufType t) {
  switch (t) {
    case GgufType::U8: case GgufType::I8: case GgufType::Bool: return 1;
    case GgufType::U16: case GgufType::I16: return 2;
    case GgufType::U32: case GgufType::I32: case GgufType::F32: return 4;
    case GgufType::U64: case GgufType::I64: case GgufType::F64: return 8;
    case GgufType::String: case GgufType::Array: return 0;
  }
  return 0;
}

bool is_integer(GgufType t) {
  switch (t) {
    case GgufType::U8: case GgufType::I8: case GgufType::U16: case GgufType::I16:
    case GgufType::U32: case GgufType::I32: case GgufType::U64: case GgufType::I64: return true;
    default: return false;
  }
}

void append_u32(std::string& out, uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); }
void append_u64(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); }

std::string type_label(uint32_t t) {
  return valid_type(t) ? std::string(gguf_type_name(static_cast<GgufType>(t))) : "id " + std::to_string(t);
}

uint64_t read_count(ByteReader& r, bool v1_counts, std::string_view what) {
  return v1_counts ? r.read<uint32_t>(what) : r.read<uint64_t>(what);
}

// Validates one value of type `t` and appends its v3 encoding to `out`.
// Every count is checked against the bytes left before any loop or
// allocation, so the work is linear in the input size.
void copy_value(ByteReader& r, GgufType t, int depth, bool v1_counts, std::string& out) {
  const uint64_t start = r.file_offset();
  if (const size_t n = scalar_size(t); n > 0) {
    auto bytes = r.take(n, "metadata value");
    if (t == GgufType::Bool && bytes[0] > 1) {
      r.fail_at(start, "bool value " + std::to_string(bytes[0]) + " is not 0 or 1");
    }
    out.append(reinterpret_cast<const char*>(bytes.data()), n);
    return;
  }
  if (t == GgufType::String) {
    const uint64_t len = read_count(r, v1_counts, "string length");
    auto bytes = r.take(len, "string of length " + std::to_string(len));
    append_u64(out, len);
    out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return;
  }
  // Array.
  const uint32_t raw_elem = r.read<uint32_t>("array element type");
  if (!valid_type(raw_elem)) r.fail_at(start, "array element type " + std::to_string(raw_elem) + " is not a GGUF value type (0..12)");
  const auto elem = static_cast<GgufType>(raw_elem);
  if (elem == GgufType::Array && depth + 1 >= kMaxArrayDepth) {
    r.fail_at(start, "arrays nested deeper than " + std::to_string(kMaxArrayDepth) + " levels");
  }
  const uint64_t count_offset = r.file_offset();
  const uint64_t count = read_count(r, v1_counts, "array count");
  const size_t count_bytes = v1_counts ? 4 : 8;
  const size_t min_elem = elem == GgufType::String ? count_bytes
                        : elem == GgufType::Array  ? 4 + count_bytes
                                                   : scalar_size(elem);
  if (count > r.remaining() / min_elem) {
    r.fail_at(count_offset, "array count " + std::to_string(count) + " of " + type_label(raw_elem) +
                                " needs at least " + std::to_string(min_elem) + " bytes each but only " +
                                std::to_string(r.remaining()) + " bytes remain");
  }
  append_u32(out, raw_elem);
  append_u64(out, count);
  if (min_elem == scalar_size(elem) && elem != GgufType::Bool) {
    auto bytes = r.take(count * min_elem, "array data");
    out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return;
  }
  for (uint64_t i = 0; i < count; ++i) copy_value(r, elem, depth + 1, v1_counts, out);
}

// Decoding of already-validated v3 values.
struct Integer {
  bool negative;
  uint64_t magnitude;
};

Integer decode_integer(ByteReader& r, GgufType t) {
  auto sig = [](int64_t v) { return Integer{v < 0, v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v)}; };
  switch (t) {
    case GgufType::U8: return {false, r.read<uint8_t>("u8")};
    case GgufType::I8: return sig(r.read<int8_t>("i8"));
    case GgufType::U16: return {false, r.read<uint16_t>("u16")};
    case GgufType::I16: return sig(r.read<int16_t>("i16"));
    case GgufType::U32: return {false, r.read<uint32_t>("u32")};
    case GgufType::I32: return sig(r.read<int32_t>("i32"));
    case GgufType::U64: return {false, r.read<uint64_t>("u64")};
    case GgufType::I64: return sig(r.read<int64_t>("i64"));
    default: r.fail("not an integer");
  }
}

double decode_float(ByteReader& r, GgufType t) {
  return t == GgufType::F32 ? r.read<float>("f32") : r.read<double>("f64");
}

std::string quote(std::string_view s, size_t max_chars) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size() && i < max_chars; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (s.size() > max_chars) out += "...";
  return out + "\"";
}

std::string describe_value(ByteReader& r, GgufType t, size_t max_items) {
  if (is_integer(t)) {
    const Integer v = decode_integer(r, t);
    return (v.negative ? "-" : "") + std::to_string(v.magnitude);
  }
  switch (t) {
    case GgufType::F32: case GgufType::F64: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.9g", decode_float(r, t));
      return buf;
    }
    case GgufType::Bool: return r.read<uint8_t>("bool") ? "true" : "false";
    case GgufType::String: {
      const uint64_t len = r.read<uint64_t>("string length");
      auto bytes = r.take(len, "string");
      return quote({reinterpret_cast<const char*>(bytes.data()), bytes.size()}, 120);
    }
    default: break;
  }
  const auto elem = static_cast<GgufType>(r.read<uint32_t>("array element type"));
  const uint64_t count = r.read<uint64_t>("array count");
  std::string out = "[" + std::string(gguf_type_name(elem)) + " x " + std::to_string(count) + "] [";
  for (uint64_t i = 0; i < count && i < max_items; ++i) {
    if (i) out += ", ";
    out += describe_value(r, elem, max_items);
  }
  return out + (count > max_items ? ", ...]" : "]");
}

}  // namespace

std::string_view gguf_type_name(GgufType t) {
  static constexpr std::string_view names[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32",
                                               "bool", "string", "array", "u64", "i64", "f64"};
  const auto i = static_cast<uint32_t>(t);
  return i < std::size(names) ? names[i] : "invalid";
}

const MetaEntry* Metadata::find(std::string_view key) const {
  auto it = index_.find(std::string(key));
  return it == index_.end() ? nullptr : &entries_[it->second];
}

const MetaEntry& Metadata::require_type(std::string_view key, const MetaEntry& e, bool ok,
                                        std::string_view expected) const {
  if (!ok) {
    throw std::runtime_error(source_ + ": metadata key '" + std::string(key) + "' has type " +
                             std::string(gguf_type_name(e.type)) + ", expected " + std::string(expected));
  }
  return e;
}

std::optional<uint64_t> Metadata::get_u64(std::string_view key) const {
  const MetaEntry* e = find(key);
  if (!e) return std::nullopt;
  require_type(key, *e, is_integer(e->type), "an unsigned integer");
  ByteReader r({reinterpret_cast<const uint8_t*>(e->raw.data()), e->raw.size()}, source_);
  const Integer v = decode_integer(r, e->type);
  if (v.negative) {
    throw std::runtime_error(source_ + ": metadata key '" + std::string(key) + "' is -" +
                             std::to_string(v.magnitude) + ", expected a non-negative value");
  }
  return v.magnitude;
}

std::optional<uint32_t> Metadata::get_u32(std::string_view key) const {
  auto v = get_u64(key);
  if (v && *v > std::numeric_limits<uint32_t>::max()) {
    throw std::runtime_error(source_ + ": metadata key '" + std::string(key) + "' is " + std::to_string(*v) +
                             ", which does not fit in 32 bits");
  }
  return v;
}

std::optional<int64_t> Metadata::get_i64(std::string_view key) const {
  const MetaEntry* e = find(key);
  if (!e) return std::nullopt;
  require_type(key, *e, is_integer(e->type), "an integer");
  ByteReader r({reinterpret_cast<const uint8_t*>(e->raw.data()), e->raw.size()}, source_);
  const Integer v = decode_integer(r, e->type);
  const uint64_t limit = v.negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  if (v.magnitude > limit) {
    throw std::runtime_error(source_ + ": metadata key '" + std::string(key) + "' does not fit in 64-bit signed");
  }
  return v.negative ? static_cast<int64_t>(0 - v.magnitude) : static_cast<int64_t>(v.magnitude);
}

std::optional<int32_t> Metadata::get_i32(std::string_view key) const {
  auto v = get_i64(key);
  if (v && (*v < std::numeric_limits<int32_t>::min() || *v > std::numeric_limits<int32_t>::max())) {
    throw std::runtime_error(source_ + ": metadata key '" + std::string(key) + "' is " + std::to_string(*v) +
                             ", which does not fit in a 32-bit signed integer");
  }
  return v ? std::optional<int32_t>(static_cast<int32_t>(*v)) : std::nullopt;
}

std::optional<double> Metadata::get_f64(std::string_view key) const {
  const MetaEntry* e = find(key);
  if (!e) return std::nullopt;
  require_type(key, *e, e->type == GgufType::F32 || e->type == GgufType::F64, "f32 or f64");
  ByteReader r({reinterpret_cast<const uint8_t*>(e->raw.data()), e->raw.size()}, source_);
  return decode_float(r, e->type);
}

std::optional<float> Metadata::get_f32(std::string_view key) const {
  auto v = get_f64(key);
  return v ? std::optional<float>(static_cast<float>(*v)) : std::nullopt;
}

std::optional<bool> Metadata::get_bool(std::string_view key) const {
  const MetaEntry* e = find(key);
  if (!e) return std::nullopt;
  require_type(key, *e, e->type == GgufType::Bool, "bool");
  return e->raw[0] != 0;
}

std::optional<std::string> Metadata::get_string(std::string_view key) const {
  const MetaEntry* e = find(key);
  if (!e) return std::nullopt;
  require_type(key, *e, e->type == GgufType::String, "string");
  return e->raw.substr(8);
}

std::optional<Metadata::ArrayInfo> Metadata::get_array_info(std::string_view key) const {
  const MetaEntry* e = find(key);
  if (!e) return std::nullopt;
  require_type(key, *e, e->type == GgufType::Array, "array");
  ByteReader r({reinterpret_cast<const uint8_t*>(e->raw.data()), e->raw.size()}, source_);
  const auto elem = static_cast<GgufType>(r.read<uint32_t>("array element type"));
  return ArrayInfo{elem, r.read<uint64_t>("array count")};
}

std::optional<std::vector<std::string>> Metadata::get_string_array(std::string_view key) const {
  auto info = get_array_info(key);
  if (!info) return std::nullopt;
  if (info->element_type != GgufType::String) {
    throw std::runtime_error(source_ + ": metadata key '" + std::string(key) + "' is an array of " +
                             std::string(gguf_type_name(info->element_type)) + ", expected an array of string");
  }
  const std::string& raw = find(key)->raw;
  ByteReader r({reinterpret_cast<const uint8_t*>(raw.data()), raw.size()}, source_);
  r.take(12, "array header");
  std::vector<std::string> out;
  out.reserve(info->count);
  for (uint64_t i = 0; i < info->count; ++i) {
    const uint64_t len = r.read<uint64_t>("string length");
    auto bytes = r.take(len, "string");
    out.emplace_back(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  return out;
}

std::optional<std::vector<float>> Metadata::get_f32_array(std::string_view key) const {
  auto info = get_array_info(key);
  if (!info) return std::nullopt;
  if (info->element_type != GgufType::F32 && info->element_type != GgufType::F64) {
    throw std::runtime_error(source_ + ": metadata key '" + std::string(key) + "' is an array of " +
                             std::string(gguf_type_name(info->element_type)) + ", expected an array of f32");
  }
  const std::string& raw = find(key)->raw;
  ByteReader r({reinterpret_cast<const uint8_t*>(raw.data()), raw.size()}, source_);
  r.take(12, "array header");
  std::vector<float> out(info->count);
  for (auto& v : out) v = static_cast<float>(decode_float(r, info->element_type));
  return out;
}

std::optional<std::vector<int32_t>> Metadata::get_i32_array(std::string_view key) const {
  auto info = get_array_info(key);
  if (!info) return std::nullopt;
  if (!is_integer(info->element_type)) {
    throw std::runtime_error(source_ + ": metadata key '" + std::string(key) + "' is an array of " +
                             std::string(gguf_type_name(info->element_type)) + ", expected an array of integers");
  }
  const std::string& raw = find(key)->raw;
  ByteReader r({reinterpret_cast<const uint8_t*>(raw.data()), raw.size()}, source_);
  r.take(12, "array header");
  std::vector<int32_t> out(info->count);
  for (size_t i = 0; i < out.size(); ++i) {
    const Integer v = decode_integer(r, info->element_type);
    const uint64_t limit = v.negative ? uint64_t{1} << 31 : (uint64_t{1} << 31) - 1;
    if (v.magnitude > limit) {
      throw std::runtime_error(source_ + ": metadata key '" + std::string(key) + "' element " + std::to_string(i) +
                               " does not fit in a 32-bit signed integer");
    }
    out[i] = v.negative ? static_cast<int32_t>(-static_cast<int64_t>(v.magnitude)) : static_cast<int32_t>(v.magnitude);
  }
  return out;
}

std::string Metadata::describe(const MetaEntry& entry, size_t max_items) const {
  ByteReader r({reinterpret_cast<const uint8_t*>(entry.raw.data()), entry.raw.size()}, source_);
  return describe_value(r, entry.type, max_items);
}

void Metadata::set(std::string_view key, GgufType type, std::string raw) {
  auto it = index_.find(std::string(key));
  if (it != index_.end()) {
    entries_[it->second].type = type;
    entries_[it->second].raw = std::move(raw);
    return;
  }
  index_.emplace(std::string(key), entries_.size());
  entries_.push_back({std::string(key), type, std::move(raw)});
}

void Metadata::set_bool(std::string_view key, bool value) { set(key, GgufType::Bool, std::string(1, value ? 1 : 0)); }

void Metadata::set_u32(std::string_view key, uint32_t value) {
  std::string raw;
  append_u32(raw, value);
  set(key, GgufType::U32, std::move(raw));
}

void Metadata::set_u64(std::string_view key, uint64_t value) {
  std::string raw;
  append_u64(raw, value);
  set(key, GgufType::U64, std::move(raw));
}

void Metadata::set_string(std::string_view key, std::string_view value) {
  std::string raw;
  append_u64(raw, value.size());
  raw.append(value);
  set(key, GgufType::String, std::move(raw));
}

void Metadata::add(MetaEntry entry, uint64_t offset) {
  if (index_.count(entry.key)) {
    throw std::runtime_error(source_ + ": byte " + std::to_string(offset) + ": duplicate metadata key '" +
                             entry.key + "'");
  }
  index_.emplace(entry.key, entries_.size());
  entries_.push_back(std::move(entry));
}

std::string Metadata::encode_pairs() const {
  std::string out;
  for (const MetaEntry& e : entries_) {
    append_u64(out, e.key.size());
    out += e.key;
    append_u32(out, static_cast<uint32_t>(e.type));
    out += e.raw;
  }
  return out;
}

Metadata read_metadata(ByteReader& r, uint64_t n_kv, bool v1_counts) {
  // Smallest pair: key length, empty key, type id, one-byte value.
  const uint64_t min_pair = (v1_counts ? 4 : 8) + 4 + 1;
  if (n_kv > r.remaining() / min_pair) {
    r.fail("metadata count " + std::to_string(n_kv) + " cannot fit in the " + std::to_string(r.remaining()) +
           " bytes left");
  }
  Metadata meta(r.source());
  for (uint64_t i = 0; i < n_kv; ++i) {
    const uint64_t pair_offset = r.file_offset();
    const uint64_t key_len = read_count(r, v1_counts, "metadata key length");
    auto key_bytes = r.take(key_len, "metadata key of length " + std::to_string(key_len));
    MetaEntry e;
    e.key.assign(reinterpret_cast<const char*>(key_bytes.data()), key_bytes.size());
    const uint64_t type_offset = r.file_offset();
    const uint32_t type = r.read<uint32_t>("metadata value type");
    if (!valid_type(type)) {
      r.fail_at(type_offset, "metadata key '" + e.key + "' has value type " + std::to_string(type) +
                                 ", expected a GGUF value type (0..12)");
    }
    e.type = static_cast<GgufType>(type);
    copy_value(r, e.type, 0, v1_counts, e.raw);
    meta.add(std::move(e), pair_offset);
  }
  return meta;
}

}  // namespace ck
