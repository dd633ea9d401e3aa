#include "kiln/ir/attributes.h"

#include <cassert>
#include <cstring>

namespace kiln {

struct AttrStorage {
  AttrKind kind;
  int64_t i = 0;
  double f = 0;
  Type type;
  std::string s;        // String, Opaque, Enum value
  std::string name;     // Enum/Struct name
  std::string dialect;  // Enum/Struct dialect
  std::vector<std::string> path;
  std::vector<Attribute> elements;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<uint8_t> data;
  bool splat = false;
  std::vector<NamedAttribute> entries;
};

namespace {
std::shared_ptr<AttrStorage> make(AttrKind k) {
  auto s = std::make_shared<AttrStorage>();
  s->kind = k;
  return s;
}
}  // namespace

Attribute Attribute::unit() { return Attribute(make(AttrKind::Unit)); }
Attribute Attribute::boolean(bool v) {
  auto s = make(AttrKind::Bool);
  s->i = v;
  s->type = Type::i1();
  return Attribute(s);
}
Attribute Attribute::integer(int64_t v, Type type) {
  auto s = make(AttrKind::Integer);
  s->i = v;
  s->type = type;
  return Attribute(s);
}
Attribute Attribute::floating(double v, Type type) {
  auto s = make(AttrKind::Float);
  s->f = v;
  s->type = type;
  return Attribute(s);
}
Attribute Attribute::string(std::string v) {
  auto s = make(AttrKind::String);
  s->s = std::move(v);
  return Attribute(s);
}
Attribute Attribute::type(Type t) {
  auto s = make(AttrKind::Type);
  s->type = t;
  return Attribute(s);
}
Attribute Attribute::symbolRef(std::vector<std::string> path) {
  auto s = make(AttrKind::SymbolRef);
  s->path = std::move(path);
  return Attribute(s);
}
Attribute Attribute::array(std::vector<Attribute> elements) {
  auto s = make(AttrKind::Array);
  s->elements = std::move(elements);
  return Attribute(s);
}
Attribute Attribute::denseI64Array(std::vector<int64_t> v) {
  return denseArray(Type::si64(), std::move(v), {});
}
Attribute Attribute::denseBoolArray(std::vector<bool> v) {
  return denseArray(Type::i1(), std::vector<int64_t>(v.begin(), v.end()), {});
}
Attribute Attribute::denseArray(Type elementType, std::vector<int64_t> ints, std::vector<double> floats) {
  auto s = make(AttrKind::DenseArray);
  s->type = elementType;
  s->ints = std::move(ints);
  s->floats = std::move(floats);
  return Attribute(s);
}
Attribute Attribute::dense(Type type, std::vector<uint8_t> data, bool splat) {
  auto s = make(AttrKind::DenseElements);
  s->type = type;
  s->data = std::move(data);
  s->splat = splat;
  return Attribute(s);
}
Attribute Attribute::dictionary(std::vector<NamedAttribute> entries) {
  auto s = make(AttrKind::Dictionary);
  s->entries = std::move(entries);
  return Attribute(s);
}
Attribute Attribute::enumAttr(std::string name, std::string value, std::string dialect) {
  auto s = make(AttrKind::Enum);
  s->name = std::move(name);
  s->s = std::move(value);
  s->dialect = std::move(dialect);
  return Attribute(s);
}
Attribute Attribute::structAttr(std::string name, std::vector<NamedAttribute> fields, std::string dialect) {
  auto s = make(AttrKind::Struct);
  s->name = std::move(name);
  s->entries = std::move(fields);
  s->dialect = std::move(dialect);
  return Attribute(s);
}
Attribute Attribute::opaque(std::string text) {
  auto s = make(AttrKind::Opaque);
  s->s = std::move(text);
  return Attribute(s);
}

AttrKind Attribute::kind() const { return impl_->kind; }
bool Attribute::boolValue() const { return impl_->i != 0; }
int64_t Attribute::intValue() const { return impl_->i; }
double Attribute::floatValue() const { return impl_->f; }
Type Attribute::valueType() const { return impl_->type; }
const std::string& Attribute::stringValue() const { return impl_->s; }
std::span<const std::string> Attribute::symbolPath() const { return impl_->path; }
std::span<const Attribute> Attribute::arrayValue() const { return impl_->elements; }
Type Attribute::denseArrayElementType() const { return impl_->type; }
std::span<const int64_t> Attribute::denseArrayInts() const { return impl_->ints; }
std::span<const double> Attribute::denseArrayFloats() const { return impl_->floats; }
std::span<const uint8_t> Attribute::denseData() const { return impl_->data; }
bool Attribute::denseIsSplat() const { return impl_->splat; }
std::span<const NamedAttribute> Attribute::entries() const { return impl_->entries; }
const std::string& Attribute::attrName() const { return impl_->name; }
const std::string& Attribute::dialect() const { return impl_->dialect; }

Attribute Attribute::get(std::string_view name) const {
  if (!impl_) return {};
  for (const auto& [k, v] : impl_->entries)
    if (k == name) return v;
  return {};
}

std::optional<std::vector<int64_t>> Attribute::asIntList() const {
  if (!impl_) return std::nullopt;
  switch (kind()) {
    case AttrKind::DenseArray:
      if (impl_->type.isFloat()) return std::nullopt;
      return impl_->ints;
    case AttrKind::Array: {
      std::vector<int64_t> out;
      for (const Attribute& a : impl_->elements) {
        if (!a.is(AttrKind::Integer)) return std::nullopt;
        out.push_back(a.intValue());
      }
      return out;
    }
    case AttrKind::DenseElements: {
      Type t = impl_->type;
      if (t.rank() != 1 || !(t.elementType().isInteger() || t.elementType().kind() == TypeKind::Index))
        return std::nullopt;
      Type et = t.elementType();
      unsigned bytes = et.storageBytes();
      std::vector<int64_t> out;
      for (int64_t idx = 0; idx < t.numElements(); ++idx) {
        const uint8_t* p = impl_->data.data() + (impl_->splat ? 0 : idx * bytes);
        uint64_t raw = 0;
        for (unsigned b = 0; b < bytes; ++b) raw |= uint64_t(p[b]) << (8 * b);
        int64_t v = static_cast<int64_t>(raw);
        if (et.isSignedInteger() && bytes < 8) {
          unsigned shift = 64 - 8 * bytes;
          v = static_cast<int64_t>(raw << shift) >> shift;
        }
        out.push_back(v);
      }
      return out;
    }
    default:
      return std::nullopt;
  }
}

bool Attribute::operator==(const Attribute& o) const {
  if (impl_ == o.impl_) return true;
  if (!impl_ || !o.impl_) return false;
  const AttrStorage& a = *impl_;
  const AttrStorage& b = *o.impl_;
  if (a.kind != b.kind) return false;
  // Floats compare by bits so that NaN payloads and -0.0 stay distinct.
  auto bitsEqual = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  if (!bitsEqual(a.f, b.f)) return false;
  if (a.floats.size() != b.floats.size()) return false;
  for (size_t i = 0; i < a.floats.size(); ++i)
    if (!bitsEqual(a.floats[i], b.floats[i])) return false;
  return a.i == b.i && a.type == b.type && a.s == b.s && a.name == b.name && a.dialect == b.dialect &&
         a.path == b.path && a.elements == b.elements && a.ints == b.ints && a.data == b.data &&
         a.splat == b.splat && a.entries == b.entries;
}

Attribute AttrDict::get(std::string_view name) const {
  for (const auto& [k, v] : entries_)
    if (k == name) return v;
  return {};
}

void AttrDict::set(std::string_view name, Attribute value) {
  for (auto& [k, v] : entries_)
    if (k == name) {
      v = std::move(value);
      return;
    }
  entries_.emplace_back(std::string(name), std::move(value));
}

bool AttrDict::erase(std::string_view name) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->first == name) {
      entries_.erase(it);
      return true;
    }
  return false;
}

}  // namespace kiln
