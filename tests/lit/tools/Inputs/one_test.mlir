// One passing `kiln test` test (kiln-flags.test).
func.func @one_plus_one() {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %two = stablehlo.add %one, %one : tensor<i32>
  check.expect_eq_const %two, dense<2> : tensor<i32>
  return
}
