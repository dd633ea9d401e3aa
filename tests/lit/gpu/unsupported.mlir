// What the cuda back end cannot compile yet is listed as an error naming
// the op and where it is, never emitted as a kernel: a cholesky too large
// for shared memory, and -- where no
// libdevice is found (KILN_LIBDEVICE names a file that is not there) -- f32
// sine and f64 exp, which call libdevice. The kernels and the dot (a
// cuBLASLt call) around them still compile.
// RUN: rm -rf %t && env KILN_LIBDEVICE=%t.none kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null 2>&1 | FileCheck %s --check-prefix=STDERR
// RUN: FileCheck %s --input-file %t/cuda_kernels.txt

// STDERR: kiln-opt: cuda: 1 kernels, 1 cuBLASLt matmuls, 3 ops the cuda back end cannot compile yet ({{.*}}/cuda_kernels.txt)

// CHECK: kernel k0_loop: stablehlo.add
// CHECK: matmul m0: stablehlo.dot_general ({{.*}}unsupported.mlir:19:8), cuBLASLt f32 [1 x 64x64x64], epilogue none
// CHECK-DAG: unsupported: the cuda back end cannot compile 'stablehlo.cholesky' of order 100 (the factor, in double, must fit in 48 KiB of shared memory: order 78 at most) yet ({{.*}}unsupported.mlir:20:
// CHECK-DAG: unsupported: the cuda back end cannot compile 'stablehlo.sine' calling libdevice's __nv_sin: no libdevice at KILN_LIBDEVICE={{.*}}.none yet ({{.*}}unsupported.mlir:21:
// CHECK-DAG: unsupported: the cuda back end cannot compile 'stablehlo.exponential' calling libdevice's __nv_exp: no libdevice at KILN_LIBDEVICE={{.*}}.none yet ({{.*}}unsupported.mlir:22:
func.func @main(%a: tensor<64x64xf32>, %v: tensor<64xf32>, %d: tensor<64xf64>, %c: tensor<100x100xf32>, %w: tensor<64xf32>)
    -> (tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf64>, tensor<100x100xf32>) {
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = stablehlo.cholesky %c, lower = true : tensor<100x100xf32>
  %2 = stablehlo.sine %w : tensor<64xf32>
  %3 = stablehlo.exponential %d : tensor<64xf64>
  %4 = stablehlo.add %v, %v : tensor<64xf32>
  return %0, %2, %4, %3, %1 : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf64>, tensor<100x100xf32>
}
