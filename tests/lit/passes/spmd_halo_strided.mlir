// RUN: kiln-opt --passes=sharding_propagation,spmd_partition --split-input-file %s | FileCheck %s
// Strided and dilated windows across a split dimension. A block of b input
// rows gives b / stride result rows, which read the block widened by `low`
// rows of the block before and span - stride - low rows of the block after
// (span: the window's extent with its dilation); a negative count drops that
// many of the block's own last rows. tests/lit/tools/
// kiln-run-spmd-strided-windows.test runs these shapes against the
// unpartitioned program.

// Stride 2, kernel 3, padding (0, 1): blocks of 4 rows give 2 result rows,
// which read one row of the next block (from device i + 1: pairs [1, 0], ...).
// CHECK-LABEL: module @conv_stride_2
// CHECK: %[[FIRST:.*]] = stablehlo.slice %arg0 [0:2, 0:1, 0:8, 0:3] : (tensor<2x4x8x3xf32>) -> tensor<2x1x8x3xf32>
// CHECK: %[[NEXT:.*]] = "stablehlo.collective_permute"(%[[FIRST]]) {{.*}}source_target_pairs = dense<{{\[\[}}1, 0], [2, 1], [3, 2]]>
// CHECK-NOT: collective_permute
// CHECK: %[[WIDE:.*]] = stablehlo.concatenate %arg0, %[[NEXT]], dim = 1 : (tensor<2x4x8x3xf32>, tensor<2x1x8x3xf32>) -> tensor<2x5x8x3xf32>
// CHECK: stablehlo.convolution(%[[WIDE]], %arg1) {{.*}}window = {stride = [2, 1], pad = {{\[\[}}0, 0], [1, 1]]} {{.*}} -> tensor<2x2x8x4xf32>
// CHECK-NOT: all_gather
module @conv_stride_2 {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%img: tensor<2x16x8x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}, {}, {}]>}, %k: tensor<3x3x3x4xf32>)
      -> (tensor<2x8x8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}, {}, {}]>}) {
    %0 = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = [[0, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x16x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x8x8x4xf32>
    return %0 : tensor<2x8x8x4xf32>
  }
}

// -----

// Window 3 dilated by 2 (span 5), padding (2, 2): two rows from each side.
// CHECK-LABEL: module @dilated
// CHECK: "stablehlo.collective_permute"({{.*}}) {{.*}}source_target_pairs = dense<{{\[\[}}0, 1], [1, 2], [2, 3]]> : tensor<3x2xi64>}> : (tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK: "stablehlo.collective_permute"({{.*}}) {{.*}}source_target_pairs = dense<{{\[\[}}1, 0], [2, 1], [3, 2]]> : tensor<3x2xi64>}> : (tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK: stablehlo.concatenate {{.*}} -> tensor<8x5xf32>
// CHECK: "stablehlo.reduce_window"({{.*}}) <{padding = dense<0> : tensor<2x2xi64>, window_dilations = array<i64: 2, 1>, window_dimensions = array<i64: 3, 1>}>
// CHECK: -> tensor<4x5xf32>
module @dilated {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%x: tensor<16x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<16x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %init = stablehlo.constant dense<0.0> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%x, %init) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) {window_dimensions = array<i64: 3, 1>, window_dilations = array<i64: 2, 1>, padding = dense<[[2, 2], [0, 0]]> : tensor<2x2xi64>} : (tensor<16x5xf32>, tensor<f32>) -> tensor<16x5xf32>
    return %0 : tensor<16x5xf32>
  }
}

// -----

// Window 1, stride 4: each block of 4 rows keeps its first; no exchange.
// CHECK-LABEL: module @every_fourth
// CHECK-NOT: collective_permute
// CHECK: %[[KEPT:.*]] = stablehlo.slice %arg0 [0:1, 0:5] : (tensor<4x5xf32>) -> tensor<1x5xf32>
// CHECK: "stablehlo.reduce_window"(%[[KEPT]], {{.*}}window_strides = array<i64: 4, 1>
// CHECK: (tensor<1x5xf32>, tensor<f32>) -> tensor<1x5xf32>
// CHECK-NOT: all_gather
module @every_fourth {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%x: tensor<16x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<4x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %init = stablehlo.constant dense<0.0> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%x, %init) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) {window_dimensions = array<i64: 1, 1>, window_strides = array<i64: 4, 1>} : (tensor<16x5xf32>, tensor<f32>) -> tensor<4x5xf32>
    return %0 : tensor<4x5xf32>
  }
}

