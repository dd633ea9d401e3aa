// layernorm is one row kernel: the mean and the mean of squares are block
// reductions, rsqrt(var + eps) is a
// row value every thread computes (in double, rounded once, as the
// interpreter does), and a per-row output (the mean, as a
// training step saves it) is stored once per row by thread 0.
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null
// RUN: FileCheck %s --input-file %t/k0_row_reduce.sm_80.ptx

// CHECK: row_reduce, grid 128 x block 128, 256 B shared: 128 rows of 512, a block per row
// CHECK: .visible .entry k0_row_reduce(
// Two reductions, each across the warp and then across warps.
// CHECK-COUNT-20: shfl.sync.bfly.b32
// The mean, by thread 0; then the row.
// CHECK: st.global.f32
// CHECK: sqrt.rn.f64
// CHECK: st.global.f32
func.func @main(%x: tensor<128x512xf32>) -> (tensor<128x512xf32>, tensor<128xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.constant dense<512.0> : tensor<128xf32>
  %eps = stablehlo.constant dense<1.0e-5> : tensor<128xf32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<128x512xf32>, tensor<f32>) -> tensor<128xf32>
  %mean = stablehlo.divide %s, %n : tensor<128xf32>
  %x2 = stablehlo.multiply %x, %x : tensor<128x512xf32>
  %s2 = stablehlo.reduce(%x2 init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<128x512xf32>, tensor<f32>) -> tensor<128xf32>
  %m2 = stablehlo.divide %s2, %n : tensor<128xf32>
  %mm = stablehlo.multiply %mean, %mean : tensor<128xf32>
  %var = stablehlo.subtract %m2, %mm : tensor<128xf32>
  %ve = stablehlo.add %var, %eps : tensor<128xf32>
  %r = stablehlo.rsqrt %ve : tensor<128xf32>
  %mb = stablehlo.broadcast_in_dim %mean, dims = [0] : (tensor<128xf32>) -> tensor<128x512xf32>
  %rb = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<128xf32>) -> tensor<128x512xf32>
  %c = stablehlo.subtract %x, %mb : tensor<128x512xf32>
  %y = stablehlo.multiply %c, %rb : tensor<128x512xf32>
  return %y, %mean : tensor<128x512xf32>, tensor<128xf32>
}
