// A module that declares no replicas at all (kiln-run-cpu.mlir).
module attributes {mhlo.num_replicas = 0 : i32} {
  func.func @main() -> tensor<i32> {
    %c = stablehlo.constant dense<1> : tensor<i32>
    return %c : tensor<i32>
  }
}
