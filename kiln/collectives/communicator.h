// Collective communication between the instances of one multi-instance run
// (replicas x partitions, or devices): the interface the cpu back end's
// collective routines call, implemented in one process over shared memory
// (shared_memory.h) and across processes over Gloo.
//
// Buffers are raw bytes in kiln's storage layout (the element type's
// storageBytes each, row-major); the caller lays out blocks so that every
// operation moves whole contiguous blocks. LLVM-free and interpreter-free.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

#include "kiln/ir/types.h"
#include "kiln/support/diagnostic.h"

namespace kiln::collectives {

// The combining functions all_reduce and reduce_scatter run natively: a
// reduction body that is one of these ops on its two arguments.
enum class Reduction { Sum, Product, Min, Max, And, Or, Xor };
std::string_view reductionName(Reduction op);  // "sum", ...

// One member's handle on the instances of a run, numbered 0..size()-1 (its
// global ranks: replica * numPartitions + partition for a module's grid).
//
// A `group` is a list of distinct global ranks in group order, holding the
// caller's rank. Every member of a group calls the same operations on that
// group in the same order with the same sizes; groups that share no member
// run concurrently. A member that stops (fails, or finishes its program)
// without reaching a collective makes the others' calls fail with an error,
// as does a peer that does not arrive within the implementation's timeout:
// a call never hangs. allReduce and broadcast may run in place (`in` ==
// `out`); the other operations take buffers that do not overlap.
class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;

  // out[i] = in_0[i] op in_1[i] op ... in group order (member 0's value
  // first, folded left), so results are bitwise reproducible. `type` is an
  // element type kind that reducible(type, op) accepts; `count` elements.
  virtual Status allReduce(std::span<const int> group, TypeKind type, Reduction op, const void* in,
                           void* out, int64_t count) = 0;
  // Reduces like allReduce over `in` of group.size() * countPerMember
  // elements; `out` gets block `position` (the caller's position in the
  // group) of the result: countPerMember elements.
  virtual Status reduceScatter(std::span<const int> group, TypeKind type, Reduction op, const void* in,
                               void* out, int64_t countPerMember) = 0;
  // out = every member's `in` (bytesPerMember each), concatenated in group order.
  virtual Status allGather(std::span<const int> group, const void* in, void* out, int64_t bytesPerMember) = 0;
  // `in` and `out` are group.size() blocks of bytesPerBlock: block j of the
  // caller's `out` is block `position` of member j's `in`.
  virtual Status allToAll(std::span<const int> group, const void* in, void* out, int64_t bytesPerBlock) = 0;
  // Each (source, target) pair of global ranks: target's `out` gets source's
  // `in`; a caller that no pair targets gets zero bytes. Every rank named in
  // `pairs` calls it with the same pairs (each rank is at most one pair's
  // source and one pair's target); a rank named in none may call it too.
  virtual Status collectivePermute(std::span<const std::pair<int, int>> pairs, const void* in, void* out,
                                   int64_t bytes) = 0;
  // Every member's `out` gets the `bytes` of `in` of the member at
  // rootIndexInGroup (other members' `in` is not read).
  virtual Status broadcast(std::span<const int> group, int rootIndexInGroup, const void* in, void* out,
                           int64_t bytes) = 0;

  // Point to point, for send and recv, which (unlike the collectives above)
  // one rank calls without the other. sendTo copies the `bytes` of `in` and
  // returns at once: the message waits for rank `target`'s recvFrom of this
  // rank on `channel`. recvFrom waits for the next such message (messages
  // between two ranks on one channel arrive in the order sent) and writes its
  // `bytes` to `out`; the sizes must agree. finishSends waits until every
  // message this rank sent has been received (a rank calls it before it
  // stops, so that its messages outlive it), failing after the timeout. A
  // communicator without them (the in-process one: send and recv there go
  // through the interpreter's rendezvous) says so.
  virtual Status sendTo(int target, int64_t channel, const void* in, int64_t bytes);
  virtual Status recvFrom(int source, int64_t channel, void* out, int64_t bytes);
  virtual Status finishSends() { return Status::ok(); }
};

// --- Elementwise combining, shared by the implementations -------------------

// Whether reduceInto (and so allReduce/reduceScatter) takes `op` on elements
// of `type`: bool (i1, And/Or/Xor), signed and unsigned integers of 8..64
// bits (all; Sum and Product wrap), bf16, f16, f32, f64 (Sum, Product, Min,
// Max). Floats combine like the interpreter's kernels: narrow floats in f32,
// rounded to nearest even after each step; Min/Max propagate NaN and order
// -0 below +0.
bool reducible(TypeKind type, Reduction op);

// acc[i] = acc[i] op in[i] for `count` elements of `type`.
void reduceInto(TypeKind type, Reduction op, void* acc, const void* in, int64_t count);

// The bytes one element of `type` takes in a buffer (i1: one byte).
int64_t elementBytes(TypeKind type);

// A call whose members write this much in all writes its outputs with
// streaming stores (streamCopy): the outputs would not stay in the caches
// anyway, and reading each line before overwriting it (what a plain store
// does) adds half again to an all_reduce's traffic (64 MB between two
// members in one process: 24-28 ms against 27-38; four processes of 4 MiB
// each: the writes to the outputs were three fifths of the copying).
inline constexpr int64_t kStreamingBytes = 16 << 20;

// memcpy, with streaming stores where the destination allows them; an
// _mm_sfence() must follow before another thread or process reads `to`.
void streamCopy(void* to, const void* from, int64_t bytes);

}  // namespace kiln::collectives
