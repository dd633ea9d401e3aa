// `kiln run`: inputs from .npy files and literals, results printed as
// literals or saved as .npy, and the errors for inputs that do not fit.
// The .npy fixtures in tests/data/npy were written by numpy (see its README).

// Default entry @main; one input from numpy's f32 [[-1, -0.5, 0], [0.5, 1, 1.5]], one literal.
// RUN: kiln run %s --input %S/../../data/npy/f32_2x3.npy --input-literal 'dense<[10.0, 20.0, 30.0]> : tensor<3xf32>' | FileCheck %s --check-prefix=MAIN
// MAIN: dense<{{\[\[}}9.000000e+00, 1.950000e+01, 3.000000e+01], [1.050000e+01, 2.100000e+01, 3.150000e+01]]> : tensor<2x3xf32>
// MAIN-NEXT: dense<7> : tensor<i32>
func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<i32>) {
  %b = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %s = stablehlo.add %arg0, %b : tensor<2x3xf32>
  %c = stablehlo.constant dense<7> : tensor<i32>
  return %s, %c : tensor<2x3xf32>, tensor<i32>
}

// Saved results read back: --output-dir alone prints nothing, --print prints too.
// RUN: rm -rf %t && kiln run %s --input %S/../../data/npy/f32_2x3.npy --input-literal 'dense<[10.0, 20.0, 30.0]> : tensor<3xf32>' --output-dir %t | count 0
// RUN: kiln run %s --entry sum_f32 --input %t/result0.npy | FileCheck %s --check-prefix=SAVED
// SAVED: dense<1.215000e+02> : tensor<f32>
// RUN: kiln run %s --entry identity_i32 --input %t/result1.npy | FileCheck %s --check-prefix=SAVEDI32
// SAVEDI32: dense<7> : tensor<i32>
func.func @sum_f32(%arg0: tensor<2x3xf32>) -> tensor<f32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%arg0 init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
func.func @identity_i32(%arg0: tensor<i32>) -> tensor<i32> {
  return %arg0 : tensor<i32>
}

// bf16 and int4 as numpy saves them from ml_dtypes (raw descrs), round-tripped
// through kiln's own .npy output (which names the ml_dtypes type).
// RUN: kiln run %s --entry negate_bf16 --input %S/../../data/npy/bf16_raw.npy --output-dir %t/bf16 --print | FileCheck %s --check-prefix=BF16
// BF16: dense<[-1.000000e+00, 2.500000e+00, -3.140630e+00]> : tensor<3xbf16>
// RUN: kiln run %s --entry negate_bf16 --input %t/bf16/result0.npy | FileCheck %s --check-prefix=BF16BACK
// BF16BACK: dense<[1.000000e+00, -2.500000e+00, 3.140630e+00]> : tensor<3xbf16>
func.func @negate_bf16(%arg0: tensor<3xbf16>) -> tensor<3xbf16> {
  %0 = stablehlo.negate %arg0 : tensor<3xbf16>
  return %0 : tensor<3xbf16>
}
// RUN: kiln run %s --entry identity_i4 --input %S/../../data/npy/int4_raw.npy | FileCheck %s --check-prefix=INT4
// INT4: dense<[-8, -1, 7]> : tensor<3xi4>
func.func @identity_i4(%arg0: tensor<3xi4>) -> tensor<3xi4> {
  return %arg0 : tensor<3xi4>
}

// Tuple results are saved element by element.
// RUN: kiln run %s --entry pair --output-dir %t/pair --print | FileCheck %s --check-prefix=PAIR
// PAIR: dense<[true, false]> : tensor<2xi1>
// PAIR-NEXT: dense<2.500000e+00> : tensor<f64>
// RUN: kiln run %s --entry identity_i1 --input %t/pair/result0_0.npy | FileCheck %s --check-prefix=PAIR0
// PAIR0: dense<[true, false]> : tensor<2xi1>
func.func @pair() -> tuple<tensor<2xi1>, tensor<f64>> {
  %b = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %c = stablehlo.constant dense<2.5> : tensor<f64>
  %t = stablehlo.tuple %b, %c : tuple<tensor<2xi1>, tensor<f64>>
  return %t : tuple<tensor<2xi1>, tensor<f64>>
}
func.func @identity_i1(%arg0: tensor<2xi1>) -> tensor<2xi1> {
  return %arg0 : tensor<2xi1>
}

