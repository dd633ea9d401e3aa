// Gather: a thread per result element, its start index read from the
// indices and clamped so the slice fits (max 0, min 6 - 1 = 5), then one
// load of the operand. Scatter: a loop kernel copies the operand into the
// result, then a thread per update element skips an index outside the
// result (one unsigned compare) and combines: an add is atom.add, a
// multiply (or a body of several ops) a compare-and-swap loop around the
// body, a bare update a store; an element of
// 16 bits swaps the aligned 32-bit word holding it (where in the word:
// the address's bit 1, as LLVM knows such an element is 2-byte aligned).
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null
// RUN: FileCheck %s --input-file %t/cuda_kernels.txt --check-prefix=KERNELS
// RUN: FileCheck %s --input-file %t/k0_gather.sm_80.ptx --check-prefix=GATHER
// RUN: FileCheck %s --input-file %t/k2_scatter.sm_90.ptx --check-prefix=ADD
// RUN: FileCheck %s --input-file %t/k4_scatter.sm_90.ptx --check-prefix=MUL
// RUN: FileCheck %s --input-file %t/k6_scatter.ll --check-prefix=SET
// RUN: FileCheck %s --input-file %t/k8_scatter.sm_90.ptx --check-prefix=HALF
// RUN: FileCheck %s --input-file %t/k10_scatter.sm_90.ptx --check-prefix=BODY

// KERNELS: kernel k0_gather: stablehlo.gather ({{.*}}gather_scatter.mlir:{{[0-9]+}}:{{.*}}), grid 1 x block 32, 0 B shared: 20 elements, 1 per thread
// KERNELS: kernel k1_loop: stablehlo.scatter ({{.*}}gather_scatter.mlir:{{[0-9]+}}:
// KERNELS: kernel k2_scatter: stablehlo.scatter ({{.*}}gather_scatter.mlir:{{[0-9]+}}:{{.*}}: 30 elements, 1 per thread
// KERNELS-NOT: unsupported

// GATHER: .visible .entry k0_gather(
// GATHER: ld.global.u32 [[START:%r[0-9]+]]
// GATHER: max.s32 [[LOW:%r[0-9]+]], [[START]], 0;
// GATHER: min.s32 {{%r[0-9]+}}, [[LOW]], 5;
// GATHER: ld.global.f32
// GATHER: st.global.f32

// ADD: setp.lt.u32 {{%p[0-9]+}}, {{%r[0-9]+}}, 8;
// ADD: atom.global.add.f32
// MUL: atom.global.cas.b32
// SET: store float
// SET-NOT: atomic
// HALF: and.b64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 2;
// HALF: atom.global.cas.b32
// BODY: mul.rn.f32
// BODY: add.rn.f32
// BODY: atom.global.cas.b32
func.func @main(%x: tensor<6x5xf32>, %i: tensor<4x1xi32>, %acc: tensor<8x3xf32>, %j: tensor<10x1xi32>, %u: tensor<10x3xf32>, %h: tensor<8x3xbf16>, %hu: tensor<10x3xbf16>)
    -> (tensor<4x5xf32>, tensor<8x3xf32>, tensor<8x3xf32>, tensor<8x3xf32>, tensor<8x3xbf16>, tensor<8x3xf32>) {
  %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 5>}> : (tensor<6x5xf32>, tensor<4x1xi32>) -> tensor<4x5xf32>
  %1 = "stablehlo.scatter"(%acc, %j, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<8x3xf32>, tensor<10x1xi32>, tensor<10x3xf32>) -> tensor<8x3xf32>
  %one = stablehlo.constant dense<1.0> : tensor<8x3xf32>
  %2 = "stablehlo.scatter"(%one, %j, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.multiply %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<8x3xf32>, tensor<10x1xi32>, tensor<10x3xf32>) -> tensor<8x3xf32>
  %3 = "stablehlo.scatter"(%acc, %j, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<8x3xf32>, tensor<10x1xi32>, tensor<10x3xf32>) -> tensor<8x3xf32>
  %4 = "stablehlo.scatter"(%h, %j, %hu) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<bf16>, %b: tensor<bf16>):
    %s = stablehlo.add %a, %b : tensor<bf16>
    stablehlo.return %s : tensor<bf16>
  }) : (tensor<8x3xbf16>, tensor<10x1xi32>, tensor<10x3xbf16>) -> tensor<8x3xbf16>
  %5 = "stablehlo.scatter"(%acc, %j, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %sq = stablehlo.multiply %b, %b : tensor<f32>
    %s = stablehlo.add %a, %sq : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<8x3xf32>, tensor<10x1xi32>, tensor<10x3xf32>) -> tensor<8x3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4x5xf32>, tensor<8x3xf32>, tensor<8x3xf32>, tensor<8x3xf32>, tensor<8x3xbf16>, tensor<8x3xf32>
}
