// The list of passes kiln-opt --passes= knows, and the named pipelines.
#include "kiln/passes/pass.h"
#include "kiln/passes/import_gspmd_shardings.h"
#include "kiln/passes/pass_util.h"

namespace kiln {

// inline.cpp, expand_top_k.cpp and lapack_to_cusolver.cpp (declared here,
// not in the widely included pass_util.h: only the registry names them).
std::unique_ptr<Pass> createInlineCompositesPass();
std::unique_ptr<Pass> createExpandTopKPass();
std::unique_ptr<Pass> createLapackToCusolverPass();

const std::vector<PassInfo>& allPasses() {
  static const std::vector<PassInfo> passes = {
      {"legalize", "rewrite deprecated ops (dot, einsum, broadcast, create_token, cross-replica-sum, torch_index_select, trace) and chlo.tan into the spec ops that replace them",
       createLegalizePass},
      {"refine_shapes", "make every type of each public function with static parameters static: inline calls, fold shape arithmetic, turn dynamism ops into their static twins, check JAX's shape assertions",
       createRefineShapesPass},
      {"import_gspmd_shardings",
       "turn GSPMD's mhlo.sharding strings and @Sharding/@SPMDFullToShardShape/@SPMDShardToFullShape custom calls into sdy meshes, shardings, constraints and manual computations",
       createImportGspmdShardingsPass},
      {"inline", "inline func.call and drop private functions nobody calls", createInlinePass},
      {"inline_composites", "replace each stablehlo.composite by its decomposition's body", createInlineCompositesPass},
      {"expand_top_k", "rewrite chlo.top_k as a stable sort (largest first) of the operand and an iota, then slices of the first k", createExpandTopKPass},
      {"lapack_to_cusolver", "rewrite LAPACK's syevd/heevd and gesdd calls as cuSOLVER's column-major calls between transposes (the cuda back end's)", createLapackToCusolverPass},
      {"inline_manual_computation",
       "make a function that is one fully manual sdy.manual_computation (shard_map, pmap) the per-device program",
       createInlineManualComputationPass},
      {"sharding_propagation",
       "give every tensor of a public function a sharding over the module's mesh, spreading user shardings through each op's sharding rule (kiln-opt --explain-sharding says why)",
       createShardingPropagationPass},
      {"spmd_partition",
       "make each public function the program every device runs on its blocks of the sharded values, with the collectives the shardings need",
       createSpmdPartitionPass},
      {"combine_all_reduce",
       "merge independent all_reduces that reduce alike into one variadic all_reduce (one message across processes instead of one per gradient)",
       createCombineAllReducePass},
      {"drop_sharding", "remove sharding annotations that are identities on one device (sdy.sharding_constraint, sdy.reshard, sdy.sharding_group, sdy.propagation_barrier, @Sharding)",
       createDropShardingPass},
      {"canonicalize", "local algebraic simplifications (x+0, x*1, transpose of transpose, ...)",
       createCanonicalizePass},
      {"constant_fold", "evaluate ops of constant operands with the interpreter (size-capped)", createConstantFoldPass},
      {"while_simplify", "hoist loop invariants, drop dead loop-carried values, remove 0- and 1-trip loops",
       createWhileSimplifyPass},
      {"expand", "lower batch_norm_*, float rng, convolution window reversal and batch groups, complex dots and convolutions (to real ones), and integer and f64 convolutions (to dots) to ops back ends have",
       createExpandPass},
      {"sink_constants", "copy the outer constants that bodies of reduce, sort, scatter, map, ... read into those bodies (back ends run such a body on the op's operands alone)",
       createSinkConstantsPass},
      {"cse", "merge identical side-effect-free ops", createCsePass},
      {"dce", "erase side-effect-free ops whose results are unused", createDcePass},
      {"fusion", "group ops into kiln.fusion kernels (loop, input, output, multi-output), with the cpu back end's policy",
       createFusionPass},
      {"schedule", "reorder ops to keep peak live memory low (see docs/memory.md)", createSchedulePass},
  };
  return passes;
}

const PassInfo* lookupPass(std::string_view name) {
  for (const PassInfo& p : allPasses())
    if (p.name == name) return &p;
  return nullptr;
}

// The pipelines, each a plain list of pass names: reading this table tells
// what every back end runs.
namespace {
struct NamedPipeline {
  std::string_view name;
  std::string_view passes;
};
constexpr NamedPipeline kPipelines[] = {
    {"simplify", "inline,canonicalize,constant_fold,while_simplify,canonicalize,cse,dce"},
    // What every back end runs first, the interpreter included.
    {"prepare", "legalize"},
    // A program over a mesh of devices becomes the program each device runs
    // (docs/sharding.md); a back end's pipeline follows.
    {"spmd", "legalize,import_gspmd_shardings,inline,sharding_propagation,spmd_partition,combine_all_reduce"},
    {"cpu", "legalize,drop_sharding,inline,canonicalize,constant_fold,while_simplify,expand,canonicalize,cse,sink_constants,dce,fusion,cse,schedule"},
    // The cpu's passes and fusion policy for now (docs/gpu_backend.md).
    {"cuda", "legalize,drop_sharding,inline_composites,inline,expand_top_k,lapack_to_cusolver,canonicalize,constant_fold,while_simplify,expand,canonicalize,cse,sink_constants,dce,fusion,cse,schedule"},
};
}  // namespace

Expected<PassManager> namedPipeline(std::string_view name, PassManagerOptions options) {
  for (const NamedPipeline& p : kPipelines)
    if (p.name == name) return parsePassList(p.passes, std::move(options));
  std::string known;
  for (const NamedPipeline& p : kPipelines) known += (known.empty() ? "" : ", ") + std::string(p.name);
  return error("unknown pipeline '" + std::string(name) + "' (known pipelines: " + known + ")");
}

std::vector<std::string> pipelineNames() {
  std::vector<std::string> names;
  for (const NamedPipeline& p : kPipelines) names.emplace_back(p.name);
  return names;
}

}  // namespace kiln
