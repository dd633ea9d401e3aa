// RUN: kiln-opt --passes=inline,fusion --split-input-file %s | FileCheck %s
// Input fusion (producers and epilogue of a reduction), row fusion (softmax
// as one kernel) and sibling fusion (reductions of one input, one pass).

// The multiply feeding the reduce and the divide after it join the reduce.
// CHECK-LABEL: func.func @reduce_producers
// CHECK-NEXT: %[[F:.*]] = "kiln.fusion"(%arg0, %arg1) <{kind = "input"}> ({
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[N:.*]] = stablehlo.constant dense<8.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[ZERO:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[M:.*]] = stablehlo.multiply %[[X]], %[[Y]]
// CHECK-NEXT: %[[R:.*]] = stablehlo.reduce(%[[M]] init: %[[ZERO]]) applies stablehlo.add across dimensions = [1]
// CHECK-NEXT: %[[D:.*]] = stablehlo.divide %[[R]], %[[N]]
// CHECK-NEXT: "kiln.yield"(%[[D]])
// CHECK-NEXT: })
// CHECK-NEXT: return %[[F]]
func.func @reduce_producers(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.multiply %x, %y : tensor<4x8xf32>
  %1 = stablehlo.reduce(%0 init: %c) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %n = stablehlo.constant dense<8.0> : tensor<4xf32>
  %2 = stablehlo.divide %1, %n : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----
// Softmax as JAX writes it: one row kernel. Per row it takes the max, sums
// exp(x - max), then writes exp(x - max) / sum; exp(x - max) is computed once
// for the sum and again for the output, never stored.
// CHECK-LABEL: func.func @softmax
// CHECK-NEXT: %[[F:.*]] = "kiln.fusion"(%arg0) <{kind = "input"}> ({
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4x16xf32>):
// CHECK-NEXT: %[[ZERO:.*]] = stablehlo.constant dense<0.000000e+00>
// CHECK-NEXT: %[[NEGINF:.*]] = stablehlo.constant dense<0xFF800000>
// CHECK-NEXT: %[[MAX:.*]] = stablehlo.reduce(%[[X]] init: %[[NEGINF]]) applies stablehlo.maximum across dimensions = [1]
// CHECK-NEXT: %[[M1:.*]] = stablehlo.broadcast_in_dim %[[MAX]], dims = [0]
// CHECK-NEXT: %[[M2:.*]] = stablehlo.broadcast_in_dim %[[M1]], dims = [0, 1]
// CHECK-NEXT: %[[S1:.*]] = stablehlo.subtract %[[X]], %[[M2]]
// CHECK-NEXT: %[[E1:.*]] = stablehlo.exponential %[[S1]]
// CHECK-NEXT: %[[SUM:.*]] = stablehlo.reduce(%[[E1]] init: %[[ZERO]]) applies stablehlo.add across dimensions = [1]
// CHECK-NEXT: %[[B1:.*]] = stablehlo.broadcast_in_dim %[[SUM]], dims = [0]
// CHECK-NEXT: %[[B2:.*]] = stablehlo.broadcast_in_dim %[[B1]], dims = [0, 1]
// CHECK-NEXT: %[[N1:.*]] = stablehlo.broadcast_in_dim %[[MAX]], dims = [0]
// CHECK-NEXT: %[[N2:.*]] = stablehlo.broadcast_in_dim %[[N1]], dims = [0, 1]
// CHECK-NEXT: %[[S2:.*]] = stablehlo.subtract %[[X]], %[[N2]]
// CHECK-NEXT: %[[E2:.*]] = stablehlo.exponential %[[S2]]
// CHECK-NEXT: %[[OUT:.*]] = stablehlo.divide %[[E2]], %[[B2]]
// CHECK-NEXT: "kiln.yield"(%[[OUT]])
// CHECK-NEXT: })
// CHECK-NEXT: return %[[F]]
func.func @softmax(%arg0: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
  %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
  %5 = stablehlo.subtract %arg0, %4 : tensor<4x16xf32>
  %6 = stablehlo.exponential %5 : tensor<4x16xf32>
  %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
  %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
  %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x16xf32>
  %10 = stablehlo.divide %6, %9 : tensor<4x16xf32>
  return %10 : tensor<4x16xf32>
}

