// RUN: kiln-opt --split-input-file --verify-diagnostics %s
// Type rules of the chlo ops (kiln/ir/ops/chlo_ops.cpp).

func.func @square_of_int(%a: tensor<2xi32>) {
  // expected-error @+1 {{expects operand to be a tensor of floating-point or complex type, got tensor<2xi32>}}
  %0 = chlo.square %a : tensor<2xi32> -> tensor<2xi32>
  return
}

// -----

func.func @erf_inv_result_type(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = chlo.erf_inv %a : tensor<2xf32> -> tensor<2xf64>
  return
}

// -----

func.func @next_after_types(%a: tensor<2xf32>, %b: tensor<2xf64>) {
  // expected-error @+1 {{expects both operands to have the same type, got tensor<2xf32> and tensor<2xf64>}}
  %0 = chlo.next_after %a, %b : tensor<2xf32>, tensor<2xf64> -> tensor<2xf32>
  return
}

// -----

func.func @top_k_too_large(%a: tensor<3x4xf32>) {
  // expected-error @+1 {{expects k in [0, 4] (the last dimension), got 5}}
  %values, %indices = chlo.top_k(%a, k = 5) : tensor<3x4xf32> -> (tensor<3x5xf32>, tensor<3x5xi32>)
  return
}

// -----

func.func @top_k_scalar(%a: tensor<f32>) {
  // expected-error @+1 {{expects operand to have rank >= 1, got tensor<f32>}}
  %values, %indices = chlo.top_k(%a, k = 0) : tensor<f32> -> (tensor<f32>, tensor<i32>)
  return
}

// -----

func.func @top_k_index_type(%a: tensor<3x4xf32>) {
  // expected-error @+1 {{result #1 has type tensor<3x2xi64> but its operands and attributes give tensor<3x2xi32>}}
  %values, %indices = chlo.top_k(%a, k = 2) : tensor<3x4xf32> -> (tensor<3x2xf32>, tensor<3x2xi64>)
  return
}

// -----

func.func @missing_arrow(%a: tensor<2xf32>) {
  // The types end at the line break; the error points at the next token.
  // expected-error @+2 {{expected '->' before the result types, found 'return'}}
  %0 = chlo.erf %a : tensor<2xf32>
  return
}
