// RUN: not kiln-opt --passes=refine_shapes %s 2>&1 | FileCheck %s

// A false shape assertion is an error at its location with JAX's message,
// its placeholders filled with the dimension values.
// CHECK: refine_shapes_errors.mlir:[[@LINE+5]]:3: error: in pass 'refine_shapes': shape assertion failed: n = 4 must be >= 5
func.func @assert_false(%a: tensor<4xf32>) -> tensor<4xf32> {
  %n = stablehlo.get_dimension_size %a, dim = 0 : (tensor<4xf32>) -> tensor<i32>
  %five = stablehlo.constant dense<5> : tensor<i32>
  %ok = stablehlo.compare GE, %n, %five, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %n) {api_version = 2 : i32, error_message = "n = {0} must be >= 5", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  return %a : tensor<4xf32>
}
