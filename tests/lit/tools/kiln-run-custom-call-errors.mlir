// A custom_call target kiln has no implementation for is a compile-time
// error naming the target and the op's location -- not a failure deferred
// to when a result is read -- and JAX's host callbacks say what they are.
// RUN: not kiln run %s --backend cpu --entry unknown --input-literal 'dense<1.0> : tensor<2xf32>' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: kiln-run-custom-call-errors.mlir:[[@LINE+4]]:{{[0-9]+}}: error: 'stablehlo.custom_call' op target @my_accelerator_kernel is not supported by kiln
// UNKNOWN-NOT: dense<
func.func @unknown(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %doubled = stablehlo.add %x, %x : tensor<2xf32>
  %0 = stablehlo.custom_call @my_accelerator_kernel(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %doubled, %0 : tensor<2xf32>, tensor<2xf32>
}

// jax.debug.print lowers to a side-effecting callback with no results.
// RUN: not kiln run %s --backend cpu --entry debug_print --input-literal 'dense<1.0> : tensor<2xf32>' 2>&1 | FileCheck %s --check-prefix=CALLBACK
// CALLBACK: error: 'stablehlo.custom_call' op target @xla_ffi_python_cpu_callback is a JAX host callback (jax.debug.print, jax.pure_callback or io_callback): kiln cannot call back into Python yet
func.func @debug_print(%x: tensor<2xf32>) -> tensor<2xf32> {
  stablehlo.custom_call @xla_ffi_python_cpu_callback(%x) {has_side_effect = true, mhlo.backend_config = {index = 0 : ui64}} : (tensor<2xf32>) -> ()
  %0 = stablehlo.multiply %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// A call reached through a callee is found too; an unreachable function
// with such a call does not stop this one.
// RUN: not kiln run %s --backend cpu --entry through_call --input-literal 'dense<1.0> : tensor<2xf32>' 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: error: 'stablehlo.custom_call' op target @my_accelerator_kernel is not supported
// RUN: kiln run %s --backend cpu --entry fine --input-literal 'dense<1.0> : tensor<2xf32>' | FileCheck %s --check-prefix=FINE
// FINE: dense<2.000000e+00> : tensor<2xf32>
func.func @through_call(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @helper(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func private @helper(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.custom_call @my_accelerator_kernel(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @fine(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
