// The LAPACK custom calls behind jnp.linalg.eig / eigvals (geev) and
// lax.linalg.tridiagonal_solve (gtsv), in the form jax 0.10.2 lowers them
// for CPU. Each test checks a property of the results inside the program --
// A v = lambda v, u^H A = lambda u^H, unit-norm vectors, A x = b -- so no
// expected value is written down; inputs mix real and complex eigenvalues
// and systems that need row interchanges.

// Real input with a complex pair: wr/wi, left and right vectors (complex).
func.func @sgeev_left_and_right() {
  %a = stablehlo.constant dense<[[2.0, -1.0, 0.5], [1.0, 3.0, -2.0], [0.0, 4.0, 1.0]]> : tensor<3x3xf32>
  %r:5 = stablehlo.custom_call @lapack_sgeev_ffi(%a) {mhlo.backend_config = {compute_left = 86 : ui8, compute_right = 86 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<3x3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>, tensor<i32>)
  check.expect_eq_const %r#4, dense<0> : tensor<i32>
  %w = stablehlo.complex %r#0, %r#1 : tensor<3xcomplex<f32>>
  %zero = stablehlo.constant dense<0.0> : tensor<3x3xf32>
  %ac = stablehlo.complex %a, %zero : tensor<3x3xcomplex<f32>>
  // A V = V diag(w)
  %av = stablehlo.dot_general %ac, %r#3, contracting_dims = [1] x [0] : (tensor<3x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
  %wcols = stablehlo.broadcast_in_dim %w, dims = [1] : (tensor<3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
  %vw = stablehlo.multiply %r#3, %wcols : tensor<3x3xcomplex<f32>>
  check.expect_almost_eq %av, %vw, tolerance = 1.0e-4 : f64 : tensor<3x3xcomplex<f32>>
  // U^H A = diag(w) U^H, row j of U^H A being (u_j)^H A.
  %ure = stablehlo.real %r#2 : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
  %uim = stablehlo.imag %r#2 : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
  %nuim = stablehlo.negate %uim : tensor<3x3xf32>
  %uconj = stablehlo.complex %ure, %nuim : tensor<3x3xcomplex<f32>>
  %uha = stablehlo.dot_general %uconj, %ac, contracting_dims = [0] x [0] : (tensor<3x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
  %uh = stablehlo.transpose %uconj, dims = [1, 0] : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
  %wrows = stablehlo.broadcast_in_dim %w, dims = [0] : (tensor<3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
  %wuh = stablehlo.multiply %wrows, %uh : tensor<3x3xcomplex<f32>>
  check.expect_almost_eq %uha, %wuh, tolerance = 1.0e-4 : f64 : tensor<3x3xcomplex<f32>>
  // Each column has unit 2-norm.
  %abs = stablehlo.abs %r#3 : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
  %sq = stablehlo.multiply %abs, %abs : tensor<3x3xf32>
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %norms = stablehlo.reduce(%sq init: %init) applies stablehlo.add across dimensions = [0] : (tensor<3x3xf32>, tensor<f32>) -> tensor<3xf32>
  check.expect_almost_eq_const %norms, dense<1.0> : tensor<3xf32>
  func.return
}

// A batch of f64 matrices (real eigenvalues in one, two complex pairs in
// the other), right vectors only, as jnp.linalg.eig asks.
func.func @dgeev_batched() {
  %a = stablehlo.constant dense<[[[4.0, 1.0, 0.0, 2.0], [1.0, 3.0, 1.0, 0.0], [0.0, 1.0, 2.0, 1.0], [2.0, 0.0, 1.0, 1.0]],
                                 [[0.0, -2.0, 1.0, 0.5], [2.0, 0.0, -1.0, 0.0], [0.0, 0.5, 0.0, -3.0], [1.0, 0.0, 3.0, 0.0]]]> : tensor<2x4x4xf64>
  %r:5 = stablehlo.custom_call @lapack_dgeev_ffi(%a) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}} : (tensor<2x4x4xf64>) -> (tensor<2x4xf64>, tensor<2x4xf64>, tensor<2x4x4xcomplex<f64>>, tensor<2x4x4xcomplex<f64>>, tensor<2xi32>)
  check.expect_eq_const %r#4, dense<0> : tensor<2xi32>
  %w = stablehlo.complex %r#0, %r#1 : tensor<2x4xcomplex<f64>>
  %zero = stablehlo.constant dense<0.0> : tensor<2x4x4xf64>
  %ac = stablehlo.complex %a, %zero : tensor<2x4x4xcomplex<f64>>
  %av = stablehlo.dot_general %ac, %r#3, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x4x4xcomplex<f64>>, tensor<2x4x4xcomplex<f64>>) -> tensor<2x4x4xcomplex<f64>>
  %wcols = stablehlo.broadcast_in_dim %w, dims = [0, 2] : (tensor<2x4xcomplex<f64>>) -> tensor<2x4x4xcomplex<f64>>
  %vw = stablehlo.multiply %r#3, %wcols : tensor<2x4x4xcomplex<f64>>
  check.expect_almost_eq %av, %vw, tolerance = 1.0e-10 : f64 : tensor<2x4x4xcomplex<f64>>
  func.return
}

// Complex input: one eigenvalue array.
func.func @cgeev_right() {
  %a = stablehlo.constant dense<[[(1.0, 1.0), (2.0, 0.0), (0.0, -1.0)], [(0.0, 0.5), (-1.0, 0.0), (1.0, 1.0)], [(3.0, 0.0), (0.0, 0.0), (2.0, -2.0)]]> : tensor<3x3xcomplex<f32>>
  %r:4 = stablehlo.custom_call @lapack_cgeev_ffi(%a) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}} : (tensor<3x3xcomplex<f32>>) -> (tensor<3xcomplex<f32>>, tensor<3x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>, tensor<i32>)
  check.expect_eq_const %r#3, dense<0> : tensor<i32>
  %av = stablehlo.dot_general %a, %r#2, contracting_dims = [1] x [0] : (tensor<3x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
  %wcols = stablehlo.broadcast_in_dim %r#0, dims = [1] : (tensor<3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
  %vw = stablehlo.multiply %r#2, %wcols : tensor<3x3xcomplex<f32>>
  check.expect_almost_eq %av, %vw, tolerance = 1.0e-4 : f64 : tensor<3x3xcomplex<f32>>
  func.return
}

