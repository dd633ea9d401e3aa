// stablehlo.composite: the cuda pipeline replaces each composite by its
// decomposition's body (inline_composites, nested ones too), so its ops
// fuse and compile as any others; the decomposition functions are dropped.
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null
// RUN: FileCheck %s --input-file %t/cuda_kernels.txt --check-prefix=KERNELS
// RUN: FileCheck %s --input-file %t/k0_loop.sm_80.ptx --check-prefix=PTX
// RUN: kiln-opt %s --passes=inline_composites,inline | FileCheck %s --check-prefix=IR

// KERNELS: kernel k0_loop: kiln.fusion ({{.*}}composite.mlir:{{[0-9]+}}:{{.*}}), grid 1 x block 32, 0 B shared: 6 elements, 4 per thread
// KERNELS-NOT: unsupported

// PTX: .visible .entry k0_loop(
// PTX: ld.global.f64
// PTX: mul.rn.f64 {{.*}}, 0d3FE0000000000000;
// PTX: add.rn.f64 {{.*}}, 0d3FF0000000000000;
// PTX: add.rn.f64
// PTX: st.global.f64

// IR: func.func @main(
// IR-NOT: stablehlo.composite
// IR: stablehlo.multiply
// IR: stablehlo.add
// IR: stablehlo.multiply
// IR-NOT: func.func
func.func @main(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %0 = stablehlo.composite "kiln.test.nested" %x {decomposition = @nested} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}
func.func private @nested(%arg0: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %0 = stablehlo.composite "kiln.test.scale_shift" %arg0 {composite_attributes = {scale = 5.000000e-01 : f64}, decomposition = @scale_shift, version = 2 : i32} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %cst = stablehlo.constant dense<2.000000e+00> : tensor<f64>
  %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<2x3xf64>
  %2 = stablehlo.multiply %0, %1 : tensor<2x3xf64>
  return %2 : tensor<2x3xf64>
}
func.func private @scale_shift(%arg0: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %cst = stablehlo.constant dense<5.000000e-01> : tensor<f64>
  %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<2x3xf64>
  %1 = stablehlo.multiply %arg0, %0 : tensor<2x3xf64>
  %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
  %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<2x3xf64>
  %3 = stablehlo.add %1, %2 : tensor<2x3xf64>
  return %3 : tensor<2x3xf64>
}
