// Kernel emission for the cpu back end: turns one planned kernel (a fusion
// or a single op, see KernelPlan) into an LLVM function. Internal to
// kiln/backends/cpu; LLVM types are only forward-declared here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/codegen/dot_dims.h"
#include "kiln/codegen/kernel_form.h"
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace llvm {
class Module;
}

namespace kiln::cpu {

// The target-neutral kernel-shape analysis (kiln/codegen/kernel_form.h) and
// dot dimension numbers, as the cpu back end names them.
using codegen::ColumnFoldForm;
using codegen::DotDims;
using codegen::dotDims;
using codegen::DotForm;
using codegen::dotMultiplyAdds;
using codegen::ElementsForm;
using codegen::freeDims;
using codegen::isElementwiseOp;
using codegen::isIndexMapping;
using codegen::kDotTileRows;
using codegen::KernelForm;
using codegen::kernelFormOf;
using codegen::kernelIterations;
using codegen::KernelPlan;
using codegen::PadRowsForm;
using codegen::PureTranspose;
using codegen::RowsForm;
using codegen::SlabsForm;

// The ABI of every emitted kernel: `inputs` holds one pointer per kernel
// input and `outputs` one per output, in kiln's dense row-major layout; the
// kernel computes outer iterations [begin, end) of its loop nest (see
// kernelIterations), so disjoint ranges may run on different threads.
using KernelFn = void (*)(const uint8_t* const* inputs, uint8_t* const* outputs, int64_t begin,
                          int64_t end);

// The function attribute of a kernel copy whose aligned vector stores are
// made non-temporal after optimization (makeStreamingStoresNonTemporal in
// jit.cpp), and the output alignment that copy assumes.
inline constexpr const char* kStreamingStoresAttr = "kiln-streaming-stores";
inline constexpr int64_t kStreamingAlignment = 64;

// Emits `plan`, whose form is `form` (kernelFormOf(plan)), as function
// `name` of `m`, with the KernelFn ABI.
Status emitKernel(const KernelPlan& plan, const KernelForm& form, const std::string& name, llvm::Module& m);

// The compile error for an op (or a form of it) the back end cannot compile.
Status unsupported(const Operation& op, std::string_view what = {});

}  // namespace kiln::cpu
