func.func @main(%a: tensor<2x4x4xcomplex<f64>>, %b: tensor<2x4x3xcomplex<f64>>) -> tensor<2x4x3xcomplex<f64>> {
  %0 = stablehlo.custom_call @lapack_ztrsm_ffi(%a, %b) {backend_config = "", mhlo.backend_config = {diag = 85 : ui8, side = 76 : ui8, trans_x = 67 : ui8, uplo = 85 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]} : (tensor<2x4x4xcomplex<f64>>, tensor<2x4x3xcomplex<f64>>) -> tensor<2x4x3xcomplex<f64>>
  return %0 : tensor<2x4x3xcomplex<f64>>
}
