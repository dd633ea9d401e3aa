// What the oneDNN call sites of the cpu back end share: one engine for the
// process and kiln's element types as oneDNN's. Internal to
// kiln/backends/cpu; includes dnnl.hpp, so only onednn_*.cpp include it.
#pragma once

#include <optional>
#include <string_view>

#include <oneapi/dnnl/dnnl.hpp>

#include "kiln/interp/tensor.h"
#include "kiln/ir/ir.h"

namespace kiln::cpu {

dnnl::engine& cpuEngine();

// A run's own scratchpad for a primitive made with scratchpad_mode::user
// (runs may be concurrent, so none is shared), in a block from the
// allocator's recycled ones: a fresh allocation page-faults on every call,
// 30 us of a 190 us f32 256^3 matmul. `block` keeps the memory alive.
dnnl::memory scratchpadFor(const dnnl::memory::desc& md, interp::Tensor& block);

// f32 and bf16, the types kiln hands to oneDNN; anything else has no mapping.
std::optional<dnnl::memory::data_type> dnnlType(Type element);

// A value's scalar when it is a splat constant (f32, bf16 or f16: exact in
// f32) or a broadcast of one: an epilogue operand that is a linear post-op.
std::optional<float> splatValue(const Value* v);

// The eltwise post-op computing unary op `opName` (tanh, logistic,
// exponential, abs, sqrt) on a primitive's result, if there is one.
std::optional<dnnl::algorithm> eltwisePostOp(std::string_view opName);

}  // namespace kiln::cpu
