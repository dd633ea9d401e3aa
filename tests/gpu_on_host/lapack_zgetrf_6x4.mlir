func.func @main(%a: tensor<2x6x4xcomplex<f64>>) -> (tensor<2x6x4xcomplex<f64>>, tensor<2x4xi32>, tensor<2xi32>) {
  %0:3 = stablehlo.custom_call @lapack_zgetrf_ffi(%a) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<2x6x4xcomplex<f64>>) -> (tensor<2x6x4xcomplex<f64>>, tensor<2x4xi32>, tensor<2xi32>)
  return %0#0, %0#1, %0#2 : tensor<2x6x4xcomplex<f64>>, tensor<2x4xi32>, tensor<2xi32>
}
