// What profiles and pictures of a program say about one top-level op of an
// optimized function (a kiln.fusion, a dot, a routine's op): its cost in
// flops and bytes, and a short label naming it after its ops and source
// line. The cost analysis of the runtime, `kiln run --profile`, traces and
// `kiln-opt --graph` all read these, so that they agree.
#pragma once

#include <string>

#include "kiln/ir/ir.h"

namespace kiln {

// The cost model is XLA's: a dot or convolution costs 2 flops per
// multiply-add, an elementwise op one flop per result element, a reduction
// one flop per input element and body op; ops that only move data cost none.
// Bytes are those of the op's operands and results: values inside a
// kiln.fusion never reach memory, so a fusion costs the flops of its body and
// the bytes of its boundary. Loops count their body once (the trip count is
// not known statically); a constant moves no bytes.
struct OpCost {
  double flops = 0;
  double bytes = 0;
};
OpCost opCost(const Operation& op);

// "output fusion [dot_general, add, maximum] mlp.mlir:33", "dot_general
// mlp.mlir:13": a fusion by its kind and (up to four of) its ops' names, any
// other op by its name (without "stablehlo."), then the op's file:line when
// it has one.
std::string opLabel(const Operation& op);

// An op's name without "stablehlo." ("dot_general", "kiln.fusion").
std::string shortOpName(const std::string& name);

// "mlp.mlir:33" (file:line), or "" when the op has no location.
std::string sourceLine(const Operation& op);

}  // namespace kiln
