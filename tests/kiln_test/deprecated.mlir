// Deprecated ops the StableHLO dialect still accepts, on every back end
// (the legalize pass rewrites them first). Each result is checked against
// the same computation written another way with spec ops.

// dot of a matrix and a vector against multiply + reduce.
func.func @dot_matrix_vector() {
  %a = stablehlo.constant dense<[[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]]> : tensor<2x3xf32>
  %v = stablehlo.constant dense<[0.5, -2.0, 1.0]> : tensor<3xf32>
  %r = stablehlo.dot %a, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  %vb = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %p = stablehlo.multiply %a, %vb : tensor<2x3xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%p init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  check.expect_almost_eq %r, %s : tensor<2xf32>
  func.return
}

// A batched matrix product with the output transposed, against broadcast,
// multiply and reduce over k.
func.func @einsum_batched() {
  %a = stablehlo.iota dim = 2 : tensor<2x3x4xf32>
  %b0 = stablehlo.iota dim = 0 : tensor<2x4x5xf32>
  %b1 = stablehlo.iota dim = 2 : tensor<2x4x5xf32>
  %b = stablehlo.add %b0, %b1 : tensor<2x4x5xf32>
  %r = stablehlo.einsum %a, %b, config = "bik,bkj->bji" : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x5x3xf32>
  %ab = stablehlo.broadcast_in_dim %a, dims = [0, 1, 2] : (tensor<2x3x4xf32>) -> tensor<2x3x4x5xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [0, 2, 3] : (tensor<2x4x5xf32>) -> tensor<2x3x4x5xf32>
  %p = stablehlo.multiply %ab, %bb : tensor<2x3x4x5xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%p init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<2x3x4x5xf32>, tensor<f32>) -> tensor<2x3x5xf32>
  %t = stablehlo.transpose %s, dims = [0, 2, 1] : (tensor<2x3x5xf32>) -> tensor<2x5x3xf32>
  check.expect_almost_eq %r, %t : tensor<2x5x3xf32>
  func.return
}

// A trace over the diagonal-free part: sum over b of x[a, b, c], as c-major.
func.func @unary_einsum_sum_and_transpose() {
  %x = stablehlo.iota dim = 1 : tensor<2x3x4xf32>
  %r = stablehlo.unary_einsum %x, config = "abc->ca" : (tensor<2x3x4xf32>) -> tensor<4x2xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %t = stablehlo.transpose %s, dims = [1, 0] : (tensor<2x4xf32>) -> tensor<4x2xf32>
  check.expect_almost_eq %r, %t : tensor<4x2xf32>
  func.return
}

func.func @broadcast_prepends_dims() {
  %x = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %r = stablehlo.broadcast %x, sizes = [2] : (tensor<3xi32>) -> tensor<2x3xi32>
  %c = stablehlo.concatenate %x, %x, dim = 0 : (tensor<3xi32>, tensor<3xi32>) -> tensor<6xi32>
  %e = stablehlo.reshape %c : (tensor<6xi32>) -> tensor<2x3xi32>
  check.expect_eq %r, %e : tensor<2x3xi32>
  func.return
}

// index_select of rows 2, 0, 2 against slices of those rows.
func.func @torch_index_select_rows() {
  %x = stablehlo.iota dim = 0 : tensor<3x2xi32>
  %y = stablehlo.iota dim = 1 : tensor<3x2xi32>
  %ten = stablehlo.constant dense<10> : tensor<3x2xi32>
  %x10 = stablehlo.multiply %x, %ten : tensor<3x2xi32>
  %v = stablehlo.add %x10, %y : tensor<3x2xi32>
  %i = stablehlo.constant dense<[2, 0, 2]> : tensor<3xi64>
  %r = "stablehlo.torch_index_select"(%v, %i) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<3x2xi32>, tensor<3xi64>) -> tensor<3x2xi32>
  %r2 = stablehlo.slice %v [2:3, 0:2] : (tensor<3x2xi32>) -> tensor<1x2xi32>
  %r0 = stablehlo.slice %v [0:1, 0:2] : (tensor<3x2xi32>) -> tensor<1x2xi32>
  %e = stablehlo.concatenate %r2, %r0, %r2, dim = 0 : (tensor<1x2xi32>, tensor<1x2xi32>, tensor<1x2xi32>) -> tensor<3x2xi32>
  check.expect_eq %r, %e : tensor<3x2xi32>
  func.return
}

// With a batch dimension: row b of the result picks from row b of x.
func.func @torch_index_select_batched() {
  %x = stablehlo.constant dense<[[10, 11, 12], [20, 21, 22]]> : tensor<2x3xi32>
  %i = stablehlo.constant dense<[[2, 2], [0, 1]]> : tensor<2x2xi32>
  %r = "stablehlo.torch_index_select"(%x, %i) {dim = 1 : i64, batch_dims = 1 : i64} : (tensor<2x3xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %a = stablehlo.slice %x [0:1, 2:3] : (tensor<2x3xi32>) -> tensor<1x1xi32>
  %b = stablehlo.slice %x [1:2, 0:2] : (tensor<2x3xi32>) -> tensor<1x2xi32>
  %aa = stablehlo.concatenate %a, %a, dim = 1 : (tensor<1x1xi32>, tensor<1x1xi32>) -> tensor<1x2xi32>
  %e = stablehlo.concatenate %aa, %b, dim = 0 : (tensor<1x2xi32>, tensor<1x2xi32>) -> tensor<2x2xi32>
  check.expect_eq %r, %e : tensor<2x2xi32>
  func.return
}

// On one replica the sum across replicas is the value itself; a created
// token feeds after_all.
func.func @cross_replica_sum_and_token() {
  %x = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xf32>
  %r = "stablehlo.cross-replica-sum"(%x) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  check.expect_eq %r, %x : tensor<2xf32>
  %t = stablehlo.create_token : !stablehlo.token
  %u = stablehlo.after_all %t : !stablehlo.token
  "stablehlo.trace"(%x) {tag = "dropped"} : (tensor<2xf32>) -> ()
  func.return
}
