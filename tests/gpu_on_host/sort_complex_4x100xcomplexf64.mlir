func.func @main(%arg0: tensor<4x100xcomplex<f64>>) -> tensor<4x100xcomplex<f64>> {
  %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%arg1: tensor<complex<f64>>, %arg2: tensor<complex<f64>>):
    %1 = stablehlo.real %arg1 : (tensor<complex<f64>>) -> tensor<f64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %2 = stablehlo.compare EQ, %1, %cst, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %3 = stablehlo.select %2, %cst_0, %1 : tensor<i1>, tensor<f64>
    %4 = stablehlo.compare NE, %1, %1, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %cst_1 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %5 = stablehlo.select %4, %cst_1, %3 : tensor<i1>, tensor<f64>
    %6 = stablehlo.imag %arg1 : (tensor<complex<f64>>) -> tensor<f64>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %7 = stablehlo.compare EQ, %6, %cst_2, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %8 = stablehlo.select %7, %cst_3, %6 : tensor<i1>, tensor<f64>
    %9 = stablehlo.compare NE, %6, %6, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %cst_4 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %10 = stablehlo.select %9, %cst_4, %8 : tensor<i1>, tensor<f64>
    %11 = stablehlo.real %arg2 : (tensor<complex<f64>>) -> tensor<f64>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %12 = stablehlo.compare EQ, %11, %cst_5, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %13 = stablehlo.select %12, %cst_6, %11 : tensor<i1>, tensor<f64>
    %14 = stablehlo.compare NE, %11, %11, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %cst_7 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %15 = stablehlo.select %14, %cst_7, %13 : tensor<i1>, tensor<f64>
    %16 = stablehlo.imag %arg2 : (tensor<complex<f64>>) -> tensor<f64>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %17 = stablehlo.compare EQ, %16, %cst_8, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %18 = stablehlo.select %17, %cst_9, %16 : tensor<i1>, tensor<f64>
    %19 = stablehlo.compare NE, %16, %16, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %cst_10 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %20 = stablehlo.select %19, %cst_10, %18 : tensor<i1>, tensor<f64>
    %21 = stablehlo.compare LT, %10, %20, TOTALORDER : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %22 = stablehlo.compare LT, %5, %15, TOTALORDER : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %23 = stablehlo.compare EQ, %5, %15, TOTALORDER : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %24 = stablehlo.and %23, %21 : tensor<i1>
    %25 = stablehlo.or %22, %24 : tensor<i1>
    stablehlo.return %25 : tensor<i1>
  }) : (tensor<4x100xcomplex<f64>>) -> tensor<4x100xcomplex<f64>>
  return %0 : tensor<4x100xcomplex<f64>>
}
