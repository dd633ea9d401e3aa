func.func @main(%a: tensor<2x5x5xf32>, %tau: tensor<2x5xf32>) -> tensor<2x5x5xf32> {
  %0 = stablehlo.custom_call @lapack_sorgqr_ffi(%a, %tau) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]} : (tensor<2x5x5xf32>, tensor<2x5xf32>) -> tensor<2x5x5xf32>
  return %0 : tensor<2x5x5xf32>
}
