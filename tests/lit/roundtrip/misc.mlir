// batch_norm_*, rng, rng_bit_generator, bitcast_convert and convert.
// Each chunk is given in the pretty form; the CHECK and GENERIC lines are what
// MLIR (jaxlib) prints for it. The generic output must parse back to the same
// pretty form, and printing is a fixed point.
// RUN: kiln-opt --split-input-file %s | FileCheck %s
// RUN: kiln-opt --split-input-file %s | kiln-opt --split-input-file | FileCheck %s
// RUN: kiln-opt --split-input-file --generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: kiln-opt --split-input-file --generic %s | kiln-opt --split-input-file | FileCheck %s

func.func @misc(%arg0: tensor<2x3x4x5xf32>, %arg1: tensor<5xf32>, %arg2: tensor<f32>, %arg3: tensor<2xi64>, %arg4: tensor<2xui64>) {
  %output, %batch_mean, %batch_var = "stablehlo.batch_norm_training"(%arg0, %arg1, %arg1) <{epsilon = 1.000000e-03 : f32, feature_index = 3 : i64}> : (tensor<2x3x4x5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<2x3x4x5xf32>, tensor<5xf32>, tensor<5xf32>)
  %0 = "stablehlo.batch_norm_inference"(%arg0, %arg1, %arg1, %arg1, %arg1) <{epsilon = 1.000000e-03 : f32, feature_index = 3 : i64}> : (tensor<2x3x4x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
  %grad_operand, %grad_scale, %grad_offset = "stablehlo.batch_norm_grad"(%arg0, %arg1, %arg1, %arg1, %arg0) <{epsilon = 1.000000e-03 : f32, feature_index = 3 : i64}> : (tensor<2x3x4x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<2x3x4x5xf32>) -> (tensor<2x3x4x5xf32>, tensor<5xf32>, tensor<5xf32>)
  %1 = stablehlo.rng %arg2, %arg2, %arg3, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x4xf32>
  %output_state, %output_0 = stablehlo.rng_bit_generator %arg4, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  %2 = stablehlo.bitcast_convert %arg1 : (tensor<5xf32>) -> tensor<5xi32>
  %3 = stablehlo.convert %arg1 : (tensor<5xf32>) -> tensor<5xbf16>
  return
}
// CHECK: module {
// CHECK-LABEL: func.func @misc(%arg0: tensor<2x3x4x5xf32>, %arg1: tensor<5xf32>, %arg2: tensor<f32>, %arg3: tensor<2xi64>, %arg4: tensor<2xui64>) {
// CHECK-NEXT: %output, %batch_mean, %batch_var = "stablehlo.batch_norm_training"(%arg0, %arg1, %arg1) <{epsilon = 1.000000e-03 : f32, feature_index = 3 : i64}> : (tensor<2x3x4x5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<2x3x4x5xf32>, tensor<5xf32>, tensor<5xf32>)
// CHECK-NEXT: %0 = "stablehlo.batch_norm_inference"(%arg0, %arg1, %arg1, %arg1, %arg1) <{epsilon = 1.000000e-03 : f32, feature_index = 3 : i64}> : (tensor<2x3x4x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
// CHECK-NEXT: %grad_operand, %grad_scale, %grad_offset = "stablehlo.batch_norm_grad"(%arg0, %arg1, %arg1, %arg1, %arg0) <{epsilon = 1.000000e-03 : f32, feature_index = 3 : i64}> : (tensor<2x3x4x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<2x3x4x5xf32>) -> (tensor<2x3x4x5xf32>, tensor<5xf32>, tensor<5xf32>)
// CHECK-NEXT: %1 = stablehlo.rng %arg2, %arg2, %arg3, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x4xf32>
// CHECK-NEXT: %output_state, %output_0 = stablehlo.rng_bit_generator %arg4, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
// CHECK-NEXT: %2 = stablehlo.bitcast_convert %arg1 : (tensor<5xf32>) -> tensor<5xi32>
// CHECK-NEXT: %3 = stablehlo.convert %arg1 : (tensor<5xf32>) -> tensor<5xbf16>
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
// GENERIC: "builtin.module"() ({
// GENERIC-NEXT: "func.func"() <{function_type = (tensor<2x3x4x5xf32>, tensor<5xf32>, tensor<f32>, tensor<2xi64>, tensor<2xui64>) -> (), sym_name = "misc"}> ({
// GENERIC-NEXT: ^bb0(%arg0: tensor<2x3x4x5xf32>, %arg1: tensor<5xf32>, %arg2: tensor<f32>, %arg3: tensor<2xi64>, %arg4: tensor<2xui64>):
// GENERIC-NEXT: %0:3 = "stablehlo.batch_norm_training"(%arg0, %arg1, %arg1) <{epsilon = 1.000000e-03 : f32, feature_index = 3 : i64}> : (tensor<2x3x4x5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<2x3x4x5xf32>, tensor<5xf32>, tensor<5xf32>)
// GENERIC-NEXT: %1 = "stablehlo.batch_norm_inference"(%arg0, %arg1, %arg1, %arg1, %arg1) <{epsilon = 1.000000e-03 : f32, feature_index = 3 : i64}> : (tensor<2x3x4x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
// GENERIC-NEXT: %2:3 = "stablehlo.batch_norm_grad"(%arg0, %arg1, %arg1, %arg1, %arg0) <{epsilon = 1.000000e-03 : f32, feature_index = 3 : i64}> : (tensor<2x3x4x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<2x3x4x5xf32>) -> (tensor<2x3x4x5xf32>, tensor<5xf32>, tensor<5xf32>)
// GENERIC-NEXT: %3 = "stablehlo.rng"(%arg2, %arg2, %arg3) <{rng_distribution = #stablehlo<rng_distribution UNIFORM>}> : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x4xf32>
// GENERIC-NEXT: %4:2 = "stablehlo.rng_bit_generator"(%arg4) <{rng_algorithm = #stablehlo<rng_algorithm DEFAULT>}> : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
// GENERIC-NEXT: %5 = "stablehlo.bitcast_convert"(%arg1) : (tensor<5xf32>) -> tensor<5xi32>
// GENERIC-NEXT: %6 = "stablehlo.convert"(%arg1) : (tensor<5xf32>) -> tensor<5xbf16>
// GENERIC-NEXT: "func.return"() : () -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC-NEXT: }) : () -> ()
