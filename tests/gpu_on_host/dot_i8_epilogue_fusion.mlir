func.func @main(%a: tensor<6x9xi8>, %b: tensor<9x5xi8>, %c: tensor<6x5xi32>) -> tensor<6x5xi32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<6x9xi8>, tensor<9x5xi8>) -> tensor<6x5xi32>
  %1 = stablehlo.multiply %0, %c : tensor<6x5xi32>
  %2 = stablehlo.add %1, %0 : tensor<6x5xi32>
  return %2 : tensor<6x5xi32>
}
