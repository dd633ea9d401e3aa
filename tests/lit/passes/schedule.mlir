// RUN: kiln-opt --passes=schedule --split-input-file %s | FileCheck %s
// The schedule pass reorders ops to lower peak live memory (docs/memory.md).

// Each big value is reduced right after it is computed, so only one of them
// is live at a time (peak 12 KiB + 8 bytes instead of 16 KiB + 4 bytes).
// CHECK-LABEL: func.func @reduce_each_big_value_early
// CHECK: stablehlo.exponential %arg0
// CHECK-NEXT: stablehlo.reduce
// CHECK: stablehlo.exponential %arg1
// CHECK-NEXT: stablehlo.reduce
// CHECK: = stablehlo.add
// CHECK-NEXT: return
func.func @reduce_each_big_value_early(%arg0: tensor<1024xf32>, %arg1: tensor<1024xf32>) -> tensor<f32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %big1 = stablehlo.exponential %arg0 : tensor<1024xf32>
  %big2 = stablehlo.exponential %arg1 : tensor<1024xf32>
  %s1 = stablehlo.reduce(%big1 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<1024xf32>, tensor<f32>) -> tensor<f32>
  %s2 = stablehlo.reduce(%big2 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<1024xf32>, tensor<f32>) -> tensor<f32>
  %r = stablehlo.add %s1, %s2 : tensor<f32>
  return %r : tensor<f32>
}

// -----
// Ops with side effects keep their order: without that, running @consume_b
// before @produce_a would lower the peak.
// CHECK-LABEL: func.func @side_effects_keep_their_order
// CHECK: custom_call @produce_b
// CHECK-NEXT: custom_call @produce_a
// CHECK-NEXT: custom_call @consume_b
// CHECK-NEXT: custom_call @consume_a
func.func @side_effects_keep_their_order() -> (tensor<f32>, tensor<f32>) {
  %b = stablehlo.custom_call @produce_b() : () -> tensor<1024xf32>
  %a = stablehlo.custom_call @produce_a() : () -> tensor<1024xf32>
  %sb = stablehlo.custom_call @consume_b(%b) : (tensor<1024xf32>) -> tensor<f32>
  %sa = stablehlo.custom_call @consume_a(%a) : (tensor<1024xf32>) -> tensor<f32>
  return %sa, %sb : tensor<f32>, tensor<f32>
}

// -----
// A use inside a nested region is a dependence: the while reads %big in its
// body, so %big stays before it, and the negate of the while's result after.
// CHECK-LABEL: func.func @nested_use_is_a_dependence
// CHECK: %[[BIG:.*]] = stablehlo.exponential %arg0
// CHECK: stablehlo.while
// CHECK: stablehlo.add %{{.*}}, %[[BIG]]
// CHECK: stablehlo.negate
func.func @nested_use_is_a_dependence(%arg0: tensor<1024xf32>, %n: tensor<i32>) -> tensor<1024xf32> {
  %big = stablehlo.exponential %arg0 : tensor<1024xf32>
  %r:2 = stablehlo.while(%i = %n, %acc = %arg0) : tensor<i32>, tensor<1024xf32>
    cond {
      %c0 = stablehlo.constant dense<0> : tensor<i32>
      %p = stablehlo.compare GT, %i, %c0 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %c1 = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.subtract %i, %c1 : tensor<i32>
      %s = stablehlo.add %acc, %big : tensor<1024xf32>
      stablehlo.return %j, %s : tensor<i32>, tensor<1024xf32>
    }
  %neg = stablehlo.negate %r#1 : tensor<1024xf32>
  return %neg : tensor<1024xf32>
}

// -----
// An order that is already as good as the scheduler's is left alone, even
// where the scheduler's order would differ (it would compute %small first).
// CHECK-LABEL: func.func @no_better_order_no_change
// CHECK: stablehlo.exponential %arg0
// CHECK-NEXT: stablehlo.exponential %arg1
// CHECK-NEXT: return
func.func @no_better_order_no_change(%arg0: tensor<1024xf32>, %arg1: tensor<4xf32>) -> (tensor<1024xf32>, tensor<4xf32>) {
  %big = stablehlo.exponential %arg0 : tensor<1024xf32>
  %small = stablehlo.exponential %arg1 : tensor<4xf32>
  return %big, %small : tensor<1024xf32>, tensor<4xf32>
}
