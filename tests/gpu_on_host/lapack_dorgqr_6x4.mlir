func.func @main(%a: tensor<2x6x4xf64>, %tau: tensor<2x4xf64>) -> tensor<2x6x4xf64> {
  %0 = stablehlo.custom_call @lapack_dorgqr_ffi(%a, %tau) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]} : (tensor<2x6x4xf64>, tensor<2x4xf64>) -> tensor<2x6x4xf64>
  return %0 : tensor<2x6x4xf64>
}