// -----
// Two reductions of %x over the same rows share one multi-output kernel.
// CHECK-LABEL: func.func @siblings
// CHECK-NEXT: %[[F:.*]]:2 = "kiln.fusion"(%arg0) <{kind = "multi_output"}> ({
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[ZERO:.*]] = stablehlo.constant dense<0.000000e+00>
// CHECK-NEXT: %[[SUM:.*]] = stablehlo.reduce(%[[X]] init: %[[ZERO]])
// CHECK-NEXT: %[[SQ:.*]] = stablehlo.multiply %[[X]], %[[X]]
// CHECK-NEXT: %[[SUMSQ:.*]] = stablehlo.reduce(%[[SQ]] init: %[[ZERO]])
// CHECK-NEXT: "kiln.yield"(%[[SUM]], %[[SUMSQ]])
// CHECK-NEXT: })
// CHECK-NEXT: return %[[F]]#0, %[[F]]#1
func.func @siblings(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = stablehlo.multiply %x, %x : tensor<4x8xf32>
  %2 = stablehlo.reduce(%1 init: %c) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  return %0, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----
// Guard: the consumer reads the sums of other rows (reverse), so it cannot
// run row by row; the reduce stays its own kernel.
// CHECK-LABEL: func.func @cross_row_read
// CHECK-NEXT: stablehlo.constant
// CHECK-NEXT: %[[R:.*]] = stablehlo.reduce(%arg0
// CHECK-NEXT: "kiln.fusion"(%[[R]], %arg0) <{kind = "loop"}>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: stablehlo.reverse
func.func @cross_row_read(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = stablehlo.reverse %0, dims = [0] : tensor<4xf32>
  %2 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
  %3 = stablehlo.add %x, %2 : tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// -----
// A variance over dim 0 (jnp.var(x, axis=0)): its "rows" are columns, strided
// in memory, so the sum for the mean stays a reduction of its own (a column
// kernel) and is not row-fused into the squares' reduction, which would read
// every element of a column from another cache line.
// CHECK-LABEL: func.func @variance_over_columns
// CHECK-NEXT: %[[ZERO:.*]] = stablehlo.constant
// CHECK-NEXT: %[[SUM:.*]] = stablehlo.reduce(%arg0 init: %[[ZERO]]) applies stablehlo.add across dimensions = [0]
// CHECK-NEXT: %[[VAR:.*]] = "kiln.fusion"(%[[SUM]], %arg0) <{kind = "input"}> ({
// CHECK: stablehlo.subtract
// CHECK: stablehlo.reduce
// CHECK-NOT: stablehlo.reduce
// CHECK: "kiln.yield"
// CHECK-NEXT: })
// CHECK-NEXT: return %[[VAR]]
func.func @variance_over_columns(%x: tensor<64x32xf32>) -> tensor<32xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<64x32xf32>, tensor<f32>) -> tensor<32xf32>
  %n = stablehlo.constant dense<64.0> : tensor<32xf32>
  %mean = stablehlo.divide %s, %n : tensor<32xf32>
  %mb = stablehlo.broadcast_in_dim %mean, dims = [1] : (tensor<32xf32>) -> tensor<64x32xf32>
  %d = stablehlo.subtract %x, %mb : tensor<64x32xf32>
  %sq = stablehlo.multiply %d, %d : tensor<64x32xf32>
  %v = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<64x32xf32>, tensor<f32>) -> tensor<32xf32>
  %var = stablehlo.divide %v, %n : tensor<32xf32>
  return %var : tensor<32xf32>
}
