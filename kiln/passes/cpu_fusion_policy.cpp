// The cpu back end's fusion policy: what oneDNN runs as post-ops of a
// dot/convolution, and how large a row stays in the data caches. It lives
// with the passes until back ends declare their pipelines themselves; no
// generic pass names it.
#include <algorithm>

#include "kiln/passes/fusion_policy.h"
#include "kiln/passes/fusion_util.h"

namespace kiln {
namespace {

// oneDNN applies post-ops elementwise to the call's result (bias add, relu =
// max with 0, gelu, tanh, logistic, residual add, scaling), each reading its
// other operand from memory; broadcasts, reshapes and constants only say how
// that operand is read. Elementwise work computing such an operand (a relu
// mask in a backward pass) is no post-op: fused, it would make the fusion run
// op by op instead of as one library call.
bool isOneDnnPostOp(const Operation& op, bool readsCallResult, Type callResult) {
  if (readsCallResult && fusion::isElementwise(op) &&
      std::ranges::equal(op.result()->type().shape(), callResult.shape()))
    return true;
  return op.name() == "stablehlo.broadcast_in_dim" || op.name() == "stablehlo.reshape" ||
         op.name() == "stablehlo.constant";
}

}  // namespace

const FusionPolicy& cpuFusionPolicy() {
  static const FusionPolicy policy{
      // A row re-read from L2 (1 MiB per core on the AMD host, 2 MiB on
      // Sapphire Rapids) still costs less than a full-size intermediate in
      // memory and exp computed twice: a vocabulary's 32000 f32 logits (125
      // KiB) with their kept exp row (ElementalEmitter::kKeptRowMax) fit.
      // The loss and gradient f32[32,32000]: 0.59 -> 0.48 ms at one thread.
      .maxRowBytes = 256 * 1024,
      .runsInLibraryCall = isOneDnnPostOp,
  };
  return policy;
}

}  // namespace kiln
