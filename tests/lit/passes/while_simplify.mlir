// RUN: kiln-opt --passes=while_simplify --split-input-file %s | FileCheck %s
// Each case pins one rewrite of kiln/passes/while_simplify.cpp.

// A loop that never runs (0 < 0 is false) is its init values.
// CHECK-LABEL: func.func @zero_trips
// CHECK-NEXT: return %arg0 : tensor<4xf32>
func.func @zero_trips(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%i = %c0, %x = %arg0) : tensor<i32>, tensor<4xf32>
   cond {
    %lim = stablehlo.constant dense<0> : tensor<i32>
    %p = stablehlo.compare LT, %i, %lim, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %one : tensor<i32>
    %y = stablehlo.negate %x : tensor<4xf32>
    stablehlo.return %n, %y : tensor<i32>, tensor<4xf32>
  }
  return %0#1 : tensor<4xf32>
}

// -----
// A loop that runs once (0 < 1, then 1 < 1 is false) becomes its body.
// CHECK-LABEL: func.func @one_trip
// CHECK-NEXT: %[[Y:.*]] = stablehlo.negate %arg0 : tensor<4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @one_trip(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%i = %c0, %x = %arg0) : tensor<i32>, tensor<4xf32>
   cond {
    %lim = stablehlo.constant dense<1> : tensor<i32>
    %p = stablehlo.compare LT, %i, %lim, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %one : tensor<i32>
    %y = stablehlo.negate %x : tensor<4xf32>
    stablehlo.return %n, %y : tensor<i32>, tensor<4xf32>
  }
  return %0#1 : tensor<4xf32>
}

// -----
// Two trips: the loop stays; the unused carried value %acc (read only by its
// own update) is dropped, and the invariant exp(%arg1) moves out of the body.
// CHECK-LABEL: func.func @dead_value_and_invariant
// CHECK-NEXT: %[[ZERO:.*]] = stablehlo.constant dense<0> : tensor<i32>
// CHECK-NEXT: %[[ONE:.*]] = stablehlo.constant dense<1> : tensor<i32>
// CHECK-NEXT: %[[E:.*]] = stablehlo.exponential %arg1 : tensor<4xf32>
// CHECK-NEXT: %[[W:.*]]:2 = stablehlo.while(%[[I:.*]] = %[[ZERO]], %[[X:.*]] = %arg0) : tensor<i32>, tensor<4xf32>
// CHECK:      } do {
// CHECK-NEXT:   %[[N:.*]] = stablehlo.add %[[I]], %[[ONE]] : tensor<i32>
// CHECK-NEXT:   %[[Y:.*]] = stablehlo.multiply %[[X]], %[[E]] : tensor<4xf32>
// CHECK-NEXT:   stablehlo.return %[[N]], %[[Y]] : tensor<i32>, tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[W]]#1
func.func @dead_value_and_invariant(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %0:3 = stablehlo.while(%i = %c0, %x = %arg0, %acc = %arg0) : tensor<i32>, tensor<4xf32>, tensor<4xf32>
   cond {
    %lim = stablehlo.constant dense<2> : tensor<i32>
    %p = stablehlo.compare LT, %i, %lim, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %one : tensor<i32>
    %e = stablehlo.exponential %arg1 : tensor<4xf32>
    %y = stablehlo.multiply %x, %e : tensor<4xf32>
    %a = stablehlo.add %acc, %y : tensor<4xf32>
    stablehlo.return %n, %y, %a : tensor<i32>, tensor<4xf32>, tensor<4xf32>
  }
  return %0#1 : tensor<4xf32>
}

// -----
// A loop whose bound is an argument keeps its shape; a carried value read by
// the cond is live even when its result is unused.
// CHECK-LABEL: func.func @unknown_trips_kept
// CHECK: %[[W:.*]]:2 = stablehlo.while(%[[I:.*]] = %{{.*}}, %[[X:.*]] = %arg1) : tensor<i32>, tensor<4xf32>
// CHECK: stablehlo.compare LT, %[[I]], %arg0
// CHECK: stablehlo.negate %[[X]]
// CHECK: return %[[W]]#1
func.func @unknown_trips_kept(%arg0: tensor<i32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%i = %c0, %x = %arg1) : tensor<i32>, tensor<4xf32>
   cond {
    %p = stablehlo.compare LT, %i, %arg0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %one : tensor<i32>
    %y = stablehlo.negate %x : tensor<4xf32>
    stablehlo.return %n, %y : tensor<i32>, tensor<4xf32>
  }
  return %0#1 : tensor<4xf32>
}

// -----
// A carried value the body passes through unchanged (%w) is its init value:
// its uses read %arg1 directly, it leaves the loop, and the transpose that
// depended on it becomes invariant and moves out.
// CHECK-LABEL: func.func @pass_through_value
// CHECK:      %[[T:.*]] = stablehlo.transpose %arg1, dims = [1, 0]
// CHECK-NEXT: %[[W:.*]]:2 = stablehlo.while(%[[I:.*]] = %{{.*}}, %[[X:.*]] = %arg0) : tensor<i32>, tensor<2x2xf32>
// CHECK:      stablehlo.add %[[X]], %[[T]] : tensor<2x2xf32>
// CHECK:      return %[[W]]#1, %arg1
func.func @pass_through_value(%arg0: tensor<2x2xf32>, %arg1: tensor<2x2xf32>, %arg2: tensor<i32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %0:3 = stablehlo.while(%i = %c0, %x = %arg0, %w = %arg1) : tensor<i32>, tensor<2x2xf32>, tensor<2x2xf32>
   cond {
    %p = stablehlo.compare LT, %i, %arg2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %one : tensor<i32>
    %t = stablehlo.transpose %w, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %y = stablehlo.add %x, %t : tensor<2x2xf32>
    stablehlo.return %n, %y, %w : tensor<i32>, tensor<2x2xf32>, tensor<2x2xf32>
  }
  return %0#1, %0#2 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----
// An invariant broadcast stays in the loop: hoisted, its bigger result would
// be live across the whole loop; the invariant negate of its input moves.
// CHECK-LABEL: func.func @size_inflating_op_kept
// CHECK:      %[[N:.*]] = stablehlo.negate %arg1 : tensor<f32>
// CHECK-NEXT: stablehlo.while
// CHECK:      } do {
// CHECK:        stablehlo.broadcast_in_dim %[[N]], dims = [] : (tensor<f32>) -> tensor<64xf32>
func.func @size_inflating_op_kept(%arg0: tensor<64xf32>, %arg1: tensor<f32>, %arg2: tensor<i32>) -> tensor<64xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%i = %c0, %x = %arg0) : tensor<i32>, tensor<64xf32>
   cond {
    %p = stablehlo.compare LT, %i, %arg2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %one : tensor<i32>
    %s = stablehlo.negate %arg1 : tensor<f32>
    %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %y = stablehlo.add %x, %b : tensor<64xf32>
    stablehlo.return %n, %y : tensor<i32>, tensor<64xf32>
  }
  return %0#1 : tensor<64xf32>
}
