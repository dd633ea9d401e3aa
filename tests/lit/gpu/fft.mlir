// fft as a contraction kernel: a thread per result element, a sum over the
// transformed positions in complex<double> with the interpreter's twiddles
// (libdevice's cos and sin of s * 2 pi * (j k mod n) / n), rounded once.
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null 2>&1 | FileCheck %s --check-prefix=STDERR
// RUN: FileCheck %s --input-file %t/cuda_kernels.txt
// RUN: FileCheck %s --check-prefix=PTX --input-file %t/k0_contract.sm_90.ptx
// REQUIRES: libdevice

// STDERR: kiln-opt: cuda: 2 kernels, 0 cuBLASLt matmuls, 0 ops the cuda back end cannot compile yet

// CHECK: kernel k0_contract: stablehlo.fft ({{.*}}fft.mlir:{{[0-9]+}}:8), grid 1 x block 32, 0 B shared: 24 elements, 1 per thread
// CHECK: kernel k1_contract: stablehlo.fft ({{.*}}fft.mlir:{{[0-9]+}}:8), grid 1 x block 32, 0 B shared: 14 elements, 1 per thread
// CHECK-NOT: unsupported

// (libdevice's cos and sin, inlined, evaluate their polynomials with fma:
// theirs; the sum's products and additions are mul.rn / add.rn.)
// PTX: .visible .entry k0_contract(
// PTX-DAG: ld.global.v2.f32
// PTX-DAG: cvt.f64.f32
// PTX-DAG: mul.rn.f64
// PTX-DAG: add.rn.f64
// PTX-DAG: cvt.rn.f32.f64
// PTX-DAG: st.global.v2.f32
func.func @main(%x: tensor<3x8xcomplex<f32>>, %y: tensor<2x4xcomplex<f64>>) -> (tensor<3x8xcomplex<f32>>, tensor<2x7xf64>) {
  %0 = stablehlo.fft %x, type = FFT, length = [8] : (tensor<3x8xcomplex<f32>>) -> tensor<3x8xcomplex<f32>>
  %1 = stablehlo.fft %y, type = IRFFT, length = [7] : (tensor<2x4xcomplex<f64>>) -> tensor<2x7xf64>
  return %0, %1 : tensor<3x8xcomplex<f32>>, tensor<2x7xf64>
}
