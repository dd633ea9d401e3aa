// Every threshold the fusion pass uses, in one place. Each one guards against
// a fusion that would make the program slower or a kernel unmanageable; the
// comment says what goes wrong without it. docs/fusion.md explains the rules
// that use them.
#pragma once

#include <cstdint>
#include <string_view>

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

// Row fusion runs, for each row (the kept dims of a reduction), the row's
// reductions and then the row's elementwise outputs; each pass re-reads the
// row. That is only cheaper than materializing a full-size intermediate if
// the row stays in the L1 data cache between passes (48 KiB per core on the
// project's Sapphire Rapids machine; leave room for the other operands).
constexpr int64_t kMaxRowBytes = 32 * 1024;

}  // namespace kiln::fusion_policy
