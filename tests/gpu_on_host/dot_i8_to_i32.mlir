func.func @main(%a: tensor<6x9xi8>, %b: tensor<9x2x3xi8>) -> tensor<6x2x3xi32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<6x9xi8>, tensor<9x2x3xi8>) -> tensor<6x2x3xi32>
  return %0 : tensor<6x2x3xi32>
}
