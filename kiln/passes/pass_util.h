// Small queries and rewrites shared by several passes.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kiln/ir/ir.h"

namespace kiln {

class Pass;

// True if erasing `op` when its results are unused cannot change behaviour:
// a registered op marked pure, with every nested op pure as well.
bool isRemovableIfUnused(const Operation& op);

// Erases the side-effect-free ops in `block` (and nested blocks) whose
// results are unused, back to front so dead chains go in one sweep.
bool eraseDeadOps(Block& block);

// The splat value of a `stablehlo.constant` defining `v`, as raw element
// bytes; nullopt when `v` is not a splat constant.
std::optional<std::vector<uint8_t>> splatConstantBytes(const Value* v);
// True if `v` is a splat constant equal to `value` in its element type
// (integers: exactly; floats: bit pattern of `value` rounded to the type).
bool isSplatConstantOf(const Value* v, double value);
// The value of `v` when a `stablehlo.constant` of one integer element
// defines it (a loop's start, limit or step), else nullopt.
std::optional<int64_t> scalarIntConstant(const Value* v);

// An array attribute of integers (`[1, 2]`), as dimension-number fields hold them.
Attribute intArrayAttribute(std::span<const int64_t> values);
// A dense attribute of `bits`-wide signed integers (a multiple of 8) of the
// given shape: replica groups, partition offsets.
Attribute denseInts(std::vector<int64_t> shape, const std::vector<int64_t>& values, unsigned bits);

// Creates an op from `state` (inferring result types if none are given) and
// inserts it before `pos`. The state must be valid; rewrites only build ops
// whose operands they have already checked.
Operation* insertBefore(Operation* pos, OperationState&& state);

// Clones the ops of `body` (a single-block region) before `anchor`, with its
// block arguments read as `arguments`; returns what its terminator yields,
// as the clones' values. How func.call and manual computations are inlined.
std::vector<Value*> cloneBodyBefore(Operation* anchor, Block& body, std::span<Value* const> arguments);
// Clones the ops of `from` to the end of `to`, reading `from`'s values as
// `mapping` says (its arguments, values it reads from outside; extended with
// the clones' results as it goes); its terminator becomes a `terminator` op
// of the same (mapped) operands. How an outlined body goes into a function
// and a function's body back into a region.
void cloneBlockInto(Block& from, Block& to, std::vector<std::pair<Value*, Value*>>& mapping,
                    const std::string& terminator);
// A new func.func `name`, not yet in any module, computing what `body` (a
// single-block region) does: its arguments are `body`'s, then one per
// value of `captured` (values `body` reads from outside it); it returns
// what `body`'s terminator yields. How a region is outlined.
std::unique_ptr<Operation> outlineFunction(Block& body, std::span<Value* const> captured, const std::string& name,
                                           Location loc);

// Factories of every pass (registered in registry.cpp).
std::unique_ptr<Pass> createLegalizePass();  // legalize.cpp
std::unique_ptr<Pass> createRefineShapesPass();  // refine_shapes.cpp
std::unique_ptr<Pass> createInlinePass();
std::unique_ptr<Pass> createDropShardingPass();  // drop_sharding.cpp
std::unique_ptr<Pass> createSinkConstantsPass();  // sink_constants.cpp
std::unique_ptr<Pass> createInlineManualComputationPass();  // inline_manual_computation.cpp
std::unique_ptr<Pass> createShardingPropagationPass();  // sharding_propagation.cpp
// Where sharding_propagation says, one line at a time, why each dimension of
// each value got its sharding (kiln-opt --explain-sharding); none by default.
void setShardingExplainSink(std::function<void(const std::string&)> sink);
std::unique_ptr<Pass> createSpmdPartitionPass();  // spmd_partition.cpp
std::unique_ptr<Pass> createCombineAllReducePass();  // combine_all_reduce.cpp
std::unique_ptr<Pass> createCanonicalizePass();
std::unique_ptr<Pass> createConstantFoldPass();
std::unique_ptr<Pass> createWhileSimplifyPass();
std::unique_ptr<Pass> createExpandPass();
std::unique_ptr<Pass> createCsePass();
std::unique_ptr<Pass> createDcePass();
std::unique_ptr<Pass> createFusionPass();  // fusion.cpp: with cpuFusionPolicy(); the others in fusion.h
std::unique_ptr<Pass> createSchedulePass();

}  // namespace kiln
