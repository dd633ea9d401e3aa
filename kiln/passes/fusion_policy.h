// Every threshold the fusion pass uses, in one place, and the policy a back
// end supplies. Each one guards against a fusion that would make the program
// slower or a kernel unmanageable; the comment says what goes wrong without
// it. docs/fusion.md explains the rules that use them.
#pragma once

#include <cstdint>
#include <functional>

#include "kiln/ir/ir.h"

namespace kiln::fusion_policy {

// Most ops one fusion body may hold (constants included). Bodies beyond this
// compile slowly and spill registers in the elemental emitter. The issue's
// memory check (a chain of 100 elementwise ops becomes one kernel) needs
// room for at least 100 ops plus their constants.
constexpr int64_t kMaxFusionOps = 256;

// Cost units of one op evaluated per element: an ordinary elementwise op or
// data movement costs kCheapOpCost; transcendental functions (exp, log, tanh,
// pow, ...) cost kTranscendentalOpCost, roughly their instruction count in a
// vectorized polynomial implementation relative to an add.
constexpr int64_t kCheapOpCost = 1;
constexpr int64_t kTranscendentalOpCost = 20;

// When a producer has users outside the fusion it is cloned (recomputed)
// instead of moved. The total cost of the ops one fusion recomputes this way
// is capped: past it, reading the materialized value is cheaper than
// recomputing it. 60 allows e.g. exp(x - max) (21) to be recomputed by both
// the sum and the divide of softmax, but not a chain of several
// transcendentals.
constexpr int64_t kMaxDuplicatedCost = 60;

// An op at least this expensive is never fused into a fusion whose iteration
// space is larger than the op's own result (e.g. rsqrt of a per-row variance
// feeding a broadcast): the emitter would evaluate it once per output element
// instead of once per element of its own result.
constexpr int64_t kExpensiveOpCost = kTranscendentalOpCost;

}  // namespace kiln::fusion_policy

namespace kiln {

// What fusion asks of the back end that runs the kernels: the facts of its
// caches and libraries that decide whether a fusion pays. The thresholds above
// hold for any back end with an elemental emitter; these do not. A back end
// passes its own to createFusionPass (fusion.h).
struct FusionPolicy {
  // Row fusion runs, for each row (the kept dims of a reduction), the row's
  // reductions and then the row's elementwise outputs; each pass re-reads the
  // row. That is only cheaper than materializing a full-size intermediate if
  // the row stays in the data cache between passes: the largest such row, in
  // bytes.
  int64_t maxRowBytes = 0;
  // Output fusion: whether the library call that computes a dot/convolution
  // whose result has type `callResult` can also run `op` of its epilogue, so
  // that the fusion stays one library call. `readsCallResult`: `op` reads the
  // call's result, directly or through other epilogue ops; otherwise it
  // computes or shapes another operand of such an op.
  std::function<bool(const Operation& op, bool readsCallResult, Type callResult)> runsInLibraryCall;
};

// The cpu back end's policy: oneDNN post-ops and rows that stay in L2
// (cpu_fusion_policy.cpp). Fusion passes
// built by name (the pass registry, the "cpu" pipeline) use it.
const FusionPolicy& cpuFusionPolicy();

}  // namespace kiln
