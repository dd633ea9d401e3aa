// RUN: kiln-opt --split-input-file --verify-diagnostics %s
// Negative tests of the ops beyond the specification (deprecated ops, the
// dialect's dynamism ops, interpreter.*), of the complex chlo forms, and of
// the rules on '?' dimensions (docs/ops.md, "Beyond the specification").

// dot: lhs rank 1 or 2
func.func @dot_rank(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{expects lhs and rhs of rank 1 or 2, got tensor<2x3x4xf32> and tensor<4x5xf32>}}
  %0 = stablehlo.dot %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return
}

// -----
// dot: contracted sizes agree
func.func @dot_sizes(%a: tensor<3x4xf32>, %b: tensor<5x6xf32>) {
  // expected-error @+1 {{expects the last dimension of lhs to equal the first of rhs, got tensor<3x4xf32> and tensor<5x6xf32>}}
  %0 = stablehlo.dot %a, %b : (tensor<3x4xf32>, tensor<5x6xf32>) -> tensor<3x6xf32>
  return
}

// -----
// einsum: a term per operand dimension
func.func @einsum_term_rank(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{expects term 'abc' to name the 2 dimensions of tensor<3x4xf32>}}
  %0 = stablehlo.einsum %a, %b, config = "abc,cd->ad" : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return
}

// -----
// einsum: a label has one size
func.func @einsum_label_size(%a: tensor<3x4xf32>, %b: tensor<5x6xf32>) {
  // expected-error @+1 {{expects label 'b' to have one size, got 4 and 5}}
  %0 = stablehlo.einsum %a, %b, config = "ab,bc->ac" : (tensor<3x4xf32>, tensor<5x6xf32>) -> tensor<3x6xf32>
  return
}

// -----
// einsum: output labels come from the inputs
func.func @einsum_output_label(%a: tensor<3x4xf32>) {
  // expected-error @+1 {{einsum config 'ab->az': output label 'z' is in no input}}
  %0 = stablehlo.unary_einsum %a, config = "ab->az" : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----
// einsum: ellipses are not supported
func.func @einsum_ellipsis(%a: tensor<3x4xf32>) {
  // expected-error @+1 {{einsum config '...b->b': only letters are supported as labels, got '.' (ellipses are not supported)}}
  %0 = stablehlo.unary_einsum %a, config = "...b->b" : (tensor<3x4xf32>) -> tensor<4xf32>
  return
}

// -----
// broadcast: result = sizes ++ shape(operand)
func.func @broadcast_result(%a: tensor<3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3x2xf32> but its operands and attributes give tensor<2x3xf32>}}
  %0 = stablehlo.broadcast %a, sizes = [2] : (tensor<3xf32>) -> tensor<3x2xf32>
  return
}

// -----
// torch_index_select: dim in range
func.func @torch_index_select_dim(%a: tensor<3x4xf32>, %i: tensor<2xi32>) {
  // expected-error @+1 {{expects dim in [0, 2), got 2}}
  %0 = "stablehlo.torch_index_select"(%a, %i) {dim = 2 : i64, batch_dims = 0 : i64} : (tensor<3x4xf32>, tensor<2xi32>) -> tensor<3x2xf32>
  return
}

// -----
// torch_index_select: batch dims agree
func.func @torch_index_select_batch(%a: tensor<3x4xf32>, %i: tensor<2x5xi32>) {
  // expected-error @+1 {{expects the batch dimensions of operand and index to agree, got tensor<3x4xf32> and tensor<2x5xi32>}}
  %0 = "stablehlo.torch_index_select"(%a, %i) {dim = 1 : i64, batch_dims = 1 : i64} : (tensor<3x4xf32>, tensor<2x5xi32>) -> tensor<3x5xf32>
  return
}

