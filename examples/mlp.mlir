// A two-layer MLP with softmax, as jax.jit(mlp).lower(x).as_text() prints it.
// Run: build/bin/kiln run examples/mlp.mlir --input-literal 'dense<[[1.0, 2.0, 3.0, 4.0], [-1.0, 0.5, 0.0, 2.0]]> : tensor<2x4xf32>' --print
module @jit_mlp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4xf32>) -> (tensor<2x3xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<[[1.300000e-01, -1.300000e-01, 6.400000e-01, 1.000000e-01, -5.400000e-01, 3.600000e-01, 1.300000e+00, 0.949999988], [-0.699999988, -1.270000e+00, -6.200000e-01, 4.000000e-02, -2.330000e+00, -2.200000e-01, -1.250000e+00, -7.300000e-01], [-5.400000e-01, -3.200000e-01, 4.100000e-01, 1.040000e+00, -1.300000e-01, 1.370000e+00, -6.700000e-01, 3.500000e-01], [0.899999976, 9.000000e-02, -7.400000e-01, -9.200000e-01, -4.600000e-01, 2.200000e-01, -1.010000e+00, -2.100000e-01]]> : tensor<4x8xf32>
    %cst_0 = stablehlo.constant dense<[-1.600000e-01, 5.400000e-01, 2.100000e-01, 3.600000e-01, -6.500000e-01, -1.300000e-01, 7.800000e-01, 1.490000e+00]> : tensor<8xf32>
    %cst_1 = stablehlo.constant dense<[[-1.260000e+00, 1.510000e+00, 1.350000e+00], [7.800000e-01, 2.600000e-01, -3.100000e-01], [1.460000e+00, 1.960000e+00, 1.800000e+00], [1.320000e+00, 3.600000e-01, -1.210000e+00], [-0.000000e+00, 6.600000e-01, -1.290000e+00], [4.000000e-01, 4.300000e-01, 0.699999988], [-1.180000e+00, -6.600000e-01, -4.400000e-01], [-1.170000e+00, 1.740000e+00, -5.000000e-01]]> : tensor<8x3xf32>
    %0 = stablehlo.dot_general %arg0, %cst, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<2x8xf32>
    %3 = stablehlo.add %0, %2 : tensor<2x8xf32>
    %4 = call @relu(%3) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %5 = stablehlo.dot_general %4, %cst_1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8xf32>, tensor<8x3xf32>) -> tensor<2x3xf32>
    %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %6 = stablehlo.reduce(%5 init: %cst_2) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %8 = stablehlo.maximum %7, %6 : tensor<2xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<2xf32>) -> tensor<2x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x3xf32>
    %11 = stablehlo.subtract %5, %10 : tensor<2x3xf32>
    %12 = stablehlo.exponential %11 : tensor<2x3xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.reduce(%12 init: %cst_4) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0] : (tensor<2xf32>) -> tensor<2x1xf32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x3xf32>
    %16 = stablehlo.divide %12, %15 : tensor<2x3xf32>
    return %16 : tensor<2x3xf32>
  }
  func.func private @relu(%arg0: tensor<2x8xf32>) -> tensor<2x8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x8xf32>
    return %1 : tensor<2x8xf32>
  }
}
