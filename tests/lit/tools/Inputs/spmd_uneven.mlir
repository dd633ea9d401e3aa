// Programs with uneven sharding constraints (a dimension the number of its
// blocks does not divide, as JAX's with_sharding_constraint allows), for
// kiln-run-spmd-uneven.test. Arguments and results are replicated, so every
// instance of the partitioned program must return what the unpartitioned
// program returns. Inputs are small integers: every sum is exact, whatever
// order the blocks add in, and padding that reached a reduction would show.
module @uneven {
  sdy.mesh @mesh = <["x"=2, "y"=2]>

  // f32[10] in 4 blocks of 3 (the last holds 1 element and 2 of padding).
  // log(0) makes the padding -inf: a max or a sum that read it would be wrong.
  func.func public @sum_and_max(%a: tensor<10xf32>) -> (tensor<10xf32>, tensor<f32>, tensor<f32>) {
    %c = sdy.sharding_constraint %a <@mesh, [{"x", "y"}]> : tensor<10xf32>
    %sq = stablehlo.multiply %c, %c : tensor<10xf32>
    %log = stablehlo.log %c : tensor<10xf32>
    %inf = stablehlo.add %sq, %log : tensor<10xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %s = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<10xf32>, tensor<f32>) -> tensor<f32>
    %m = stablehlo.reduce(%log init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<10xf32>, tensor<f32>) -> tensor<f32>
    return %sq, %s, %m : tensor<10xf32>, tensor<f32>, tensor<f32>
  }

  // A contracting dimension of 10 in blocks of 3: x / x is NaN in the padding.
  func.func public @dot_contracting(%a: tensor<5x10xf32>, %b: tensor<10x3xf32>) -> tensor<5x3xf32> {
    %ca = sdy.sharding_constraint %a <@mesh, [{}, {"x", "y"}]> : tensor<5x10xf32>
    %cb = sdy.sharding_constraint %b <@mesh, [{"x", "y"}, {}]> : tensor<10x3xf32>
    %ones = stablehlo.divide %ca, %ca : tensor<5x10xf32>
    %na = stablehlo.multiply %ones, %ca : tensor<5x10xf32>
    %d = stablehlo.dot_general %na, %cb, contracting_dims = [1] x [0] : (tensor<5x10xf32>, tensor<10x3xf32>) -> tensor<5x3xf32>
    return %d : tensor<5x3xf32>
  }

  // Both dimensions uneven (5 rows in 2 blocks of 3, 3 columns in 2 of 2);
  // integer x / x is -1 in the zero padding.
  func.func public @rows_and_columns(%a: tensor<5x3xi32>) -> (tensor<3x5xi32>, tensor<3xi32>, tensor<5xi32>) {
    %c = sdy.sharding_constraint %a <@mesh, [{"x"}, {"y"}]> : tensor<5x3xi32>
    %q = stablehlo.divide %c, %c : tensor<5x3xi32>
    %p = stablehlo.add %c, %q : tensor<5x3xi32>
    %t = stablehlo.transpose %p, dims = [1, 0] : (tensor<5x3xi32>) -> tensor<3x5xi32>
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %min = stablehlo.constant dense<-2147483648> : tensor<i32>
    %cols = stablehlo.reduce(%q init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<5x3xi32>, tensor<i32>) -> tensor<3xi32>
    %rows = stablehlo.reduce(%p init: %min) applies stablehlo.maximum across dimensions = [1] : (tensor<5x3xi32>, tensor<i32>) -> tensor<5xi32>
    return %t, %cols, %rows : tensor<3x5xi32>, tensor<3xi32>, tensor<5xi32>
  }

  // A batched dot with the batch dimension (6 in blocks of 2) uneven, and a
  // reshape, which cannot run on padded blocks: its operand is gathered.
  // The result is replicated (left open, it would keep the split reaching it).
  func.func public @batch_dot_then_reshape(%a: tensor<6x4x3xf32>, %b: tensor<6x3x2xf32>)
      -> (tensor<48xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) {
    %ca = sdy.sharding_constraint %a <@mesh, [{"x", "y"}, {}, {}]> : tensor<6x4x3xf32>
    %d = stablehlo.dot_general %ca, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<6x4x3xf32>, tensor<6x3x2xf32>) -> tensor<6x4x2xf32>
    %n = stablehlo.negate %d : tensor<6x4x2xf32>
    %r = stablehlo.reshape %n : (tensor<6x4x2xf32>) -> tensor<48xf32>
    return %r : tensor<48xf32>
  }
}
