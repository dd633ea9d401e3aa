func.func @main(%a: tensor<3x5x5xcomplex<f64>>) -> (tensor<3x5x5xcomplex<f64>>, tensor<3xi32>) {
  %0:2 = stablehlo.custom_call @lapack_zpotrf_ffi(%a) {backend_config = "", mhlo.backend_config = {uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>]} : (tensor<3x5x5xcomplex<f64>>) -> (tensor<3x5x5xcomplex<f64>>, tensor<3xi32>)
  return %0#0, %0#1 : tensor<3x5x5xcomplex<f64>>, tensor<3xi32>
}
