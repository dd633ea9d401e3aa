// Shape refinement, in the manner of StableHLO's stablehlo-refine-shapes:
// given static types for a function's parameters, make every type in it
// static so that back ends, which compile static shapes only, can take it.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "kiln/ir/ir.h"

namespace kiln {

// Refines function `entry` of `module`:
//  - its parameters take `argumentTypes` (when given; each must be the
//    parameter's type with its `?` dimensions filled in, within any bounds);
//  - calls are inlined (JAX's shape-polymorphic exports call a wrapped main);
//  - get_dimension_size of a static dimension becomes a constant, shape
//    arithmetic is constant-folded, and the dynamism ops whose shape operands
//    are then constants become their static twins (dynamic_broadcast_in_dim
//    -> broadcast_in_dim, dynamic_reshape -> reshape, dynamic_iota -> iota,
//    dynamic_pad -> pad, real_dynamic_slice -> slice, dynamic_gather ->
//    gather, dynamic_conv -> convolution, set_dimension_size of the static
//    size -> its operand);
//  - every other op whose result type has `?` takes the type its type rule
//    infers from its (now static) operands;
//  - JAX's shape assertions (`custom_call @shape_assertion(pred, dims...)`)
//    with a constant predicate are removed when true and are an
//    InvalidArgument error carrying JAX's message (its {0}, {1}, ... filled
//    with the dimension values) when false.
// A type left dynamic is an error naming the op.
Status refineShapes(Module& module, std::string_view entry,
                    std::optional<std::span<const Type>> argumentTypes = std::nullopt);

// True if `t` (a tensor, tuple or token) has no `?` dimension.
bool isStaticType(Type t);

}  // namespace kiln
