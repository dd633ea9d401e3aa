// `kiln run --backend cpu`: the program is compiled with LLVM and run
// natively; ops the cpu back end cannot compile yet are errors naming the op
// and its location (never a silent fallback to the interpreter).

// Bias add (a trailing-dim broadcast), relu, and a predicate result.
// RUN: kiln run %s --backend cpu --input-literal 'dense<[[-1.0, 2.0, 3.5], [0.5, -4.0, 1.0]]> : tensor<2x3xf32>' --input-literal 'dense<[1.0, -1.0, 0.5]> : tensor<3xf32>' | FileCheck %s --check-prefix=RELU
// RELU: dense<{{\[\[}}0.000000e+00, 1.000000e+00, 4.000000e+00], [1.500000e+00, 0.000000e+00, 1.500000e+00]]> : tensor<2x3xf32>
// RELU-NEXT: dense<[true, false, true]> : tensor<3xi1>
func.func @main(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xi1>) {
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %s = stablehlo.add %x, %bb : tensor<2x3xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<2x3xf32>
  %r = stablehlo.maximum %s, %zero : tensor<2x3xf32>
  %zeros = stablehlo.constant dense<0.0> : tensor<3xf32>
  %pos = stablehlo.compare GT, %b, %zeros, FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return %r, %pos : tensor<2x3xf32>, tensor<3xi1>
}

// Integer division as XLA defines it: x / 0 = -1, INT_MIN / -1 = INT_MIN.
// RUN: kiln run %s --backend cpu --entry divide --input-literal 'dense<[7, -7, -2147483648, 5]> : tensor<4xi32>' --input-literal 'dense<[2, 2, -1, 0]> : tensor<4xi32>' | FileCheck %s --check-prefix=DIV
// DIV: dense<[3, -3, -2147483648, -1]> : tensor<4xi32>
func.func @divide(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %q = stablehlo.divide %x, %y : tensor<4xi32>
  return %q : tensor<4xi32>
}

// RUN: not kiln run %s --backend cpu --entry sorted --input-literal 'dense<[3.0, 1.0]> : tensor<2xf32>' 2>&1 | FileCheck %s --check-prefix=NOSORT
// NOSORT: kiln run: {{.*}}kiln-run-cpu.mlir:[[@LINE+2]]:8: error: the cpu back end cannot compile 'stablehlo.sort' yet ({{.*}}kiln-run-cpu.mlir:[[@LINE+2]]:8)
func.func @sorted(%x: tensor<2xf32>) -> tensor<2xf32> {
  %s = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<2xf32>) -> tensor<2xf32>
  return %s : tensor<2xf32>
}
