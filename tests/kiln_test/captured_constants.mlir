// Bodies of reduce, reduce_window, scatter, map and sort that read a
// constant defined outside them, as JAX writes a complex sort's comparator:
// the cpu back end runs these bodies on the op's operands alone, so the
// sink_constants pass copies the constant in. (Before it, each failed on cpu
// with "uses a value that has not been computed".)

func.func @reduce_body_reads_outer_constant() {
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 2.0, 2.0, 2.0, 2.0]]> : tensor<2x5xf32>
  %half = stablehlo.constant dense<0.5> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %zero) across dimensions = [1] : (tensor<2x5xf32>, tensor<f32>) -> tensor<2xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>) {
    %m = stablehlo.multiply %b, %half : tensor<f32>
    %s = stablehlo.add %a, %m : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  check.expect_eq_const %r, dense<[7.5, 5.0]> : tensor<2xf32>
  func.return
}

func.func @reduce_window_body_reads_outer_constant() {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  %half = stablehlo.constant dense<0.5> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.reduce_window"(%x, %zero) <{window_dimensions = array<i64: 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.multiply %b, %half : tensor<f32>
    %s = stablehlo.add %a, %m : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<5xf32>, tensor<f32>) -> tensor<4xf32>
  check.expect_eq_const %r, dense<[1.5, 2.5, 3.5, 4.5]> : tensor<4xf32>
  func.return
}

func.func @scatter_body_reads_outer_constant() {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  %half = stablehlo.constant dense<0.5> : tensor<f32>
  %i = stablehlo.constant dense<[[1], [3], [1]]> : tensor<3x1xi32>
  %u = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %r = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.multiply %b, %half : tensor<f32>
    %s = stablehlo.add %a, %m : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<5xf32>, tensor<3x1xi32>, tensor<3xf32>) -> tensor<5xf32>
  check.expect_eq_const %r, dense<[1.0, 4.0, 3.0, 5.0, 5.0]> : tensor<5xf32>
  func.return
}

func.func @map_body_reads_outer_constant() {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  %half = stablehlo.constant dense<0.5> : tensor<f32>
  %r = "stablehlo.map"(%x, %x) <{dimensions = array<i64: 0>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.multiply %b, %half : tensor<f32>
    %s = stablehlo.add %a, %m : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  check.expect_eq_const %r, dense<[1.5, 3.0, 4.5, 6.0, 7.5]> : tensor<5xf32>
  func.return
}

// jnp.sort of complex numbers (via jnp.linalg.eigvals' sort_complex): the
// comparator maps -0 to 0 and NaN to one NaN with constants defined beside
// the sort, then orders by real part, then imaginary part. Stable: -0 and 0
// keep their order.
func.func @complex_sort_comparator_reads_outer_constants() {
  %x = stablehlo.constant dense<[(3.0, 1.0), (-0.0, 0.0), (1.0, 2.0), (0.0, -1.0), (1.0, -2.0), (0.0, 0.0)]> : tensor<6xcomplex<f32>>
  %nan = stablehlo.constant dense<0x7FC00000> : tensor<f32>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = "stablehlo.sort"(%x) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%arg1: tensor<complex<f32>>, %arg2: tensor<complex<f32>>):
    %1 = stablehlo.real %arg1 : (tensor<complex<f32>>) -> tensor<f32>
    %2 = stablehlo.compare EQ, %1, %zero, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %3 = stablehlo.select %2, %zero, %1 : tensor<i1>, tensor<f32>
    %4 = stablehlo.compare NE, %1, %1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %5 = stablehlo.select %4, %nan, %3 : tensor<i1>, tensor<f32>
    %6 = stablehlo.imag %arg1 : (tensor<complex<f32>>) -> tensor<f32>
    %7 = stablehlo.compare EQ, %6, %zero, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %8 = stablehlo.select %7, %zero, %6 : tensor<i1>, tensor<f32>
    %9 = stablehlo.compare NE, %6, %6, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %10 = stablehlo.select %9, %nan, %8 : tensor<i1>, tensor<f32>
    %11 = stablehlo.real %arg2 : (tensor<complex<f32>>) -> tensor<f32>
    %12 = stablehlo.compare EQ, %11, %zero, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %13 = stablehlo.select %12, %zero, %11 : tensor<i1>, tensor<f32>
    %14 = stablehlo.compare NE, %11, %11, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %15 = stablehlo.select %14, %nan, %13 : tensor<i1>, tensor<f32>
    %16 = stablehlo.imag %arg2 : (tensor<complex<f32>>) -> tensor<f32>
    %17 = stablehlo.compare EQ, %16, %zero, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %18 = stablehlo.select %17, %zero, %16 : tensor<i1>, tensor<f32>
    %19 = stablehlo.compare NE, %16, %16, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %20 = stablehlo.select %19, %nan, %18 : tensor<i1>, tensor<f32>
    %21 = stablehlo.compare LT, %10, %20, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %22 = stablehlo.compare LT, %5, %15, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %23 = stablehlo.compare EQ, %5, %15, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %24 = stablehlo.and %23, %21 : tensor<i1>
    %25 = stablehlo.or %22, %24 : tensor<i1>
    stablehlo.return %25 : tensor<i1>
  }) : (tensor<6xcomplex<f32>>) -> tensor<6xcomplex<f32>>
  check.expect_eq_const %0, dense<[(0.0, -1.0), (-0.0, 0.0), (0.0, 0.0), (1.0, -2.0), (1.0, 2.0), (3.0, 1.0)]> : tensor<6xcomplex<f32>>
  func.return
}
