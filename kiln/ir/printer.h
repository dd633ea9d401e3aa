// The printer: writes kiln IR as StableHLO's MLIR text, in the pretty form
// that JAX and mlir-opt print (default) or the generic form. Printing is a
// fixed point: print(parse(print(parse(x)))) == print(parse(x)).
#pragma once

#include <string>
#include <string_view>

#include "kiln/ir/ir.h"

namespace kiln {

struct PrintOptions {
  bool generic = false;    // "stablehlo.add"(%0, %1) : (...) -> ... everywhere
  bool debugInfo = false;  // print `loc(...)` locations kept from the source
};

std::string printModule(const Module& module, const PrintOptions& options = {});
std::string printOp(const Operation& op, const PrintOptions& options = {});
// Whether the printer has a syntax of its own for `opName` (PrettyForm::kCustom).
bool hasCustomPrettyPrinter(std::string_view opName);
// "dense<[1, 2]> : tensor<2xi32>", "array<i64: 1, 2>", "#stablehlo.dot<...>".
std::string printAttribute(const Attribute& attr);
// Whether `s` is what the parser reads as a bare identifier
// ([A-Za-z_][A-Za-z0-9_$.]*), so that it prints as itself.
bool isBareIdentifier(std::string_view s);
// A float of element type `type` as MLIR writes it: "1.000000e-01" when six
// digits read back exactly, else more digits ("3.14159274"), else the hex bit
// pattern ("0x7FC00000"). For Type::str() of quantized types' scales.
std::string printFloat(double value, Type type);

}  // namespace kiln
