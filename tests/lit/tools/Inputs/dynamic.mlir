// A parameter with a dynamic dimension (kiln-run-errors.test).
func.func @main(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}
