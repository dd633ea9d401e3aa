// RUN: kiln-opt --passes=inline,canonicalize,fusion --split-input-file %s | FileCheck %s
// A cross-entropy's gradient with integer labels, as JAX writes it:
// softmax(z) / n plus the scatter-add of -1/n at each row's label
// (take_along_axis's gradient) into zeros. canonicalize makes the scatter
// a select on an iota (kiln/passes/canonicalize.cpp), which row fusion
// takes into the softmax's kernel: one kernel reading the logits and the
// labels, writing the gradient once; no scatter, no zero-filled buffer.

// CHECK-LABEL: func.func @cross_entropy_gradient
// CHECK-NOT: stablehlo.scatter
// CHECK: %[[G:.*]] = "kiln.fusion"(%arg0, %arg1) <{kind = "input"}>
// CHECK: stablehlo.reduce
// CHECK: stablehlo.exponential
// CHECK: stablehlo.reduce
// CHECK-DAG: stablehlo.iota dim = 1 : tensor<4x1000xi32>
// CHECK-DAG: stablehlo.compare EQ
// CHECK: stablehlo.select
// CHECK: "kiln.yield"
// CHECK-NOT: stablehlo.scatter
// CHECK: return %[[G]]
func.func @cross_entropy_gradient(%z: tensor<4x1000xf32>, %labels: tensor<4xi32>) -> tensor<4x1000xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %m = stablehlo.reduce(%z init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<4x1000xf32>, tensor<f32>) -> tensor<4xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<4xf32>) -> tensor<4x1000xf32>
  %d = stablehlo.subtract %z, %mb : tensor<4x1000xf32>
  %e = stablehlo.exponential %d : tensor<4x1000xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x1000xf32>, tensor<f32>) -> tensor<4xf32>
  %quarter = stablehlo.constant dense<2.500000e-01> : tensor<4xf32>
  %c = stablehlo.divide %quarter, %s : tensor<4xf32>
  %cb = stablehlo.broadcast_in_dim %c, dims = [0] : (tensor<4xf32>) -> tensor<4x1000xf32>
  %p = stablehlo.multiply %cb, %e : tensor<4x1000xf32>
  %zeros = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<4x1000xf32>
  %i = stablehlo.reshape %labels : (tensor<4xi32>) -> tensor<4x1x1xi32>
  %u = stablehlo.constant dense<-2.500000e-01> : tensor<4x1xf32>
  %onehot = "stablehlo.scatter"(%zeros, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) : (tensor<4x1000xf32>, tensor<4x1x1xi32>, tensor<4x1xf32>) -> tensor<4x1000xf32>
  %g = stablehlo.add %p, %onehot : tensor<4x1000xf32>
  return %g : tensor<4x1000xf32>
}
