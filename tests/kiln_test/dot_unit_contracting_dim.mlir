// dot_general whose contracting dim has extent 1 between two free dims,
// checked with `kiln test` (the cpu back end read the operand through
// oneDNN strides it refused as overlapping, and the process died of an
// uncaught dnnl::error; differential fuzzer, seed 3 program 2122).

func.func @outer_products_through_a_unit_dim() {
  %a = stablehlo.constant dense<[[[1.0, 2.0]], [[3.0, 4.0]]]> : tensor<2x1x2xf32>
  %d = stablehlo.dot_general %a, %a, contracting_dims = [1] x [1] : (tensor<2x1x2xf32>, tensor<2x1x2xf32>) -> tensor<2x2x2x2xf32>
  check.expect_eq_const %d, dense<[[[[1.0, 2.0], [3.0, 4.0]], [[2.0, 4.0], [6.0, 8.0]]],
                                   [[[3.0, 6.0], [9.0, 12.0]], [[4.0, 8.0], [12.0, 16.0]]]]> : tensor<2x2x2x2xf32>
  func.return
}