// -----

// Base (input) dilation whose result is not the input's rows times the
// dilation (15 rows from 8, no padding) has no halo form: the rows are
// gathered.
// CHECK-LABEL: module @base_dilated
// CHECK-NOT: collective_permute
// CHECK: "stablehlo.all_gather"
module @base_dilated {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%x: tensor<8x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<15x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %init = stablehlo.constant dense<0.0> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%x, %init) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) {window_dimensions = array<i64: 1, 1>, base_dilations = array<i64: 2, 1>} : (tensor<8x5xf32>, tensor<f32>) -> tensor<15x5xf32>
    return %0 : tensor<15x5xf32>
  }
}

// -----

// A transposed convolution (lhs_dilate 2, kernel 4, padding (2, 2)) doubles
// the rows: each block of 2 input rows gives 4 result rows from its own rows
// widened by one of each neighbour's, no padding left (what falls between
// dilated rows: none here).
// CHECK-LABEL: module @transposed
// CHECK: func.func public @main(%arg0: tensor<1x2x2xf32>
// CHECK: %[[LAST:.*]] = stablehlo.slice %arg0 [0:1, 1:2, 0:2]
// CHECK: %[[BEFORE:.*]] = "stablehlo.collective_permute"(%[[LAST]]) {{.*}} source_target_pairs = dense<{{\[\[}}0, 1], [1, 2], [2, 3]]>
// CHECK: %[[FIRST:.*]] = stablehlo.slice %arg0 [0:1, 0:1, 0:2]
// CHECK: %[[AFTER:.*]] = "stablehlo.collective_permute"(%[[FIRST]]) {{.*}} source_target_pairs = dense<{{\[\[}}1, 0], [2, 1], [3, 2]]>
// CHECK: %[[WIDE:.*]] = stablehlo.concatenate %[[BEFORE]], %arg0, %[[AFTER]], dim = 1 : {{.*}} -> tensor<1x4x2xf32>
// CHECK: stablehlo.convolution(%[[WIDE]], %arg1) {{.*}} window = {stride = [1], pad = {{\[\[}}0, 0]], lhs_dilate = [2]} {{.*}} -> tensor<1x4x3xf32>
// CHECK-NOT: all_gather
// CHECK: return
module @transposed {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%x: tensor<1x8x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}, {}]>}, %k: tensor<4x2x3xf32>) -> (tensor<1x16x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}, {}]>}) {
    %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1], pad = [[2, 2]], lhs_dilate = [2]}
        {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x2xf32>, tensor<4x2x3xf32>) -> tensor<1x16x3xf32>
    return %r : tensor<1x16x3xf32>
  }
}

// -----

// Kernel 3, padding (1, 2): the low padding of 1 falls before the first
// dilated row and stays in the local op; each block needs one row of the
// block after only.
// CHECK-LABEL: module @transposed_kernel_3
// CHECK-NOT: source_target_pairs = dense<{{\[\[}}0, 1]
// CHECK: %[[FIRST:.*]] = stablehlo.slice %arg0 [0:1, 0:1, 0:2]
// CHECK: %[[AFTER:.*]] = "stablehlo.collective_permute"(%[[FIRST]]) {{.*}} source_target_pairs = dense<{{\[\[}}1, 0], [2, 1], [3, 2]]>
// CHECK: %[[WIDE:.*]] = stablehlo.concatenate %arg0, %[[AFTER]], dim = 1 : {{.*}} -> tensor<1x3x2xf32>
// CHECK: stablehlo.convolution(%[[WIDE]], %arg1) {{.*}} window = {stride = [1], pad = {{\[\[}}1, 0]], lhs_dilate = [2]} {{.*}} -> tensor<1x4x3xf32>
module @transposed_kernel_3 {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%x: tensor<1x8x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}, {}]>}, %k: tensor<3x2x3xf32>) -> (tensor<1x16x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}, {}]>}) {
    %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1], pad = [[1, 2]], lhs_dilate = [2]}
        {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x2xf32>, tensor<3x2x3xf32>) -> tensor<1x16x3xf32>
    return %r : tensor<1x16x3xf32>
  }
}
