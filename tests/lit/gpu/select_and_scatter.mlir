// select_and_scatter (a max-pool's gradient): a thread per result element,
// folding with the scatter body, from the init value, the source element
// of every window that selects it -- the windows holding it walked in the
// interpreter's order, each one's selection recomputed by its select body
// -- so there are no atomics and the sums are the interpreter's, in its
// order.
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null
// RUN: FileCheck %s --input-file %t/cuda_kernels.txt --check-prefix=KERNELS
// RUN: FileCheck %s --input-file %t/k0_select_scatter.sm_80.ptx --check-prefix=PTX

// KERNELS: kernel k0_select_scatter: stablehlo.select_and_scatter ({{.*}}select_and_scatter.mlir:{{[0-9]+}}:{{.*}}), grid 7 x block 256, 0 B shared: 1680 elements, 1 per thread
// KERNELS-NOT: unsupported

// PTX: .visible .entry k0_select_scatter(
// PTX: .maxntid 256, 1, 1
// The select body (GE), then the scatter body (add) where the window selected this element.
// PTX: setp.{{.*}}.f32
// PTX: add.rn.f32
// PTX-NOT: atom.
// PTX: st.global.f32
func.func @main(%x: tensor<2x14x12x5xf32>, %g: tensor<2x7x6x5xf32>) -> tensor<2x14x12x5xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.select_and_scatter"(%x, %g, %zero) <{padding = dense<[[0, 0], [1, 1], [0, 0], [0, 0]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 3, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %ge = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %ge : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<2x14x12x5xf32>, tensor<2x7x6x5xf32>, tensor<f32>) -> tensor<2x14x12x5xf32>
  return %0 : tensor<2x14x12x5xf32>
}
