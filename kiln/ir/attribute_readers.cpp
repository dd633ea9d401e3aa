#include "kiln/ir/attribute_readers.h"

namespace kiln {

std::vector<int64_t> intListAttr(const Operation& op, std::string_view name) {
  return op.attr(name).asIntList().value_or(std::vector<int64_t>{});
}

std::vector<int64_t> intListAttrOr(const Operation& op, std::string_view name, size_t size, int64_t fallback) {
  return op.attr(name) ? intListAttr(op, name) : std::vector<int64_t>(size, fallback);
}

std::vector<int64_t> intListField(const Attribute& structAttr, std::string_view field) {
  if (!structAttr) return {};
  return structAttr.get(field).asIntList().value_or(std::vector<int64_t>{});
}

int64_t intField(const Attribute& structAttr, std::string_view field, int64_t fallback) {
  if (!structAttr) return fallback;
  Attribute a = structAttr.get(field);
  return a && a.is(AttrKind::Integer) ? a.intValue() : fallback;
}

std::optional<std::vector<int64_t>> denseIntElements(const Attribute& a) {
  if (!a.is(AttrKind::DenseElements)) return std::nullopt;
  // Read as the rank-1 tensor of the same elements (asIntList's one decoding).
  Type type = a.valueType();
  std::vector<uint8_t> data(a.denseData().begin(), a.denseData().end());
  return Attribute::dense(Type::tensor({type.numElements()}, type.elementType()), std::move(data), a.denseIsSplat())
      .asIntList();
}

bool boolAttr(const Operation& op, std::string_view name, bool fallback) {
  Attribute a = op.attr(name);
  if (!a) return fallback;
  if (a.is(AttrKind::Unit)) return true;
  if (a.is(AttrKind::Bool) || a.is(AttrKind::Integer)) return a.intValue() != 0;
  return fallback;
}

std::string enumAttr(const Operation& op, std::string_view name, std::string fallback) {
  Attribute a = op.attr(name);
  if (a && (a.is(AttrKind::Enum) || a.is(AttrKind::String))) return a.stringValue();
  return fallback;
}

}  // namespace kiln
