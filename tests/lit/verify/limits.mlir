// RUN: kiln-opt --split-input-file --verify-diagnostics %s
// Limits: sizes that cannot be represented are errors where they are
// written, before anything is allocated (docs/ops.md, "Limits").

// A product of dimensions past 2^63 bytes (each dimension is below 2^48).
// expected-error @+1 {{tensor type tensor<2147483648x2147483648x4xf32> holds more than 2^63 bytes}}
func.func @too_many_bytes(%a: tensor<2147483648x2147483648x4xf32>) {
  return
}

// -----

// expected-error @+1 {{tensor dimension is too large}}
func.func @dimension_too_large(%a: tensor<281474976710657xf32>) {
  return
}

// -----

func.func @pad_overflow(%a: tensor<3xf32>, %p: tensor<f32>) {
  // expected-error @+1 {{has a result size in dimension 0 that overflows int64}}
  %0 = stablehlo.pad %a, %p, low = [9223372036854775807], high = [9223372036854775807], interior = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return
}
