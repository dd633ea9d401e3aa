#include "dtypes.h"

#include <map>
#include <vector>
#include <string>

namespace nb = nanobind;

namespace kiln::python {

namespace {

struct DtypeName {
  TypeKind kind;
  const char* name;
  bool mlDtypes;  // defined by the ml_dtypes package, not numpy
};

constexpr DtypeName kDtypes[] = {
    {TypeKind::I1, "bool", false},
    {TypeKind::SI8, "int8", false},         {TypeKind::SI16, "int16", false},
    {TypeKind::SI32, "int32", false},       {TypeKind::SI64, "int64", false},
    {TypeKind::UI8, "uint8", false},        {TypeKind::UI16, "uint16", false},
    {TypeKind::UI32, "uint32", false},      {TypeKind::UI64, "uint64", false},
    {TypeKind::F16, "float16", false},      {TypeKind::F32, "float32", false},
    {TypeKind::F64, "float64", false},      {TypeKind::Complex64, "complex64", false},
    {TypeKind::Complex128, "complex128", false},
    {TypeKind::BF16, "bfloat16", true},
    {TypeKind::F8E4M3FN, "float8_e4m3fn", true},
    {TypeKind::F8E5M2, "float8_e5m2", true},
    {TypeKind::F8E4M3FNUZ, "float8_e4m3fnuz", true},
    {TypeKind::F8E5M2FNUZ, "float8_e5m2fnuz", true},
    {TypeKind::F8E4M3B11FNUZ, "float8_e4m3b11fnuz", true},
    {TypeKind::F8E4M3, "float8_e4m3", true},
    {TypeKind::F8E3M4, "float8_e3m4", true},
    {TypeKind::F8E8M0FNU, "float8_e8m0fnu", true},
    {TypeKind::F4E2M1FN, "float4_e2m1fn", true},
    {TypeKind::F6E2M3FN, "float6_e2m3fn", true},
    {TypeKind::F6E3M2FN, "float6_e3m2fn", true},
    {TypeKind::SI4, "int4", true},          {TypeKind::UI4, "uint4", true},
    {TypeKind::SI2, "int2", true},          {TypeKind::UI2, "uint2", true},
};

}  // namespace

std::optional<Type> elementTypeOfDtypeName(std::string_view name) {
  for (const DtypeName& d : kDtypes)
    if (name == d.name) return Type::element(d.kind);
  return std::nullopt;
}

nb::object dtypeOf(Type elementType) {
  if (elementType.isQuantized()) elementType = elementType.quant().storageType;
  if (!elementType || !elementType.isElement()) return nb::none();
  // Array.dtype is read on every kiln.jit call: make each dtype object once.
  // (Leaked: the objects must outlive every Array, up to interpreter exit.)
  constexpr size_t kCount = sizeof(kDtypes) / sizeof(kDtypes[0]);
  static nb::object* made[kCount] = {};
  for (size_t i = 0; i < kCount; ++i) {
    const DtypeName& d = kDtypes[i];
    if (d.kind != elementType.kind()) continue;
    if (made[i]) return *made[i];
    nb::module_ numpy = nb::module_::import_("numpy");
    nb::object dtype = d.mlDtypes ? numpy.attr("dtype")(nb::module_::import_("ml_dtypes").attr(d.name))
                                  : numpy.attr("dtype")(d.name);
    made[i] = new nb::object(dtype);
    return dtype;
  }
  return nb::none();
}

std::optional<Type> elementTypeOfDtype(nb::handle dtype) {
  // A few distinct dtype objects are in use at a time; remember the answer
  // for each (holding a reference, so its address is not reused).
  struct Known {
    PyObject* dtype;
    std::optional<Type> element;
  };
  static std::vector<Known>* known = new std::vector<Known>;
  for (const Known& k : *known)
    if (k.dtype == dtype.ptr()) return k.element;
  std::optional<Type> element;
  // Non-native byte order has the same name but not kiln's layout.
  if (nb::cast<bool>(dtype.attr("isnative")))
    element = elementTypeOfDtypeName(nb::str(dtype.attr("name")).c_str());
  if (known->size() < 64) known->push_back({nb::borrow(dtype).release().ptr(), element});
  return element;
}

bool isSubByteSignedInteger(Type t) {
  return t && (t.kind() == TypeKind::SI2 || t.kind() == TypeKind::SI4);
}

void signExtendSubByte(uint8_t* bytes, int64_t count, unsigned bits) {
  for (int64_t i = 0; i < count; ++i) {
    uint8_t v = bytes[i] & ((1u << bits) - 1);
    if (v & (1u << (bits - 1))) v |= static_cast<uint8_t>(0xFFu << bits);
    bytes[i] = v;
  }
}

void truncateSubByte(uint8_t* bytes, int64_t count, unsigned bits) {
  for (int64_t i = 0; i < count; ++i) bytes[i] &= static_cast<uint8_t>((1u << bits) - 1);
}

}  // namespace kiln::python
