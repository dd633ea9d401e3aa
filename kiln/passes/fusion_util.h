// Building blocks of the fusion pass: what kind of op something is for
// fusion purposes, and the one rewrite every fusion decision uses (outlining
// a set of ops into a kiln.fusion).
#pragma once

#include <cstdint>
#include <list>
#include <span>
#include <string>
#include <unordered_map>
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
// Whether result `result` of loop kernel `fusion` (a kiln.fusion of kind
// "loop", or "multi_output" with only elementwise ops, data movement and
// constants in its body) may be written over the memory of operand `operand`: the
// two have the same shape and the body reads the operand only through
// elementwise ops into what it yields, so element e of the operand is read
// only while element e of the results is computed. The back end computes
// every result's element e before storing any (cpu emitter's emitElement).
bool updatesInPlace(const Operation& fusion, unsigned operand, unsigned result);
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
// moved to the front of the body, where back ends look for it. The bodies of
// kiln.fusion ops among `ops` are moved into the new body, not copied (those
// ops are erased, like the rest of `ops`): merging two kernels writes their
// ops into one body without cloning them. The other ops are cloned; their
// number is added to *opsCloned when it is given.
Operation* outline(std::span<Operation* const> ops, int64_t* opsCloned = nullptr);

// Grows one kiln.fusion in place, a producer at a time. Each absorb() does
// what outline({producer, fusion}) does, but moves one op instead of copying
// the whole body: k producers cost O(k) ops written, not O(k^2) (a chain of
// 50,000 elementwise ops spent most of a minute copying fusion bodies).
// The fusion's operands meanwhile are in no particular order; operands()
// lists them in the order those pairwise outlines would have given (the
// latest producer's operands first, each value once), which finish() gives
// the fusion.
class FusionGrower {
 public:
  explicit FusionGrower(Operation& fusion);
  // `producer`: an op before the fusion in its block, not a kiln.fusion,
  // every use of whose results is by the fusion. It is erased.
  void absorb(Operation& producer);
  // copyForConsumer(producer, fusion), keeping the copy's results where the
  // producer's were among the operands.
  Operation* copyProducer(Operation& producer);
  // The fusion's operands in outline order.
  std::vector<Value*> operands() const { return {order_.begin(), order_.end()}; }
  // The grown fusion (a new op when its operands had to be reordered).
  Operation* finish();
  Operation& fusion() const { return *fusion_; }
  // Ops cloned or moved into a fusion body so far.
  int64_t opsWritten() const { return opsWritten_; }
  // Of those, the ops cloned (absorb() clones each producer).
  int64_t opsCloned() const { return opsCloned_; }

 private:
  Value* argumentFor(Value* outer);
  void removeOperand(unsigned i);

  Operation* fusion_;
  std::list<Value*> order_;
  std::unordered_map<Value*, std::list<Value*>::iterator> where_;
  int64_t opsWritten_ = 0;
  int64_t opsCloned_ = 0;
};

// Copies `producer` to just before `consumer` and makes `consumer` read the
// copy, so the copy can be outlined with `consumer` while the original keeps
// serving its other users (recomputation instead of a shared buffer).
Operation* copyForConsumer(Operation& producer, Operation& consumer);

}  // namespace kiln::fusion
