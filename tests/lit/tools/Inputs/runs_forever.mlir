// A test that passes and one that never ends (kiln-test-timeout.test).
func.func @passes() {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %two = stablehlo.add %one, %one : tensor<i32>
  check.expect_eq_const %two, dense<2> : tensor<i32>
  return
}

func.func @runs_forever() {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r = stablehlo.while(%i = %zero) : tensor<i32>
  cond {
    %t = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    stablehlo.return %i : tensor<i32>
  }
  return
}
