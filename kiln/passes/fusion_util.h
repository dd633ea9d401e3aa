// Building blocks of the fusion pass: what kind of op something is for
// fusion purposes, and the one rewrite every fusion decision uses (outlining
// a set of ops into a kiln.fusion).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kiln/ir/ir.h"

namespace kiln::fusion {

// Elementwise ops (result[i] = f(operands[i]...)): the registry's kElementwise.
bool isElementwise(const Operation& op);
// Cheap reshuffles of data an elemental emitter computes by index arithmetic
// (broadcast_in_dim, reshape, transpose, slice, concatenate, pad, iota, reverse).
bool isDataMovement(const Operation& op);
// dot_general / dot / convolution: library calls (oneDNN) with epilogues.
bool isLibraryCall(const Operation& op);
// A stablehlo.reduce of one input whose body is one elementwise op on its two
// arguments (add, max, ...): what an emitter turns into an accumulator loop.
bool isSimpleReduce(const Operation& op);
// A scalar or splat constant: copied into every fusion that reads it.
bool isPulledConstant(const Operation& op);
// Per-element cost in the units of fusion_policy.h.
int64_t opCost(const Operation& op);
// True for a tensor of static shape (fusion only handles those).
bool isStaticTensor(Type t);

bool isFusion(const Operation& op);
// The ops a fusion candidate computes: a kiln.fusion's body ops (without the
// kiln.yield), or the op itself.
std::vector<Operation*> computedOps(const Operation& op);
// The values inside `op` that stand for operand `i`: a fusion's body
// argument, or the operand itself for a plain op.
Value* innerOperand(const Operation& op, unsigned i);
// The values a candidate yields (a fusion's kiln.yield operands, or the op's results).
std::vector<Value*> innerResults(const Operation& op);
// Ops inside `op` that read `v` (an operand of `op`).
std::vector<Operation*> innerUsers(const Operation& op, const Value* v);
// True if every use of every result of `producer` is by `consumer`.
bool onlyUsedBy(const Operation& producer, const Operation& consumer);

// The kind a fusion body gets: "multi_output" with several results, else
// "output" when it calls a library op, "input" when it reduces, else "loop".
std::string fusionKind(const Block& body);

// Replaces `ops` (distinct ops of one block, listed in block order, kiln.fusion
// ops among them inlined) by one kiln.fusion inserted where the last one
// stood. Its operands are the values the ops read from outside the set, its
// results the values they define that are used outside the set. The caller
// guarantees that those outside uses come after the last op. A library op is
// moved to the front of the body, where back ends look for it.
Operation* outline(std::span<Operation* const> ops);

// Copies `producer` to just before `consumer` and makes `consumer` read the
// copy, so the copy can be outlined with `consumer` while the original keeps
// serving its other users (recomputation instead of a shared buffer).
Operation* copyForConsumer(Operation& producer, Operation& consumer);

}  // namespace kiln::fusion
