// while, if and case run on the host (kiln/backends/gpu/cuda_plan.h): their
// regions' ops are ordinary kernels and cuBLASLt matmuls, which the host
// launches as the predicate or index it reads back chooses; nothing of them
// is refused. A region that only returns values it did not compute has no
// kernel (the runtime copies its values into the op's results). A while
// over a tuple runs too: the pipeline flattens its state into tensors.
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null 2>&1 | FileCheck %s --check-prefix=STDERR
// RUN: FileCheck %s --input-file %t/cuda_kernels.txt
// RUN: FileCheck %s --input-file %t/k1_row_reduce.sm_90.ptx --check-prefix=PTX

// STDERR: kiln-opt: cuda: 6 kernels, 1 cuBLASLt matmuls, 0 ops the cuda back end cannot compile yet

// CHECK: kernel k0_loop: stablehlo.compare ({{.*}}control_flow.mlir:33:
// CHECK: kernel k1_row_reduce: kiln.fusion ({{.*}}control_flow.mlir:40:{{.*}} a warp per row
// CHECK: kernel k4_loop: stablehlo.negate ({{.*}}control_flow.mlir:47:
// CHECK: kernel k5_loop: stablehlo.multiply ({{.*}}control_flow.mlir:55:
// CHECK: matmul m0: kiln.fusion ({{.*}}control_flow.mlir:42:{{.*}}), cuBLASLt f32 [1 x 16x1x16] A^T, epilogue none, then kernel k2_loop
// CHECK: control stablehlo.while ({{.*}}control_flow.mlir:31:{{.*}}) on the host: cond k0_loop; body k1_row_reduce k2_loop k3_loop m0
// CHECK: control stablehlo.if ({{.*}}control_flow.mlir:46:{{.*}}) on the host: true k4_loop; false (copies only)
// CHECK: control stablehlo.case ({{.*}}control_flow.mlir:52:{{.*}}) on the host: branch 0 (copies only); branch 1 k5_loop
// CHECK: control stablehlo.while ({{.*}}control_flow.mlir:60:{{.*}}) on the host: cond (copies only); body (copies only)
// CHECK-NOT: unsupported

// The body's row sum: a warp per row, whatever trip it runs in.
// PTX: .visible .entry k1_row_reduce(
// PTX: shfl.sync.bfly.b32

func.func @main(%x: tensor<16x16xf32>, %v: tensor<16xf32>, %n: tensor<i32>, %p: tensor<i1>, %k: tensor<i32>)
    -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<f32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%i = %zero, %h = %v) : tensor<i32>, tensor<16xf32>
  cond {
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %f0 = stablehlo.constant dense<0.0> : tensor<f32>
    %hb = stablehlo.broadcast_in_dim %h, dims = [0] : (tensor<16xf32>) -> tensor<16x16xf32>
    %xh = stablehlo.multiply %x, %hb : tensor<16x16xf32>
    %rows = stablehlo.reduce(%xh init: %f0) applies stablehlo.add across dimensions = [1] : (tensor<16x16xf32>, tensor<f32>) -> tensor<16xf32>
    %wh = stablehlo.dot_general %x, %h, contracting_dims = [1] x [0] : (tensor<16x16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %s = stablehlo.add %wh, %rows : tensor<16xf32>
    %next = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %next, %s : tensor<i32>, tensor<16xf32>
  }
  %1 = "stablehlo.if"(%p) ({
    %m = stablehlo.negate %0#1 : tensor<16xf32>
    stablehlo.return %m : tensor<16xf32>
  }, {
    stablehlo.return %v : tensor<16xf32>
  }) : (tensor<i1>) -> tensor<16xf32>
  %2 = "stablehlo.case"(%k) ({
    stablehlo.return %1 : tensor<16xf32>
  }, {
    %t = stablehlo.multiply %1, %v : tensor<16xf32>
    stablehlo.return %t : tensor<16xf32>
  }) : (tensor<i32>) -> tensor<16xf32>
  %f = stablehlo.constant dense<1.0> : tensor<f32>
  %tup = stablehlo.tuple %f : tuple<tensor<f32>>
  %3 = stablehlo.while(%t = %tup) : tuple<tensor<f32>>
  cond {
    stablehlo.return %p : tensor<i1>
  } do {
    stablehlo.return %t : tuple<tensor<f32>>
  }
  %4 = stablehlo.get_tuple_element %3[0] : (tuple<tensor<f32>>) -> tensor<f32>
  return %0#1, %1, %2, %4 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<f32>
}
