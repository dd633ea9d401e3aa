// Readers of the attributes of verified ops, for the interpreter, the passes
// and the back ends: absent attributes read as the given fallback. The type
// rules, which check attributes, read them with rules::intListAttr and its
// siblings (ops/type_rule_helpers.h) instead, which report a missing or
// malformed one; both build on Attribute::asIntList.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/ir/ir.h"

namespace kiln {

// The integer list attribute `name` of `op` (array<i64: ...>, [1, 2], or a
// rank-1 dense tensor of integers); empty when absent.
std::vector<int64_t> intListAttr(const Operation& op, std::string_view name);
// The integer list attribute `name`, or `size` copies of `fallback` when
// absent (window strides, dilations: absent means all ones).
std::vector<int64_t> intListAttrOr(const Operation& op, std::string_view name, size_t size, int64_t fallback);
// A field of a Struct attribute (#stablehlo.conv<...>) as an integer list;
// empty when the struct or the field is absent.
std::vector<int64_t> intListField(const Attribute& structAttr, std::string_view field);
// A scalar integer field of a Struct attribute; `fallback` when absent.
int64_t intField(const Attribute& structAttr, std::string_view field, int64_t fallback);
// The elements of dense integer attribute `a` of any shape (a window's
// [rank, 2] padding), row-major; nullopt for any other attribute.
std::optional<std::vector<int64_t>> denseIntElements(const Attribute& a);
// The Bool (or Unit-present) attribute `name`; `fallback` when absent.
bool boolAttr(const Operation& op, std::string_view name, bool fallback);
// The value of Enum (or String) attribute `name`; `fallback` when absent.
std::string enumAttr(const Operation& op, std::string_view name, std::string fallback);

}  // namespace kiln
