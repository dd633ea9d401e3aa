// The op registry: one OpDef per known operation.
//
// An OpDef holds the op's traits and its *type rule*: the single function that
// knows the op's constraints from the StableHLO specification and its result
// types. The parser, the builder and the verifier all call the same rule:
//   - the builder calls it without declared results to infer them;
//   - the parser and the verifier call it with the declared result types and
//     report a mismatch between declared and inferred types.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/ir/ir.h"

namespace kiln {

enum OpTrait : uint32_t {
  kNoTraits = 0,
  kPure = 1u << 0,                      // no side effects: CSE/DCE may touch it
  kElementwise = 1u << 1,               // result[i] = f(operands[i]...)
  kSameOperandsAndResultType = 1u << 2, // pretty form prints one type
  kCommutative = 1u << 3,
  kTerminator = 1u << 4,                // must end its block
  kReturnLike = 1u << 5,                // stablehlo.return / func.return
  kIsolatedFromAbove = 1u << 6,         // regions may not use outer values
  kHasSideEffect = 1u << 7,             // never CSE'd or DCE'd
  kCheck = 1u << 8,                     // a check.* test op
  // Facts the cost model, fusion and the emitters read (one place, not name lists).
  kTranscendental = 1u << 9,            // costs a polynomial or a libm call per element
  kIndexMap = 1u << 10,                 // each result element is an operand element (or padding,
                                        // or its own index) at an index that depends on the
                                        // result index alone: broadcast, reshape, slice, ...
  kDynamicIndexMap = 1u << 11,          // ... or also on operand values: dynamic_slice, ...
  kLegalized = 1u << 12,                // deprecated or legacy (stablehlo.dot, einsum, chlo.tan, ...):
                                        // the legalize pass rewrites it into the ops that replace it,
                                        // before any back end (interpreter included) sees the program
  kControlFlow = 1u << 13,              // if, case, while: its regions are blocks of the program, run in
                                        // the enclosing function's frame (they may use its values) and
                                        // compiled, scheduled and partitioned like a function body
};

// How an op is written in the pretty (custom) form. The printer and the parser
// each map a shared form to one function, so an op of a common shape needs no
// entry anywhere else; an op with a syntax of its own (constant, compare,
// while, ...) is kCustom and has one printer and one parser function, found by
// its name (a unit test checks that both exist).
enum class PrettyForm : uint8_t {
  kGenericOnly,      // only `"dialect.op"(%a) {...} : (A) -> R`
  kSameType,         // `op %a, %b : T`, or `: (A, B) -> R` when the types differ
  kFunctional,       // always `op %a : (A) -> R`
  kNullary,          // `op : T`
  kChloElementwise,  // `chlo.op %a, %b : A, B -> R`
  kCustom,
};

// What a type rule sees: the op's operand types, attributes, regions and,
// when known, the declared result types.
struct OpTypeContext {
  std::string_view name;
  Location loc;
  std::span<const Type> operandTypes;
  const AttrDict& attrs;
  std::span<const std::unique_ptr<Region>> regions;
  // The result types written in the text or passed to the builder. Rules for
  // ops whose result type cannot be derived (reshape, convert, iota,
  // custom_call, ...) check these and return them; `hasDeclaredResults` is
  // false when a builder asks for inference, and such rules then fail.
  std::span<const Type> declaredResults;
  bool hasDeclaredResults = false;

  // "'stablehlo.add' op <message>" at the op's location.
  Status error(std::string message) const;
  Attribute attr(std::string_view n) const { return attrs.get(n); }
};

using TypeRule = Expected<std::vector<Type>> (*)(const OpTypeContext&);

struct OpDef {
  std::string_view name;       // "stablehlo.add"
  uint32_t traits = kNoTraits;
  TypeRule typeRule = nullptr; // null: results are taken as declared
  // Attributes that are inherent to the op (MLIR "properties"); the generic
  // printer writes them in `<{...}>`, all others in `{...}`.
  std::vector<std::string_view> inherentAttrs;
  std::string_view summary;    // one line, for docs and --help
  PrettyForm pretty = PrettyForm::kGenericOnly;

  bool has(OpTrait t) const { return (traits & t) != 0; }
};

// Null for unknown names.
const OpDef* lookupOpDef(std::string_view name);
// Whether `op` is a registered op with trait `t`.
inline bool hasTrait(const Operation& op, OpTrait t) { return op.def() && op.def()->has(t); }
// Every registered op, sorted by name.
std::vector<const OpDef*> allOpDefs();

// Builds a context for an existing op or for an op about to be created.
OpTypeContext typeContextOf(const Operation& op, std::vector<Type>& operandTypesStorage,
                            std::vector<Type>& resultTypesStorage);
OpTypeContext typeContextOf(const OperationState& st, std::vector<Type>& operandTypesStorage);

// Runs the type rule of `state` (if its op has one): fills state.resultTypes
// when empty, or checks them when given. Used by the parser and builders.
Status inferOrCheckResultTypes(OperationState& state);
// Compares a type rule's result types with the declared ones in `ctx`.
Status checkResultTypes(const OpTypeContext& ctx, std::span<const Type> inferred);

// Registration hooks, one per group of ops; each lives next to its ops' rules.
void registerBuiltinOps(std::vector<OpDef>& defs);    // builtin.module, func.*
void registerStablehloOps(std::vector<OpDef>& defs);  // every stablehlo.* op
void registerChloOps(std::vector<OpDef>& defs);       // the chlo.* ops JAX exports (chlo_ops.cpp)
void registerCheckOps(std::vector<OpDef>& defs);      // check.*
void registerKilnOps(std::vector<OpDef>& defs);       // kiln.* (compiler-internal: fusion, ...)
void registerSdyOps(std::vector<OpDef>& defs);        // sdy.* sharding annotations (sdy_ops.cpp)
void registerInterpreterOps(std::vector<OpDef>& defs);  // interpreter.print/probe (interpreter_ops.cpp)

}  // namespace kiln
