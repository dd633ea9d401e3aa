// Kernel emission for the cpu back end: turns one planned kernel (a fusion
// or a single op, see KernelPlan) into an LLVM function. Internal to
// kiln/backends/cpu; LLVM types are only forward-declared here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace llvm {
class Module;
}

namespace kiln::cpu {

// The ABI of every emitted kernel: `inputs` holds one pointer per kernel
// input and `outputs` one per output, in kiln's dense row-major layout; the
// kernel computes outer iterations [begin, end) of its loop nest (see
// kernelIterations), so disjoint ranges may run on different threads.
using KernelFn = void (*)(const uint8_t* const* inputs, uint8_t* const* outputs, int64_t begin,
                          int64_t end);

// What one kernel computes: each of `roots` per element, from `params`
// (values inside the kernel) bound to the top-level values `inputs`; root i
// is stored to top-level value `outputs[i]`.
struct KernelPlan {
  std::vector<const Value*> params;
  std::vector<const Value*> roots;
  std::vector<const Value*> inputs;
  std::vector<const Value*> outputs;
  size_t step = 0;  // the executable's step that launches it
  // Write the outputs around the cache (non-temporal stores, where they are
  // aligned): the planner's choice for kernels that move more bytes than the
  // host's last-level cache holds, whose first output lines would be evicted
  // before anything read them. Saves the read of each output line that a
  // plain store makes (about a third of a streaming kernel's traffic).
  bool streamOutputs = false;
};

// The function attribute of a kernel copy whose aligned vector stores are
// made non-temporal after optimization (makeStreamingStoresNonTemporal in
// jit.cpp), and the output alignment that copy assumes.
inline constexpr const char* kStreamingStoresAttr = "kiln-streaming-stores";
inline constexpr int64_t kStreamingAlignment = 64;

// Whether `op`, standing alone at the top level of a function, is one the
// emitter compiles as a kernel of its own (elementwise and data-movement
// ops, reduce): exactly those emitKernel accepts, element types, attributes
// and reduce bodies included (it tries). Fusions are planned by the executable.
bool isEmittedOp(const Operation& op);

// The number of outer iterations of `plan`'s kernel: what [begin, end)
// ranges over.
int64_t kernelIterations(const KernelPlan& plan);

// The loop nest emitKernel builds for `plan`: one iteration per output
// element; one per row, each reduce computed once per row (softmax,
// layernorm); or, for a reduce of the leading dims, passes folding each
// input row into the output elements (column sums); or, for a
// concatenation, one loop per operand's run of the output (slabs); for an
// edge pad, per output row the padding and one input row (pad rows); or,
// for a dot_general oneDNN has no matmul for (integers, f64), one per row
// of its result, each row accumulated over the contracting dim (dot).
enum class KernelForm { Elements, Rows, ColumnFold, Slabs, PadRows, Dot };
KernelForm kernelForm(const KernelPlan& plan);

// The multiply-adds of a KernelForm::Dot kernel (0 for other forms).
int64_t dotMultiplyAdds(const KernelPlan& plan);

// Emits `plan` as function `name` of `m`, with the KernelFn ABI.
Status emitKernel(const KernelPlan& plan, const std::string& name, llvm::Module& m);

// The compile error for an op (or a form of it) the back end cannot compile.
Status unsupported(const Operation& op, std::string_view what = {});

}  // namespace kiln::cpu
