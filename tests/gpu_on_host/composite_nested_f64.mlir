func.func @main(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %0 = stablehlo.composite "kiln.test.nested" %x {decomposition = @nested} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}
func.func private @nested(%arg0: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %0 = stablehlo.composite "kiln.test.scale_shift" %arg0 {composite_attributes = {scale = 5.000000e-01 : f64}, decomposition = @scale_shift, version = 2 : i32} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %cst = stablehlo.constant dense<2.000000e+00> : tensor<f64>
  %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<2x3xf64>
  %2 = stablehlo.multiply %0, %1 : tensor<2x3xf64>
  return %2 : tensor<2x3xf64>
}
func.func private @scale_shift(%arg0: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %cst = stablehlo.constant dense<5.000000e-01> : tensor<f64>
  %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<2x3xf64>
  %1 = stablehlo.multiply %arg0, %0 : tensor<2x3xf64>
  %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
  %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<2x3xf64>
  %3 = stablehlo.add %1, %2 : tensor<2x3xf64>
  return %3 : tensor<2x3xf64>
}
