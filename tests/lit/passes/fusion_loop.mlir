// RUN: kiln-opt --passes=inline,fusion --split-input-file %s | FileCheck %s
// Loop fusion: elementwise ops and data movement become one kiln.fusion
// "loop"; scalar and splat constants are copied into its body. Consumers pull
// in their producers one at a time, so a body lists the last producer pulled
// in first.

// An elementwise chain with a broadcast bias and a splat scale.
// CHECK-LABEL: func.func @elementwise_chain
// CHECK-NEXT: %[[F:.*]] = "kiln.fusion"(%arg1, %arg0) <{kind = "loop"}> ({
// CHECK-NEXT: ^bb0(%[[B:.*]]: tensor<8xf32>, %[[X:.*]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[C:.*]] = stablehlo.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[BB:.*]] = stablehlo.broadcast_in_dim %[[B]], dims = [1]
// CHECK-NEXT: %[[CB:.*]] = stablehlo.broadcast_in_dim %[[C]], dims = []
// CHECK-NEXT: %[[M:.*]] = stablehlo.multiply %[[X]], %[[CB]]
// CHECK-NEXT: %[[A:.*]] = stablehlo.add %[[M]], %[[BB]]
// CHECK-NEXT: %[[T:.*]] = stablehlo.tanh %[[A]]
// CHECK-NEXT: "kiln.yield"(%[[T]])
// CHECK-NEXT: }) : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[F]]
func.func @elementwise_chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %c = stablehlo.constant dense<2.0> : tensor<f32>
  %cb = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<8xf32>) -> tensor<4x8xf32>
  %0 = stablehlo.multiply %x, %cb : tensor<4x8xf32>
  %1 = stablehlo.add %0, %bb : tensor<4x8xf32>
  %2 = stablehlo.tanh %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----
// reshape, transpose, slice, concatenate, pad, iota, convert, compare and
// select all join one loop fusion.
// CHECK-LABEL: func.func @data_movement
// CHECK-NEXT: %[[F:.*]] = "kiln.fusion"(%arg1, %arg0) <{kind = "loop"}> ({
// CHECK-NEXT: ^bb0(%[[Y:.*]]: tensor<3x2xf32>, %[[X:.*]]: tensor<2x3xf32>):
// CHECK-NEXT: %[[ZERO:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[IOTA:.*]] = stablehlo.iota dim = 0
// CHECK-NEXT: %[[CONV:.*]] = stablehlo.convert %[[IOTA]]
// CHECK-NEXT: %[[TR:.*]] = stablehlo.transpose %[[Y]]
// CHECK-NEXT: %[[SL:.*]] = stablehlo.slice %[[TR]]
// CHECK-NEXT: %[[R2:.*]] = stablehlo.reshape %[[SL]]
// CHECK-NEXT: %[[R6:.*]] = stablehlo.reshape %[[X]]
// CHECK-NEXT: %[[CAT:.*]] = stablehlo.concatenate %[[R6]], %[[R2]]
// CHECK-NEXT: %[[PAD:.*]] = stablehlo.pad %[[CAT]], %[[ZERO]]
// CHECK-NEXT: %[[CMP:.*]] = stablehlo.compare LT, %[[PAD]], %[[CONV]]
// CHECK-NEXT: %[[SEL:.*]] = stablehlo.select %[[CMP]], %[[PAD]], %[[CONV]]
// CHECK-NEXT: "kiln.yield"(%[[SEL]])
// CHECK-NEXT: })
// CHECK-NEXT: return %[[F]]
func.func @data_movement(%x: tensor<2x3xf32>, %y: tensor<3x2xf32>) -> tensor<10xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = stablehlo.transpose %y, dims = [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %2 = stablehlo.slice %1 [0:1, 0:2] : (tensor<2x3xf32>) -> tensor<1x2xf32>
  %3 = stablehlo.reshape %2 : (tensor<1x2xf32>) -> tensor<2xf32>
  %4 = stablehlo.concatenate %0, %3, dim = 0 : (tensor<6xf32>, tensor<2xf32>) -> tensor<8xf32>
  %5 = stablehlo.pad %4, %zero, low = [1], high = [1], interior = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<10xf32>
  %6 = stablehlo.iota dim = 0 : tensor<10xi32>
  %7 = stablehlo.convert %6 : (tensor<10xi32>) -> tensor<10xf32>
  %8 = stablehlo.compare LT, %5, %7 : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
  %9 = stablehlo.select %8, %5, %7 : tensor<10xi1>, tensor<10xf32>
  return %9 : tensor<10xf32>
}

// -----
// A lone op with nothing to fuse stays as it is.
// CHECK-LABEL: func.func @single_op
// CHECK-NEXT: stablehlo.exponential %arg0
// CHECK-NEXT: return
func.func @single_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
