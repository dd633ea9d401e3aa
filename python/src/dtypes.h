// numpy dtypes <-> kiln element types, by dtype name (ml_dtypes' extension
// types have kind 'V', so the name is what identifies them).
#pragma once

#include <nanobind/nanobind.h>

#include <optional>
#include <string_view>

#include "kiln/ir/types.h"

namespace kiln::python {

// The element type of a numpy dtype name ("float32", "bfloat16", ...).
std::optional<Type> elementTypeOfDtypeName(std::string_view name);
// The element type of a numpy dtype object; nullopt for dtypes kiln lacks
// and for non-native byte order. Remembered per dtype object (fast).
std::optional<Type> elementTypeOfDtype(nanobind::handle dtype);
// The numpy dtype of a kiln element type (quantized: its storage type);
// None when numpy has none.
nanobind::object dtypeOf(Type elementType);

// ml_dtypes keeps int2/int4 in the low bits of a byte; kiln sign-extends
// sub-byte integers to the whole byte.
bool isSubByteSignedInteger(Type elementType);
void signExtendSubByte(uint8_t* bytes, int64_t count, unsigned bits);
void truncateSubByte(uint8_t* bytes, int64_t count, unsigned bits);

}  // namespace kiln::python