// -----
// cross-replica-sum: 2-d replica groups
func.func @cross_replica_sum_groups(%a: tensor<4xf32>) {
  // expected-error @+1 {{requires a 2-dimensional integer tensor attribute 'replica_groups'}}
  %0 = "stablehlo.cross-replica-sum"(%a) {replica_groups = dense<0> : tensor<2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----
// create_token: no operands
func.func @create_token_operands(%t: !stablehlo.token) {
  // expected-error @+1 {{expects 0 operands, got 1}}
  %0 = "stablehlo.create_token"(%t) : (!stablehlo.token) -> !stablehlo.token
  return
}

// -----
// real_dynamic_slice: one bound per operand dimension
func.func @real_dynamic_slice_bounds(%a: tensor<4x4xf32>, %s: tensor<1xi64>) {
  // expected-error @+1 {{expects start_indices to have 2 elements, got 1}}
  %0 = stablehlo.real_dynamic_slice %a, %s, %s, %s : (tensor<4x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?xf32>
  return
}

// -----
// real_dynamic_slice: bounds of one type
func.func @real_dynamic_slice_types(%a: tensor<4xf32>, %s: tensor<1xi64>, %t: tensor<1xi32>) {
  // expected-error @+1 {{expects start_indices, limit_indices and strides of one type, got (tensor<1xi64>, tensor<1xi32>, tensor<1xi64>)}}
  %0 = stablehlo.real_dynamic_slice %a, %s, %t, %s : (tensor<4xf32>, tensor<1xi64>, tensor<1xi32>, tensor<1xi64>) -> tensor<?xf32>
  return
}

// -----
// set_dimension_size: size is a tensor<i32>
func.func @set_dimension_size_size(%a: tensor<4xf32>, %n: tensor<i64>) {
  // expected-error @+1 {{expects size to be a tensor<i32>, got tensor<i64>}}
  %0 = stablehlo.set_dimension_size %a, %n, dim = 0 : (tensor<4xf32>, tensor<i64>) -> tensor<?xf32>
  return
}

// -----
// set_dimension_size: only the dimension changes
func.func @set_dimension_size_other_dim(%a: tensor<4x3xf32>, %n: tensor<i32>) {
  // expected-error @+1 {{expects the result to differ from the operand only in dimension 0, got tensor<?x2xf32>}}
  %0 = stablehlo.set_dimension_size %a, %n, dim = 0 : (tensor<4x3xf32>, tensor<i32>) -> tensor<?x2xf32>
  return
}

// -----
// interpreter.probe: probe_id required
func.func @probe_id(%a: tensor<4xf32>) {
  // expected-error @+1 {{requires a non-empty string attribute 'probe_id'}}
  %0 = "interpreter.probe"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----
// interpreter.print: result = operand type
func.func @print_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{result #0 has type tensor<4xi32> but its operands and attributes give tensor<4xf32>}}
  %0 = "interpreter.print"(%a) : (tensor<4xf32>) -> tensor<4xi32>
  return
}

// -----
// chlo.acos: floating-point or complex
func.func @acos_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{expects operand to be a tensor of floating-point or complex type, got tensor<4xi32>}}
  %0 = chlo.acos %a : tensor<4xi32> -> tensor<4xi32>
  return
}

// -----
// chlo.erf stays real-only
func.func @erf_complex(%a: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{expects operand to be a tensor of floating-point type, got tensor<4xcomplex<f32>>}}
  %0 = chlo.erf %a : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
  return
}

// -----
// chlo.top_k takes no complex operand
func.func @top_k_complex(%a: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{expects operand to be a tensor of boolean, integer or floating-point type, got tensor<4xcomplex<f32>>}}
  %values, %indices = chlo.top_k(%a, k = 2) : tensor<4xcomplex<f32>> -> (tensor<2xcomplex<f32>>, tensor<2xi32>)
  return
}

// -----
// dynamic shapes: static sizes still checked where both are known
func.func @dynamic_add(%a: tensor<?x3xf32>, %b: tensor<?x4xf32>) {
  // expected-error @+1 {{expects lhs and rhs to have the same type, got tensor<?x3xf32> and tensor<?x4xf32>}}
  %0 = stablehlo.add %a, %b : (tensor<?x3xf32>, tensor<?x4xf32>) -> tensor<?x3xf32>
  return
}

// -----
// dynamic shapes: a declared result must be compatible with the inferred one
func.func @dynamic_transpose(%a: tensor<?x3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<4x?xf32> but its operands and attributes give tensor<3x?xf32>}}
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<?x3xf32>) -> tensor<4x?xf32>
  return
}
