// rng_bit_generator as a kernel: a thread per output element computes the
// Philox-4x32 or Threefry-2x32 block its bits come from, arranged over the
// output as the interpreter's (after XLA), and stores them as the
// element's bit pattern; thread 0 writes the new state. No shared memory.
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null 2>&1 | FileCheck %s --check-prefix=STDERR
// RUN: FileCheck %s --input-file %t/cuda_kernels.txt
// RUN: FileCheck %s --check-prefix=PHILOX --input-file %t/k0_random.sm_90.ptx
// RUN: FileCheck %s --check-prefix=THREEFRY --input-file %t/k1_random.sm_80.ptx

// STDERR: kiln-opt: cuda: 2 kernels, 0 cuBLASLt matmuls, 0 ops the cuda back end cannot compile yet

// CHECK: kernel k0_random: stablehlo.rng_bit_generator ({{.*}}random.mlir:{{[0-9]+}}:{{[0-9]+}}), grid 1 x block 32, 0 B shared: 15 elements, 1 per thread
// CHECK: kernel k1_random: stablehlo.rng_bit_generator ({{.*}}random.mlir:{{[0-9]+}}:{{[0-9]+}}), grid 1 x block 32, 0 B shared: 12 elements, 1 per thread
// CHECK-NOT: unsupported

// The new state (key, counter advanced by 4 blocks of 4 words, high word),
// then Philox's rounds: 64-bit products by its two multipliers
// (0xD2511F53, 0xCD9E8D57), the output's words.
// PHILOX: .visible .entry k0_random(
// PHILOX-NOT: .shared
// PHILOX: st.global.u64
// PHILOX-DAG: mul.lo.s64 {{.*}}, 3528531795;
// PHILOX-DAG: mul.lo.s64 {{.*}}, 3449720151;
// PHILOX: st.global.u32

// Threefry's rounds: 32-bit rotations.
// THREEFRY: .visible .entry k1_random(
// THREEFRY: shf.l.wrap.b32
// THREEFRY: st.global.u64
func.func @main(%s: tensor<3xui64>, %t: tensor<2xui64>) -> (tensor<3xui64>, tensor<3x5xui32>, tensor<2xui64>, tensor<4x3xf64>) {
  %0, %1 = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<3x5xui32>)
  %2, %3 = stablehlo.rng_bit_generator %t, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x3xf64>)
  return %0, %1, %2, %3 : tensor<3xui64>, tensor<3x5xui32>, tensor<2xui64>, tensor<4x3xf64>
}
