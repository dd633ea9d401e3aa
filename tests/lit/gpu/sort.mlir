// Sort: a block per row, the row's positions (the row length rounded up to
// a power of two) in shared memory ordered by a bitonic network -- the
// comparator applied both ways round per pair, so that ties keep the
// earlier position (the stable order) -- with a barrier after each step;
// then every result read from its operand at the ordered positions. Rows
// longer than 8192 elements are refused.
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null
// RUN: FileCheck %s --input-file %t/cuda_kernels.txt --check-prefix=KERNELS
// RUN: FileCheck %s --input-file %t/k0_sort.sm_80.ptx --check-prefix=PTX

// KERNELS: kernel k0_sort: stablehlo.sort ({{.*}}sort.mlir:{{[0-9]+}}:{{.*}}), grid 16 x block 64, 512 B shared: 16 rows of 100, bitonic over 128 positions, a block per row
// KERNELS: unsupported: the cuda back end cannot compile 'stablehlo.sort' along rows of 10000 elements (at most 8192 are sorted in shared memory) yet

// PTX: .visible .entry k0_sort(
// PTX: .maxntid 64, 1, 1
// PTX: .shared .align 4 .b8 positions[512];
// PTX: bar.sync 0;
// PTX: st.shared.u32
// PTX: bar.sync 0;
// PTX: ld.shared.u32
// PTX: setp.lt.f32
// PTX: setp.lt.f32
// PTX: st.shared.u32
// PTX: bar.sync 0;
// PTX: ld.shared.u32
// PTX: ld.global.f32
// PTX: st.global.f32
// PTX: ld.global.u32
// PTX: st.global.u32
func.func @main(%keys: tensor<16x100xf32>, %values: tensor<16x100xi32>, %long: tensor<10000xf32>) -> (tensor<16x100xf32>, tensor<16x100xi32>, tensor<10000xf32>) {
  %0:2 = "stablehlo.sort"(%keys, %values) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<16x100xf32>, tensor<16x100xi32>) -> (tensor<16x100xf32>, tensor<16x100xi32>)
  %1 = "stablehlo.sort"(%long) <{dimension = 0 : i64, is_stable = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %gt = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %gt : tensor<i1>
  }) : (tensor<10000xf32>) -> tensor<10000xf32>
  return %0#0, %0#1, %1 : tensor<16x100xf32>, tensor<16x100xi32>, tensor<10000xf32>
}
