// What cuBLASLt does not take -- integer and mixed dots, operands it cannot
// read in place (batch dims last), output fusions of those -- and every
// convolution run as contraction kernels: a thread per result element
// (grid-stride), each a loop over its sum in the interpreter's order and
// carrier: floats multiply and add in double (mul.rn/add.rn: never fused
// into an fma) and round once, integers wrap in 64 bits. An output
// fusion's epilogue is applied to the element in the same kernel.
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null 2>&1 | FileCheck %s --check-prefix=STDERR
// RUN: FileCheck %s --input-file %t/cuda_kernels.txt
// RUN: FileCheck %s --check-prefix=INT --input-file %t/k0_contract.sm_80.ptx
// RUN: FileCheck %s --check-prefix=FLOAT --input-file %t/k1_contract.sm_90.ptx
// RUN: FileCheck %s --check-prefix=CONV --input-file %t/k3_contract.sm_90.ptx

// STDERR: kiln-opt: cuda: 4 kernels, 0 cuBLASLt matmuls, 0 ops the cuda back end cannot compile yet

// CHECK: kernel k0_contract: stablehlo.dot_general ({{.*}}contract.mlir:{{[0-9]+}}:8), grid 1 x block 64, 0 B shared: 36 elements, 1 per thread
// CHECK: kernel k1_contract: stablehlo.dot_general ({{.*}}contract.mlir:{{[0-9]+}}:8), grid 1 x block 64, 0 B shared: 60 elements, 1 per thread
// CHECK: kernel k2_contract: stablehlo.convolution ({{.*}}contract.mlir:{{[0-9]+}}:8), grid 1 x block 160, 0 B shared: 160 elements, 1 per thread
// CHECK: kernel k3_contract: kiln.fusion ({{.*}}contract.mlir:{{[0-9]+}}:8), grid 2 x block 256, 0 B shared: 336 elements, 1 per thread
// CHECK-NOT: unsupported

// i8 x i8 -> i32: sign-extended, multiplied and summed (LLVM narrows the
// 64-bit sum to the 32 bits that are kept), stored.
// INT: .visible .entry k0_contract(
// INT: ld.global.s8
// INT: mad.lo.s32
// INT: st.global.u32

// FLOAT: .visible .entry k1_contract(
// FLOAT-NOT: fma
// FLOAT: cvt.f64.f32
// FLOAT: mul.rn.f64
// FLOAT: add.rn.f64
// FLOAT: cvt.rn.f32.f64
// FLOAT: st.global.f32

// The convolution, then the bias and the relu in the same kernel.
// CONV: .visible .entry k3_contract(
// CONV-NOT: fma
// CONV: mul.rn.f64
// CONV: add.rn.f64
// CONV: cvt.rn.f32.f64
// CONV: add.rn.f32
// CONV: max.NaN.f32
// CONV: st.global.f32
func.func @main(%a: tensor<6x9xi8>, %b: tensor<9x2x3xi8>, %c: tensor<4x8x3xf32>, %d: tensor<3x8x5xf32>,
                %x: tensor<2x9x8x6xf32>, %w: tensor<3x2x3x4xf32>, %bias: tensor<4xf32>, %w2: tensor<3x3x6x4xf32>)
    -> (tensor<6x2x3xi32>, tensor<3x4x5xf32>, tensor<2x5x4x4xf32>, tensor<2x7x6x4xf32>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<6x9xi8>, tensor<9x2x3xi8>) -> tensor<6x2x3xi32>
  %1 = stablehlo.dot_general %c, %d, batching_dims = [2] x [0], contracting_dims = [1] x [1] : (tensor<4x8x3xf32>, tensor<3x8x5xf32>) -> tensor<3x4x5xf32>
  %2 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[1, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<2x9x8x6xf32>, tensor<3x2x3x4xf32>) -> tensor<2x5x4x4xf32>
  %3 = stablehlo.convolution(%x, %w2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x9x8x6xf32>, tensor<3x3x6x4xf32>) -> tensor<2x7x6x4xf32>
  %4 = stablehlo.broadcast_in_dim %bias, dims = [3] : (tensor<4xf32>) -> tensor<2x7x6x4xf32>
  %5 = stablehlo.add %3, %4 : tensor<2x7x6x4xf32>
  %z = stablehlo.constant dense<0.0> : tensor<2x7x6x4xf32>
  %6 = stablehlo.maximum %5, %z : tensor<2x7x6x4xf32>
  return %0, %1, %2, %6 : tensor<6x2x3xi32>, tensor<3x4x5xf32>, tensor<2x5x4x4xf32>, tensor<2x7x6x4xf32>
}
