// What the oneDNN call sites of the cpu back end share: one engine for the
// process and kiln's element types as oneDNN's. Internal to
// kiln/backends/cpu; includes dnnl.hpp, so only onednn_*.cpp include it.
#pragma once

#include <optional>
#include <string_view>

#include <oneapi/dnnl/dnnl.hpp>

#include "kiln/ir/ir.h"

namespace kiln::cpu {

dnnl::engine& cpuEngine();

// f32 and bf16, the types kiln hands to oneDNN; anything else has no mapping.
std::optional<dnnl::memory::data_type> dnnlType(Type element);

// A value's scalar when it is a splat constant (f32, bf16 or f16: exact in
// f32) or a broadcast of one: an epilogue operand that is a linear post-op.
std::optional<float> splatValue(const Value* v);

// The eltwise post-op computing unary op `opName` (tanh, logistic,
// exponential, abs, sqrt) on a primitive's result, if there is one.
std::optional<dnnl::algorithm> eltwisePostOp(std::string_view opName);

}  // namespace kiln::cpu
