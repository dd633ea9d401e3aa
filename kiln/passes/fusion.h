// The fusion pass: groups ops into kiln.fusion ops, each run as one kernel.
// See docs/fusion.md for the rules and kiln/passes/fusion_policy.h for the
// thresholds and the policy a back end supplies.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "kiln/ir/ir.h"
#include "kiln/passes/fusion_policy.h"

namespace kiln {

class Pass;

// The work a fusion pass did, counted so that tests can bound it by the
// size of the program (tests/unit/fusion_test.cpp, `*GrowsLinearly*`)
// rather than time it.
struct FusionStats {
  int64_t opsWritten = 0;  // ops cloned or moved into fusion bodies
  int64_t opsCloned = 0;   // of those, the ops cloned (a merge of two kernels moves their bodies)
  int64_t opsVisited = 0;  // ops the phases looked at: consumers, candidates, positions indexed
  int64_t decisions = 0;   // producer/consumer pairs decided
};

struct FusionOptions {
  // Receives one line per producer/consumer pair considered: whether it was
  // fused and why (`kiln-opt --explain-fusion`). Null: no explanations.
  std::function<void(const std::string&)> explain;
  // When set, the pass adds its work to it.
  FusionStats* stats = nullptr;
};

// A fusion pass deciding with `policy`, the back end's (fusion_policy.h).
std::unique_ptr<Pass> createFusionPass(FusionPolicy policy, FusionOptions options = {});

// The explanation sink used by fusion passes created through the pass
// registry (createFusionPass() without options), for tools whose pipelines
// are built from names. Pass null to turn explanations off.
void setFusionExplainSink(std::function<void(const std::string&)> sink);

// How many kernels a function body runs: each kiln.fusion is one, and so is
// every other top-level op except those that move no data (constants, the
// return, reshapes (a row-major reshape is a bitcast), tuples). Ops with
// regions (while, if, ...) count as one plus the kernels inside them.
int64_t countKernels(const Block& body);

}  // namespace kiln