// Quantized tensors travel as their storage integers: [1, -5] at scale 0.5,
// zero point 3 is stored as [5, -7].
// RUN: kiln run %s --entry quantize --input-literal 'dense<[1.0, -5.0]> : tensor<2xf32>' --output-dir %t/q --print | FileCheck %s --check-prefix=QUANT
// QUANT: dense<[5, -7]> : tensor<2x!quant.uniform<i8:f32, {{.*}}>>
// RUN: kiln run %s --entry dequantize --input %t/q/result0.npy | FileCheck %s --check-prefix=DEQUANT
// RUN: kiln run %s --entry dequantize --input-literal 'dense<[5, -7]> : tensor<2xi8>' | FileCheck %s --check-prefix=DEQUANT
// DEQUANT: dense<[1.000000e+00, -5.000000e+00]> : tensor<2xf32>
func.func @quantize(%arg0: tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>> {
  %0 = stablehlo.uniform_quantize %arg0 : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>
  return %0 : tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>
}
func.func @dequantize(%arg0: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<2xf32> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// Inputs that do not fit name the parameter.
// RUN: not kiln run %s --input %S/../../data/npy/f32_2x3.npy 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: kiln run: error: @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) takes 2 input(s), 1 given
// RUN: not kiln run %s --input %S/../../data/npy/f32_2x3.npy --input %S/../../data/npy/c128_2.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: kiln run: error: input 1 (%arg1): expected tensor<3xf32>, got complex128 array of shape (2,) (from {{.*}}c128_2.npy)
// RUN: not kiln run %s --input %S/../../data/npy/f32_0x3.npy --input-literal 'dense<1.0> : tensor<3xf32>' 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: kiln run: error: input 0 (%arg0): expected tensor<2x3xf32>, got float32 array of shape (0, 3)
// RUN: not kiln run %s --input %S/../../data/npy/f32_2x3.npy --input-literal 'dense<[1.0, 2.0]> : tensor<2xf32>' 2>&1 | FileCheck %s --check-prefix=LITERAL
// LITERAL: kiln run: error: input 1 (%arg1): expected tensor<3xf32>, got a literal of type tensor<2xf32>
// RUN: not kiln run %s --input %S/../../data/npy/f32_2x3.npy --input-literal '[1.0, 2.0]' 2>&1 | FileCheck %s --check-prefix=NOTDENSE
// NOTDENSE: kiln run: error: input 1 (%arg1): {{.*}}
// RUN: not kiln run %s --input %S/../../data/npy/f32_2x3.npy --input %s 2>&1 | FileCheck %s --check-prefix=NOTNPY
// NOTNPY: kiln run: error: input 1 (%arg1): {{.*}}kiln-run.mlir: not a .npy file
// RUN: not kiln run %s --entry identity_i4 --input %S/../../data/npy/bf16_raw.npy 2>&1 | FileCheck %s --check-prefix=RAW
// RAW: kiln run: error: input 0 (%arg0): expected tensor<3xi4>, got raw 2-byte ('<V2') array of shape (3,)
// RUN: not kiln run %s --entry no_such_function 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: kiln run: error: no function @no_such_function in {{.*}}kiln-run.mlir

// Without @main the only public function runs; with several, --entry is needed.
// RUN: echo 'func.func private @helper() { return } func.func @only() -> tensor<i8> { %%0 = stablehlo.constant dense<-3> : tensor<i8> return %%0 : tensor<i8> }' > %t.only.mlir
// RUN: kiln run %t.only.mlir | FileCheck %s --check-prefix=ONLY
// ONLY: dense<-3> : tensor<i8>
// RUN: echo 'func.func @a() { return } func.func @b() { return }' > %t.two.mlir
// RUN: not kiln run %t.two.mlir 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: kiln run: error: {{.*}}.two.mlir has no @main and several public functions (@a, @b); choose one with --entry

// A runtime error is reported with its location.
// RUN: not kiln run %s --entry fails_at_runtime 2>&1 | FileCheck %s --check-prefix=RUNTIME
// RUNTIME: kiln run: {{.*}}kiln-run.mlir:[[@LINE+2]]:{{[0-9]+}}: error: {{.*}}no_such_target
func.func @fails_at_runtime() -> tensor<f32> {
  %0 = stablehlo.custom_call @no_such_target() : () -> tensor<f32>
  return %0 : tensor<f32>
}
