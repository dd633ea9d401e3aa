// Which ops the elemental emitter computes element by element, and the
// compile error for those it cannot: read from the op registry's facts,
// free of LLVM headers (the kernel-form analysis and the planners use them
// too).
#pragma once

#include <string_view>

#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::codegen {

// Whether op `name` has a per-element expression (emitElementwise,
// elementwise.h): result element i from operand elements i.
bool isElementwiseOp(std::string_view name);

// Whether op `name` moves data: each element of its result is an element of
// an operand (or a padding value, or its own index), found by mapping the
// index.
bool isIndexMapping(std::string_view name);

// Whether the elemental emitter has an expression for op `name` at all:
// elementwise ops, data movement, reduce and reduce_window. A back end
// tries to emit such an op; its element types, attributes and reduce body
// then decide whether the emitter takes it (the emitter's error says why
// not).
bool isElementalOp(std::string_view name);

// The compile error of back end `backend` for an op (or a form of it) it
// cannot compile: "the cpu back end cannot compile 'stablehlo.x' ... yet (loc)".
Status unsupported(std::string_view backend, const Operation& op, std::string_view what = {});

}  // namespace kiln::codegen
