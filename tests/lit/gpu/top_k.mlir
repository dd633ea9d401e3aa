// chlo.top_k: the cuda pipeline's expand_top_k rewrites it as a stable sort
// of the row, largest first (TOTALORDER for floats: NaNs of either sign
// where the interpreter's top_k puts them), together with an iota of
// positions, then slices of the first k; the sort is the bitonic sort
// kernel, the slices loop kernels.
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null
// RUN: FileCheck %s --input-file %t/cuda_kernels.txt --check-prefix=KERNELS
// RUN: FileCheck %s --input-file %t/k0_sort.sm_90.ptx --check-prefix=PTX
// RUN: kiln-opt %s --passes=expand_top_k | FileCheck %s --check-prefix=IR

// KERNELS: kernel k0_sort: stablehlo.sort ({{.*}}top_k.mlir:{{[0-9]+}}:{{.*}}), grid 3 x block 32, 128 B shared: 3 rows of 20, bitonic over 32 positions, a block per row
// KERNELS: kernel k1_loop: stablehlo.slice ({{.*}}top_k.mlir:{{[0-9]+}}:{{.*}}), grid 1 x block 32, 0 B shared: 15 elements, 4 per thread
// KERNELS: kernel k2_loop: stablehlo.slice
// KERNELS-NOT: unsupported

// PTX: .visible .entry k0_sort(
// PTX: bar.sync 0;
// PTX: st.shared.u32
// PTX: ld.global.u32
// PTX: setp.gt.s32

// IR: %[[IOTA:.*]] = stablehlo.iota dim = 1 : tensor<3x20xi32>
// IR: %[[SORTED:.*]]:2 = "stablehlo.sort"(%arg0, %[[IOTA]]) <{dimension = 1 : i64, is_stable = true}>
// IR: stablehlo.compare GT, %{{.*}}, %{{.*}}, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
// IR: stablehlo.slice %[[SORTED]]#0 [0:3, 0:5] : (tensor<3x20xf32>) -> tensor<3x5xf32>
// IR: stablehlo.slice %[[SORTED]]#1 [0:3, 0:5] : (tensor<3x20xi32>) -> tensor<3x5xi32>
// IR-NOT: chlo.top_k
func.func @main(%arg0: tensor<3x20xf32>) -> (tensor<3x5xf32>, tensor<3x5xi32>) {
  %values, %indices = chlo.top_k(%arg0, k = 5) : tensor<3x20xf32> -> (tensor<3x5xf32>, tensor<3x5xi32>)
  return %values, %indices : tensor<3x5xf32>, tensor<3x5xi32>
}
