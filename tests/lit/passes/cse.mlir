// RUN: kiln-opt --passes=cse --split-input-file %s | FileCheck %s

// Identical pure ops merge, including the constants JAX repeats.
// CHECK-LABEL: func.func @merges_duplicates
// CHECK-NEXT: %[[C:.*]] = stablehlo.constant dense<1.000000e+00>
// CHECK-NEXT: %[[A:.*]] = stablehlo.add %arg0, %[[C]]
// CHECK-NEXT: %[[M:.*]] = stablehlo.multiply %[[A]], %[[A]]
// CHECK-NEXT: return %[[M]]
func.func @merges_duplicates(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<1.0> : tensor<4xf32>
  %c1 = stablehlo.constant dense<1.0> : tensor<4xf32>
  %0 = stablehlo.add %arg0, %c0 : tensor<4xf32>
  %1 = stablehlo.add %arg0, %c1 : tensor<4xf32>
  %2 = stablehlo.multiply %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----
// Different attributes keep ops apart.
// CHECK-LABEL: func.func @attributes_distinguish
// CHECK: stablehlo.compare LT
// CHECK: stablehlo.compare GT
func.func @attributes_distinguish(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>) {
  %0 = stablehlo.compare LT, %arg0, %arg1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = stablehlo.compare GT, %arg0, %arg1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// -----
// An expression outside a region is reused inside it; one computed inside a
// region is not visible to its sibling region.
// CHECK-LABEL: func.func @region_scopes
// CHECK: %[[OUTER:.*]] = stablehlo.negate %arg1
// CHECK: stablehlo.return %[[OUTER]]
// CHECK: stablehlo.abs
// CHECK: stablehlo.abs
func.func @region_scopes(%arg0: tensor<i32>, %arg1: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %0 = stablehlo.negate %arg1 : tensor<f32>
  %1 = "stablehlo.case"(%arg0) ({
    %2 = stablehlo.negate %arg1 : tensor<f32>
    stablehlo.return %2 : tensor<f32>
  }, {
    %3 = stablehlo.abs %arg1 : tensor<f32>
    stablehlo.return %3 : tensor<f32>
  }) : (tensor<i32>) -> tensor<f32>
  %4 = "stablehlo.case"(%arg0) ({
    %5 = stablehlo.abs %arg1 : tensor<f32>
    stablehlo.return %5 : tensor<f32>
  }, {
    stablehlo.return %0 : tensor<f32>
  }) : (tensor<i32>) -> tensor<f32>
  return %1, %4 : tensor<f32>, tensor<f32>
}

// -----
// A kiln.fusion body is isolated from above: an equal op outside it is not
// reused inside (that would capture an outer value), but duplicates inside
// the body merge.
// CHECK-LABEL: func.func @isolated_region
// CHECK: %[[OUTER:.*]] = stablehlo.constant dense<1.000000e+00>
// CHECK: "kiln.fusion"
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4xf32>):
// CHECK-NEXT: %[[INNER:.*]] = stablehlo.constant dense<1.000000e+00>
// CHECK-NEXT: %[[A:.*]] = stablehlo.add %[[X]], %[[INNER]]
// CHECK-NEXT: %[[M:.*]] = stablehlo.multiply %[[A]], %[[A]]
// CHECK-NEXT: "kiln.yield"(%[[M]])
func.func @isolated_region(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = stablehlo.constant dense<1.0> : tensor<4xf32>
  %0 = stablehlo.add %arg0, %c : tensor<4xf32>
  %1 = "kiln.fusion"(%arg0) <{kind = "loop"}> ({
  ^bb0(%x: tensor<4xf32>):
    %c1 = stablehlo.constant dense<1.0> : tensor<4xf32>
    %a = stablehlo.add %x, %c1 : tensor<4xf32>
    %b = stablehlo.add %x, %c1 : tensor<4xf32>
    %m = stablehlo.multiply %a, %b : tensor<4xf32>
    "kiln.yield"(%m) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----
// A reduce body is a computation of its arguments: it keeps its own false
// constant rather than the equal init value outside (the cpu back end runs
// the reduce with only its operands at hand; jnp.argmax of a bool vector
// failed there with "uses a value that has not been computed"). Duplicates
// inside the body still merge.
// CHECK-LABEL: func.func @argmax_bool
// CHECK: %[[INIT:.*]] = stablehlo.constant dense<false>
// CHECK: reducer
// CHECK-NEXT: %[[GT:.*]] = stablehlo.compare GT
// CHECK-NEXT: %[[FALSE:.*]] = stablehlo.constant dense<false>
// CHECK-NEXT: stablehlo.or %[[GT]], %[[FALSE]]
// CHECK-NOT: stablehlo.constant
// CHECK: stablehlo.or %{{.*}}, %[[FALSE]]
func.func @argmax_bool(%arg0: tensor<5xi1>, %arg1: tensor<5xi32>) -> tensor<i32> {
  %c = stablehlo.constant dense<false> : tensor<i1>
  %c_0 = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.reduce(%arg0 init: %c), (%arg1 init: %c_0) across dimensions = [0] : (tensor<5xi1>, tensor<5xi32>, tensor<i1>, tensor<i32>) -> (tensor<i1>, tensor<i32>)
   reducer(%a: tensor<i1>, %b: tensor<i1>) (%i: tensor<i32>, %j: tensor<i32>)  {
    %1 = stablehlo.compare GT, %a, %b, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %f = stablehlo.constant dense<false> : tensor<i1>
    %2 = stablehlo.or %1, %f : tensor<i1>
    %3 = stablehlo.compare EQ, %a, %b, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %f2 = stablehlo.constant dense<false> : tensor<i1>
    %4 = stablehlo.or %3, %f2 : tensor<i1>
    %5 = stablehlo.select %2, %a, %b : tensor<i1>, tensor<i1>
    %6 = stablehlo.select %4, %i, %j : tensor<i1>, tensor<i32>
    stablehlo.return %5, %6 : tensor<i1>, tensor<i32>
  }
  return %0#1 : tensor<i32>
}
