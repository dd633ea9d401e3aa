// Dots run as cuBLASLt matmuls (one call each, never loops): kiln's
// row-major result is cuBLASLt's column-major transpose, so A is the dot's
// rhs (transposed, A^T, where its contracting dim comes last) and B its
// lhs. An output fusion's bias add and relu are cuBLASLt's epilogue; what
// follows them (tanh) is a kernel reading the product after the call.
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null 2>&1 | FileCheck %s --check-prefix=STDERR
// RUN: FileCheck %s --input-file %t/cuda_kernels.txt
// RUN: FileCheck %s --check-prefix=PTX --input-file %t/k0_loop.sm_90.ptx

// STDERR: kiln-opt: cuda: 1 kernels, 3 cuBLASLt matmuls, 0 ops the cuda back end cannot compile yet

// CHECK: kernel k0_loop: kiln.fusion ({{.*}}matmul.mlir:30:8)
// CHECK: matmul m0: kiln.fusion ({{.*}}matmul.mlir:27:8), cuBLASLt f32 [1 x 8x32x16], epilogue bias+relu
// CHECK: matmul m1: kiln.fusion ({{.*}}matmul.mlir:30:8), cuBLASLt f32 [1 x 8x32x16] A^T, epilogue bias, then kernel k0_loop
// CHECK: matmul m2: stablehlo.dot_general ({{.*}}matmul.mlir:31:8), cuBLASLt bf16 [4 x 8x8x16] B^T, epilogue none
// CHECK-NOT: unsupported

// The kernel after m1: tanh of what cuBLASLt wrote.
// PTX: .visible .entry k0_loop(
// PTX: ex2.approx.ftz.f32
func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %bias: tensor<32xf32>, %v: tensor<32x16xf32>,
                %p: tensor<4x16x8xbf16>, %q: tensor<4x16x8xbf16>) -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<4x8x8xf32>) {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %1 = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<32xf32>) -> tensor<8x32xf32>
  %2 = stablehlo.add %0, %1 : tensor<8x32xf32>
  %z = stablehlo.constant dense<0.0> : tensor<8x32xf32>
  %3 = stablehlo.maximum %2, %z : tensor<8x32xf32>
  %4 = stablehlo.dot_general %x, %v, contracting_dims = [1] x [1] : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
  %5 = stablehlo.add %4, %1 : tensor<8x32xf32>
  %6 = stablehlo.tanh %5 : tensor<8x32xf32>
  %7 = stablehlo.dot_general %p, %q, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<4x16x8xbf16>, tensor<4x16x8xbf16>) -> tensor<4x8x8xf32>
  return %3, %6, %7 : tensor<8x32xf32>, tensor<8x32xf32>, tensor<4x8x8xf32>
}
