// A loop fusion becomes one grid-stride kernel, four adjacent elements per
// thread, so f32 loads and stores are 16-byte vectors; exp uses the GPU's
// ex2.approx (no math library call); the launch is in the dumps.
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null
// RUN: FileCheck %s --input-file %t/k0_loop.sm_80.ptx
// RUN: FileCheck %s --check-prefix=SM90 --input-file %t/k0_loop.sm_90.ptx
// RUN: FileCheck %s --check-prefix=LL --input-file %t/k0_loop.ll
// RUN: FileCheck %s --check-prefix=SUMMARY --input-file %t/cuda_kernels.txt
// The .ll stands alone: LLVM's llc compiles it for any architecture.
// RUN: llc -mcpu=sm_90 -mattr=+ptx80 %t/k0_loop.ll -o - | FileCheck %s --check-prefix=SM90

// CHECK: // kiln kernel k0_loop for kiln.fusion ({{.*}}loop.mlir:{{[0-9]+}}:{{[0-9]+}}): loop, grid 1024 x block 256, 0 B shared: 1048576 elements, 4 per thread
// CHECK: .version 8.0
// CHECK: .target sm_80
// CHECK: .visible .entry k0_loop(
// CHECK: .maxntid 256, 1, 1
// CHECK: mov.u32 {{.*}}%tid.x
// CHECK: mov.u32 {{.*}}%ctaid.x
// CHECK: ld.global.v4.f32
// CHECK: ld.global.v4.f32
// CHECK: ex2.approx.ftz.f32
// CHECK-NOT: call
// CHECK: st.global.v4.f32
// CHECK-NOT: tail

// SM90: .target sm_90
// SM90: .visible .entry k0_loop(

// LL: target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
// LL: target triple = "nvptx64-nvidia-cuda"
// LL: define ptx_kernel void @k0_loop(ptr align 16 %0, ptr align 16 %1, ptr align 16 %2)
// LL: !nvvm.annotations = !{![[K:[0-9]+]], ![[N:[0-9]+]]}
// LL: !kiln.launch = !{![[L:[0-9]+]]}
// LL: ![[K]] = !{ptr @k0_loop, !"kernel", i32 1}
// LL: ![[N]] = !{ptr @k0_loop, !"maxntidx", i32 256}
// LL: ![[L]] = !{!"grid 1024 x block 256, 0 B shared: 1048576 elements, 4 per thread"}

// SUMMARY: kernel k0_loop: kiln.fusion ({{.*}}), grid 1024 x block 256, 0 B shared: 1048576 elements, 4 per thread
// SUMMARY-NOT: unsupported
func.func @main(%x: tensor<1024x1024xf32>, %y: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = stablehlo.add %x, %y : tensor<1024x1024xf32>
  %1 = stablehlo.exponential %0 : tensor<1024x1024xf32>
  %2 = stablehlo.multiply %1, %x : tensor<1024x1024xf32>
  return %2 : tensor<1024x1024xf32>
}
