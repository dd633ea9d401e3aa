// The printer: writes kiln IR as StableHLO's MLIR text, in the pretty form
// that JAX and mlir-opt print (default) or the generic form. Printing is a
// fixed point: print(parse(print(parse(x)))) == print(parse(x)).
#pragma once

#include <string>

#include "kiln/ir/ir.h"

namespace kiln {

struct PrintOptions {
  bool generic = false;    // "stablehlo.add"(%0, %1) : (...) -> ... everywhere
  bool debugInfo = false;  // print `loc(...)` locations kept from the source
};

std::string printModule(const Module& module, const PrintOptions& options = {});
std::string printOp(const Operation& op, const PrintOptions& options = {});
// "dense<[1, 2]> : tensor<2xi32>", "array<i64: 1, 2>", "#stablehlo.dot<...>".
std::string printAttribute(const Attribute& attr);

}  // namespace kiln
