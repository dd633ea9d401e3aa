// An argument split unevenly (6 over 4 devices): kiln run --spmd reports it
// at the function (kiln-run-spmd.test).
module {
  sdy.mesh @mesh = <["x"=4]>
  func.func @main(%x: tensor<6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> tensor<6xf32> {
    %y = stablehlo.add %x, %x : tensor<6xf32>
    return %y : tensor<6xf32>
  }
}
