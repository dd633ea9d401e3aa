// RUN: kiln-opt --passes=inline,fusion --split-input-file %s | FileCheck %s
// Output fusion: a dot_general or convolution first in the body, followed by
// its elementwise epilogue (what oneDNN runs as post-ops).

// Bias add (through a broadcast) and relu.
// CHECK-LABEL: func.func @dense_bias_relu
// CHECK-NEXT: %[[F:.*]] = "kiln.fusion"(%arg2, %arg0, %arg1) <{kind = "output"}> ({
// CHECK-NEXT: ^bb0(%[[B:.*]]: tensor<16xf32>, %[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x16xf32>):
// CHECK-NEXT: %[[D:.*]] = stablehlo.dot_general %[[X]], %[[W]], contracting_dims = [1] x [0]
// CHECK-NEXT: %[[ZERO:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<4x16xf32>
// CHECK-NEXT: %[[BB:.*]] = stablehlo.broadcast_in_dim %[[B]], dims = [1]
// CHECK-NEXT: %[[A:.*]] = stablehlo.add %[[D]], %[[BB]]
// CHECK-NEXT: %[[R:.*]] = stablehlo.maximum %[[A]], %[[ZERO]]
// CHECK-NEXT: "kiln.yield"(%[[R]])
// CHECK-NEXT: })
// CHECK-NEXT: return %[[F]]
func.func @dense_bias_relu(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<16xf32>) -> tensor<4x16xf32>
  %2 = stablehlo.add %0, %1 : tensor<4x16xf32>
  %c = stablehlo.constant dense<0.0> : tensor<4x16xf32>
  %3 = stablehlo.maximum %2, %c : tensor<4x16xf32>
  return %3 : tensor<4x16xf32>
}

// -----
// Scaling, residual add and logistic after a convolution.
// CHECK-LABEL: func.func @conv_residual_logistic
// CHECK-NEXT: %[[F:.*]] = "kiln.fusion"(%arg0, %arg1, %arg2) <{kind = "output"}> ({
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<1x8x8x4xf32>, %[[K:.*]]: tensor<3x3x4x4xf32>, %[[RES:.*]]: tensor<1x8x8x4xf32>):
// CHECK-NEXT: %[[C:.*]] = stablehlo.convolution(%[[X]], %[[K]])
// CHECK-NEXT: %[[HALF:.*]] = stablehlo.constant dense<5.000000e-01>
// CHECK-NEXT: %[[S:.*]] = stablehlo.multiply %[[C]], %[[HALF]]
// CHECK-NEXT: %[[A:.*]] = stablehlo.add %[[S]], %[[RES]]
// CHECK-NEXT: %[[L:.*]] = stablehlo.logistic %[[A]]
// CHECK-NEXT: "kiln.yield"(%[[L]])
// CHECK-NEXT: })
// CHECK-NEXT: return %[[F]]
func.func @conv_residual_logistic(%x: tensor<1x8x8x4xf32>, %k: tensor<3x3x4x4xf32>, %r: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x4xf32>, tensor<3x3x4x4xf32>) -> tensor<1x8x8x4xf32>
  %s = stablehlo.constant dense<0.5> : tensor<1x8x8x4xf32>
  %1 = stablehlo.multiply %0, %s : tensor<1x8x8x4xf32>
  %2 = stablehlo.add %1, %r : tensor<1x8x8x4xf32>
  %3 = stablehlo.logistic %2 : tensor<1x8x8x4xf32>
  return %3 : tensor<1x8x8x4xf32>
}

// -----
// Guard: the exp producing the dot's operand is not fused into the output
// fusion; the library reads its operands from memory.
// CHECK-LABEL: func.func @dot_operands_stay
// CHECK-NEXT: %[[E:.*]] = stablehlo.exponential %arg0
// CHECK-NEXT: %[[F:.*]] = "kiln.fusion"(%[[E]], %arg1) <{kind = "output"}> ({
// CHECK-NEXT: ^bb0(%[[T:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x16xf32>):
// CHECK-NEXT: %[[D:.*]] = stablehlo.dot_general %[[T]], %[[W]]
// CHECK-NEXT: %[[H:.*]] = stablehlo.tanh %[[D]]
// CHECK-NEXT: "kiln.yield"(%[[H]])
// CHECK-NEXT: })
// CHECK-NEXT: return %[[F]]
func.func @dot_operands_stay(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %t = stablehlo.exponential %x : tensor<4x8xf32>
  %0 = stablehlo.dot_general %t, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = stablehlo.tanh %0 : tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}

// -----
// Guard: a transpose is no post-op, so the epilogue stays a loop fusion
// reading the dot's result.
// CHECK-LABEL: func.func @transpose_epilogue
// CHECK-NEXT: %[[D:.*]] = stablehlo.dot_general %arg0, %arg1
// CHECK-NEXT: %[[F:.*]] = "kiln.fusion"(%[[D]]) <{kind = "loop"}> ({
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4x16xf32>):
// CHECK-NEXT: %[[H:.*]] = stablehlo.tanh %[[A]]
// CHECK-NEXT: %[[T:.*]] = stablehlo.transpose %[[H]], dims = [1, 0]
// CHECK-NEXT: "kiln.yield"(%[[T]])
// CHECK-NEXT: })
// CHECK-NEXT: return %[[F]]
func.func @transpose_epilogue(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<16x4xf32> {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = stablehlo.tanh %0 : tensor<4x16xf32>
  %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<4x16xf32>) -> tensor<16x4xf32>
  return %2 : tensor<16x4xf32>
}

// -----
// A splat constant the dot reads stays an operand of the fusion (a buffer
// the library reads), not a copy in the body: the dot comes first there, so
// the copy would come after its use (differential fuzzer, seed 2 program 143).
// CHECK-LABEL: func.func @dot_of_splat_constant
// CHECK-NEXT: %[[C:.*]] = stablehlo.constant dense<-3> : tensor<1xi32>
// CHECK-NEXT: %[[F:.*]] = "kiln.fusion"(%[[C]], %arg0) <{kind = "output"}> ({
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<1xi32>, %[[X:.*]]: tensor<1xi32>):
// CHECK-NEXT: %[[D:.*]] = stablehlo.dot_general %[[A]], %[[X]], contracting_dims = [0] x [0]
// CHECK-NEXT: %[[S:.*]] = stablehlo.add %[[D]], %[[D]]
// CHECK-NEXT: "kiln.yield"(%[[S]])
func.func @dot_of_splat_constant(%x: tensor<1xi32>) -> tensor<i32> {
  %c = stablehlo.constant dense<-3> : tensor<1xi32>
  %0 = stablehlo.dot_general %c, %x, contracting_dims = [0] x [0] : (tensor<1xi32>, tensor<1xi32>) -> tensor<i32>
  %1 = stablehlo.add %0, %0 : tensor<i32>
  return %1 : tensor<i32>
}
