// Strided and dilated windows across a split dimension, for
// kiln-run-spmd-strided-windows.test: each device widens its block by its
// neighbours' edge rows (halo exchange) or drops rows its windows skip, and
// every instance must return what the unpartitioned program returns.
// Arguments and results are replicated; constraints split the rows of the
// window's operand and result.
module @strided_windows {
  sdy.mesh @mesh = <["x"=4]>

  // Max pool, window 3, stride 2, padding (0, 1): each block of 4 rows needs
  // one row of the next block; the last device's is the padding, -inf.
  func.func public @max_pool_stride_2(%a: tensor<16x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<8x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %c = sdy.sharding_constraint %a <@mesh, [{"x"}, {}]> : tensor<16x3xf32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %r = "stablehlo.reduce_window"(%c, %ninf) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %m = stablehlo.maximum %x, %y : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) {window_dimensions = array<i64: 3, 1>, window_strides = array<i64: 2, 1>,
        padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<16x3xf32>, tensor<f32>) -> tensor<8x3xf32>
    %rc = sdy.sharding_constraint %r <@mesh, [{"x"}, {}]> : tensor<8x3xf32>
    return %rc : tensor<8x3xf32>
  }

  // Window 4, stride 2, padding (1, 1): a row from the block before and one
  // from the block after.
  func.func public @sum_window_4_stride_2(%a: tensor<16x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<8x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %c = sdy.sharding_constraint %a <@mesh, [{"x"}, {}]> : tensor<16x2xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %r = "stablehlo.reduce_window"(%c, %zero) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {window_dimensions = array<i64: 4, 1>, window_strides = array<i64: 2, 1>,
        padding = dense<[[1, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<16x2xf32>, tensor<f32>) -> tensor<8x2xf32>
    %rc = sdy.sharding_constraint %r <@mesh, [{"x"}, {}]> : tensor<8x2xf32>
    return %rc : tensor<8x2xf32>
  }

  // Window 1, stride 4: every fourth row; each block keeps its first row and
  // drops the rest (no exchange).
  func.func public @every_fourth_row(%a: tensor<16x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %c = sdy.sharding_constraint %a <@mesh, [{"x"}, {}]> : tensor<16x2xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %r = "stablehlo.reduce_window"(%c, %zero) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {window_dimensions = array<i64: 1, 1>, window_strides = array<i64: 4, 1>} : (tensor<16x2xf32>, tensor<f32>) -> tensor<4x2xf32>
    %rc = sdy.sharding_constraint %r <@mesh, [{"x"}, {}]> : tensor<4x2xf32>
    return %rc : tensor<4x2xf32>
  }

  // A convolution over rows, kernel 3 dilated by 2 (spanning 5 rows), stride
  // 1, padding (2, 2): two rows from each neighbour.
  func.func public @conv_dilated(%x: tensor<1x16x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}, %k: tensor<3x2x3xf32>) -> (tensor<1x16x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) {
    %c = sdy.sharding_constraint %x <@mesh, [{}, {"x"}, {}]> : tensor<1x16x2xf32>
    %r = stablehlo.convolution(%c, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1], pad = [[2, 2]], rhs_dilate = [2]}
        {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x16x2xf32>, tensor<3x2x3xf32>) -> tensor<1x16x3xf32>
    %rc = sdy.sharding_constraint %r <@mesh, [{}, {"x"}, {}]> : tensor<1x16x3xf32>
    return %rc : tensor<1x16x3xf32>
  }

  // A convolution with stride 2, kernel 3, padding (0, 1) (JAX's "SAME"):
  // one row from the block after.
  func.func public @conv_stride_2(%x: tensor<1x16x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}, %k: tensor<3x2x3xf32>) -> (tensor<1x8x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) {
    %c = sdy.sharding_constraint %x <@mesh, [{}, {"x"}, {}]> : tensor<1x16x2xf32>
    %r = stablehlo.convolution(%c, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [2], pad = [[0, 1]]}
        {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x16x2xf32>, tensor<3x2x3xf32>) -> tensor<1x8x3xf32>
    %rc = sdy.sharding_constraint %r <@mesh, [{}, {"x"}, {}]> : tensor<1x8x3xf32>
    return %rc : tensor<1x8x3xf32>
  }

  // Base (input) dilation: a transposed convolution (lhs_dilate 2, kernel 3,
  // padding (1, 2)) doubles the rows; each block of 2 input rows gives 4
  // result rows and needs one row of the block after.
  func.func public @conv_transposed(%x: tensor<1x8x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}, %k: tensor<3x2x3xf32>) -> (tensor<1x16x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) {
    %c = sdy.sharding_constraint %x <@mesh, [{}, {"x"}, {}]> : tensor<1x8x2xf32>
    %r = stablehlo.convolution(%c, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1], pad = [[1, 2]], lhs_dilate = [2]}
        {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x2xf32>, tensor<3x2x3xf32>) -> tensor<1x16x3xf32>
    %rc = sdy.sharding_constraint %r <@mesh, [{}, {"x"}, {}]> : tensor<1x16x3xf32>
    return %rc : tensor<1x16x3xf32>
  }

  // Kernel 4, lhs_dilate 2, padding (2, 2): a row from each neighbour.
  func.func public @conv_transposed_kernel_4(%x: tensor<1x8x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}, %k: tensor<4x2x3xf32>) -> (tensor<1x16x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) {
    %c = sdy.sharding_constraint %x <@mesh, [{}, {"x"}, {}]> : tensor<1x8x2xf32>
    %r = stablehlo.convolution(%c, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1], pad = [[2, 2]], lhs_dilate = [2]}
        {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x2xf32>, tensor<4x2x3xf32>) -> tensor<1x16x3xf32>
    %rc = sdy.sharding_constraint %r <@mesh, [{}, {"x"}, {}]> : tensor<1x16x3xf32>
    return %rc : tensor<1x16x3xf32>
  }

  // A max over windows of 3 of the rows dilated by 2, padding (1, 2): the
  // holes and the padding are the init value, -inf, on every device.
  func.func public @max_base_dilated(%a: tensor<8x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<16x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %c = sdy.sharding_constraint %a <@mesh, [{"x"}, {}]> : tensor<8x3xf32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %r = "stablehlo.reduce_window"(%c, %ninf) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %m = stablehlo.maximum %x, %y : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) {window_dimensions = array<i64: 3, 1>, base_dilations = array<i64: 2, 1>,
        padding = dense<[[1, 2], [0, 0]]> : tensor<2x2xi64>} : (tensor<8x3xf32>, tensor<f32>) -> tensor<16x3xf32>
    %rc = sdy.sharding_constraint %r <@mesh, [{"x"}, {}]> : tensor<16x3xf32>
    return %rc : tensor<16x3xf32>
  }

  // Base dilation 2 and stride 3 (window 4, padding (1, 1)): each block of 3
  // rows gives 2 result rows from its own rows alone (no exchange), its
  // local window padded by (1, 1).
  func.func public @sum_base_dilated_stride_3(%a: tensor<12x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<8x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %c = sdy.sharding_constraint %a <@mesh, [{"x"}, {}]> : tensor<12x2xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %r = "stablehlo.reduce_window"(%c, %zero) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {window_dimensions = array<i64: 4, 1>, window_strides = array<i64: 3, 1>, base_dilations = array<i64: 2, 1>,
        padding = dense<[[1, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<12x2xf32>, tensor<f32>) -> tensor<8x2xf32>
    %rc = sdy.sharding_constraint %r <@mesh, [{"x"}, {}]> : tensor<8x2xf32>
    return %rc : tensor<8x2xf32>
  }
}
