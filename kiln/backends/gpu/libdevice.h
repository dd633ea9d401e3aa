// libdevice, NVIDIA's device math library (a bitcode file in the CUDA
// toolkit: nvvm/libdevice/libdevice.10.bc), linked into kernels that call
// it. kiln builds and runs without the toolkit: the file is looked up when a
// kernel needs it, and a kernel calling libdevice where none is found is a
// located compile error. LLVM types are only forward-declared. Internal to
// kiln/backends/gpu.
#pragma once

#include <string>
#include <string_view>

#include "kiln/support/diagnostic.h"

namespace llvm {
class Module;
}

namespace kiln::gpu {

// libdevice's functions are named "__nv_" + the C math library's name
// ("__nv_sin", "__nv_atan2f", "__nv_fmod").
inline constexpr std::string_view kLibdevicePrefix = "__nv_";

// The libdevice file: $KILN_LIBDEVICE when set (and then only it), else
// $CUDA_HOME/nvvm/libdevice/libdevice.10.bc, else the same under
// /usr/local/cuda; an error saying where it looked when none is readable.
Expected<std::string> findLibdevice();

// Links into `m` the libdevice functions its code calls (nothing when it
// calls none) and makes them internal, so that O3 inlines them and drops
// the rest. libdevice asks `__nvvm_reflect` for the architecture and
// flush-to-zero; NVPTX's NVVMReflect pass answers (no flush-to-zero).
Status linkLibdevice(llvm::Module& m);

}  // namespace kiln::gpu
