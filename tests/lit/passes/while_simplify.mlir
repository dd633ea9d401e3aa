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

// -----
// A scan's input projection: the dot of xs[i] (the counter's slice of an
// outside tensor) with an outside weight is one dot over all of xs before the
// loop, as a matrix product of its rows; the body slices its result at the
// counter. The dot with the carried state stays.
// CHECK-LABEL: func.func @sliced_projection_hoisted
// CHECK:      %[[ROWS:.*]] = stablehlo.reshape %arg0 : (tensor<6x2x3xf32>) -> tensor<12x3xf32>
// CHECK-NEXT: %[[XW:.*]] = stablehlo.dot_general %[[ROWS]], %arg2, contracting_dims = [1] x [0]{{.*}} -> tensor<12x4xf32>
// CHECK-NEXT: %[[P:.*]] = stablehlo.reshape %[[XW]] : (tensor<12x4xf32>) -> tensor<6x2x4xf32>
// CHECK-NEXT: stablehlo.while(%[[I:[^ ]*]] = {{.*}}, %[[H:[^ ]*]] = %arg1)
// CHECK:      } do {
// CHECK-NOT:    %arg0
// CHECK:        %[[ROW:.*]] = stablehlo.dynamic_slice %[[P]], %[[I]], %{{.*}}, %{{.*}}, sizes = [1, 2, 4] : {{.*}} -> tensor<1x2x4xf32>
// CHECK-NEXT:   %[[XW:.*]] = stablehlo.reshape %[[ROW]] : (tensor<1x2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:   %[[HW:.*]] = stablehlo.dot_general %[[H]], %arg3
// CHECK-NEXT:   stablehlo.add %[[XW]], %[[HW]]
func.func @sliced_projection_hoisted(%arg0: tensor<6x2x3xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<3x4xf32>, %arg3: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%i = %c0, %h = %arg1) : tensor<i32>, tensor<2x4xf32>
   cond {
    %lim = stablehlo.constant dense<6> : tensor<i32>
    %p = stablehlo.compare LT, %i, %lim, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %s = stablehlo.dynamic_slice %arg0, %i, %z, %z, sizes = [1, 2, 3] : (tensor<6x2x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x3xf32>
    %x = stablehlo.reshape %s : (tensor<1x2x3xf32>) -> tensor<2x3xf32>
    %xw = stablehlo.dot_general %x, %arg2, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %hw = stablehlo.dot_general %h, %arg3, contracting_dims = [1] x [0] : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %y = stablehlo.add %xw, %hw : tensor<2x4xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %n, %y : tensor<i32>, tensor<2x4xf32>
  }
  return %0#1 : tensor<2x4xf32>
}

// -----
// The slice on the dot's right, sliced along its middle dim: the projection's
// dims are the weight's free ones, then the sliced tensor's (the counter's
// dim second of them), so the body slices dim 1 of [5, 6, 2].
// CHECK-LABEL: func.func @sliced_projection_on_the_right
// CHECK:      %[[P:.*]] = stablehlo.dot_general %arg1, %arg0, contracting_dims = [1] x [0]{{.*}} -> tensor<5x6x2xf32>
// CHECK:      } do {
// CHECK:        %[[ROW:.*]] = stablehlo.dynamic_slice %[[P]], %{{.*}}, %{{.*}}, %{{.*}}, sizes = [5, 1, 2] : {{.*}} -> tensor<5x1x2xf32>
// CHECK-NEXT:   stablehlo.reshape %[[ROW]] : (tensor<5x1x2xf32>) -> tensor<5x2xf32>
func.func @sliced_projection_on_the_right(%arg0: tensor<3x6x2xf32>, %arg1: tensor<5x3xf32>, %arg2: tensor<5x2xf32>) -> tensor<5x2xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%i = %c0, %acc = %arg2) : tensor<i32>, tensor<5x2xf32>
   cond {
    %lim = stablehlo.constant dense<6> : tensor<i32>
    %p = stablehlo.compare LT, %i, %lim, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %s = stablehlo.dynamic_slice %arg0, %z, %i, %z, sizes = [3, 1, 2] : (tensor<3x6x2xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<3x1x2xf32>
    %x = stablehlo.reshape %s : (tensor<3x1x2xf32>) -> tensor<3x2xf32>
    %wx = stablehlo.dot_general %arg1, %x, contracting_dims = [1] x [0] : (tensor<5x3xf32>, tensor<3x2xf32>) -> tensor<5x2xf32>
    %y = stablehlo.add %acc, %wx : tensor<5x2xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %n, %y : tensor<i32>, tensor<5x2xf32>
  }
  return %0#1 : tensor<5x2xf32>
}

// -----
// Not hoisted: the loop reads 2 of the 6 slices (the whole projection would
// cost three times the loop's dots), and a weight the loop carries changes
// every trip.
// CHECK-LABEL: func.func @sliced_projection_kept
// CHECK:      stablehlo.while
// CHECK:      } do {
// CHECK:        stablehlo.dynamic_slice %arg0
// CHECK:        stablehlo.dot_general
// CHECK:        stablehlo.dot_general
// CHECK:      return
func.func @sliced_projection_kept(%arg0: tensor<6x2x3xf32>, %arg1: tensor<3x4xf32>, %arg2: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %init = stablehlo.constant dense<0.0> : tensor<2x4xf32>
  %0:4 = stablehlo.while(%i = %c0, %a = %init, %b = %init, %w = %arg2) : tensor<i32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<3x4xf32>
   cond {
    %lim = stablehlo.constant dense<2> : tensor<i32>
    %p = stablehlo.compare LT, %i, %lim, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %s = stablehlo.dynamic_slice %arg0, %i, %z, %z, sizes = [1, 2, 3] : (tensor<6x2x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x3xf32>
    %x = stablehlo.reshape %s : (tensor<1x2x3xf32>) -> tensor<2x3xf32>
    %xa = stablehlo.dot_general %x, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %xb = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %a2 = stablehlo.add %a, %xa : tensor<2x4xf32>
    %b2 = stablehlo.add %b, %xb : tensor<2x4xf32>
    %w2 = stablehlo.add %w, %arg1 : tensor<3x4xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %n, %a2, %b2, %w2 : tensor<i32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<3x4xf32>
  }
  return %0#1, %0#2 : tensor<2x4xf32>, tensor<2x4xf32>
}