// gtsv with row interchanges (|dl| > |d| in rows 1 and 3) and two
// right-hand sides: A x = b for the dense A the diagonals describe
// (dl[0] and du[n-1] are outside the matrix).
func.func @sgtsv_pivoting() {
  %dl = stablehlo.constant dense<[0.0, 3.0, 0.5, 4.0, 1.0]> : tensor<5xf32>
  %d = stablehlo.constant dense<[1.0, 0.5, 2.0, 0.25, 3.0]> : tensor<5xf32>
  %du = stablehlo.constant dense<[2.0, -1.0, 1.0, 2.0, 0.0]> : tensor<5xf32>
  %b = stablehlo.constant dense<[[1.0, 0.0], [2.0, 1.0], [3.0, -1.0], [4.0, 2.0], [5.0, 0.5]]> : tensor<5x2xf32>
  %a = stablehlo.constant dense<[[1.0, 2.0, 0.0, 0.0, 0.0], [3.0, 0.5, -1.0, 0.0, 0.0], [0.0, 0.5, 2.0, 1.0, 0.0], [0.0, 0.0, 4.0, 0.25, 2.0], [0.0, 0.0, 0.0, 1.0, 3.0]]> : tensor<5x5xf32>
  %r:5 = stablehlo.custom_call @lapack_sgtsv_ffi(%dl, %d, %du, %b) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>, #stablehlo.output_operand_alias<output_tuple_indices = [1], operand_index = 1, operand_tuple_indices = []>, #stablehlo.output_operand_alias<output_tuple_indices = [2], operand_index = 2, operand_tuple_indices = []>, #stablehlo.output_operand_alias<output_tuple_indices = [3], operand_index = 3, operand_tuple_indices = []>]} : (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5x2xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5x2xf32>, tensor<i32>)
  check.expect_eq_const %r#4, dense<0> : tensor<i32>
  %ax = stablehlo.dot_general %a, %r#3, contracting_dims = [1] x [0] : (tensor<5x5xf32>, tensor<5x2xf32>) -> tensor<5x2xf32>
  check.expect_almost_eq %ax, %b, tolerance = 1.0e-5 : f64 : tensor<5x2xf32>
  func.return
}

// A singular system reports the zero pivot's 1-based index in info (JAX
// then replaces the solution with NaN): rows 1 and 2 are equal.
func.func @dgtsv_singular_info() {
  %dl = stablehlo.constant dense<[0.0, 1.0, 0.0]> : tensor<3xf64>
  %d = stablehlo.constant dense<[1.0, 1.0, 1.0]> : tensor<3xf64>
  %du = stablehlo.constant dense<[1.0, 0.0, 0.0]> : tensor<3xf64>
  %b = stablehlo.constant dense<[[1.0], [1.0], [1.0]]> : tensor<3x1xf64>
  %r:5 = stablehlo.custom_call @lapack_dgtsv_ffi(%dl, %d, %du, %b) {mhlo.backend_config = {}} : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3x1xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3x1xf64>, tensor<i32>)
  check.expect_eq_const %r#4, dense<2> : tensor<i32>
  func.return
}
