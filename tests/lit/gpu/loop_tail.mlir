// Elements after the last whole vector of four run one per thread in a
// second grid-stride loop; an operand broadcast along rows is read through
// the shared elemental emitter's index mapping.
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null
// RUN: FileCheck %s --input-file %t/k0_loop.sm_80.ptx

// CHECK: loop, grid 2 x block 256, 0 B shared: 2010 elements, 4 per thread
// CHECK: .visible .entry k0_loop(
// CHECK: ld.global.f32
// CHECK: st.global.f32
func.func @main(%x: tensor<10x201xf32>, %b: tensor<201xf32>) -> tensor<10x201xf32> {
  %0 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<201xf32>) -> tensor<10x201xf32>
  %1 = stablehlo.add %x, %0 : tensor<10x201xf32>
  %2 = stablehlo.tanh %1 : tensor<10x201xf32>
  return %2 : tensor<10x201xf32>
}
