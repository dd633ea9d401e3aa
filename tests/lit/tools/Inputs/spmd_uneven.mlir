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

  // A loop carrying f32[10] in 4 blocks of 3 (the split reaches the loop
  // from the constraint). v / v makes the padding NaN on the first step, and
  // it goes round the loop: the sum in the body and the maximum in the
  // condition must mask it (a NaN maximum would end the loop at once).
  func.func public @loop_over_padding(%a: tensor<10xf32>) -> (tensor<10xf32>, tensor<i32>) {
    %c = sdy.sharding_constraint %a <@mesh, [{"x", "y"}]> : tensor<10xf32>
    %start = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %start, %v = %c) : tensor<i32>, tensor<10xf32>
     cond {
      %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %m = stablehlo.reduce(%v init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<10xf32>, tensor<f32>) -> tensor<f32>
      %limit = stablehlo.constant dense<1.0e+04> : tensor<f32>
      %small = stablehlo.compare LT, %m, %limit : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %five = stablehlo.constant dense<5> : tensor<i32>
      %few = stablehlo.compare LT, %i, %five, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %go = stablehlo.and %small, %few : tensor<i1>
      stablehlo.return %go : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %next = stablehlo.add %i, %one : tensor<i32>
      %q = stablehlo.divide %v, %v : tensor<10xf32>
      %w = stablehlo.multiply %q, %v : tensor<10xf32>
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %s = stablehlo.reduce(%w init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<10xf32>, tensor<f32>) -> tensor<f32>
      %sv = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %u = stablehlo.add %w, %sv : tensor<10xf32>
      stablehlo.return %next, %u : tensor<i32>, tensor<10xf32>
    }
    return %r#1, %r#0 : tensor<10xf32>, tensor<i32>
  }

  // A loop over layers (lax.fori_loop) with the batch of 6 rows in 4 blocks
  // of 2: the rows' split goes round the loop, a row-wise maximum in the
  // body reduces over the columns (no padding there), and the sum over the
  // rows after the loop masks the padding rows.
  func.func public @loop_over_rows(%x: tensor<6x3xf32>, %w: tensor<3x3xf32>) -> (tensor<6x3xf32>, tensor<3xf32>) {
    %c = sdy.sharding_constraint %x <@mesh, [{"x", "y"}, {}]> : tensor<6x3xf32>
    %start = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %start, %h = %c) : tensor<i32>, tensor<6x3xf32>
     cond {
      %three = stablehlo.constant dense<3> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %three, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %next = stablehlo.add %i, %one : tensor<i32>
      %m = stablehlo.dot_general %h, %w, contracting_dims = [1] x [0] : (tensor<6x3xf32>, tensor<3x3xf32>) -> tensor<6x3xf32>
      %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %top = stablehlo.reduce(%m init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<6x3xf32>, tensor<f32>) -> tensor<6xf32>
      %tb = stablehlo.broadcast_in_dim %top, dims = [0] : (tensor<6xf32>) -> tensor<6x3xf32>
      %d = stablehlo.subtract %m, %tb : tensor<6x3xf32>
      stablehlo.return %next, %d : tensor<i32>, tensor<6x3xf32>
    }
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%r#1 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<6x3xf32>, tensor<f32>) -> tensor<3xf32>
    return %r#1, %s : tensor<6x3xf32>, tensor<3xf32>
  }

  // lax.cond and lax.switch whose branches return f32[10] in 4 blocks of 3:
  // one branch makes its padding NaN (v / v), another +inf (1 / 0), and the
  // reductions inside the branches and after them mask it.
  func.func public @branches_over_padding(%p: tensor<i1>, %k: tensor<i32>, %a: tensor<10xf32>)
      -> (tensor<10xf32>, tensor<f32>, tensor<f32>, tensor<10xf32>, tensor<f32>) {
    %c = sdy.sharding_constraint %a <@mesh, [{"x", "y"}]> : tensor<10xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %ones = stablehlo.constant dense<1.0> : tensor<10xf32>
    %r:2 = "stablehlo.if"(%p) ({
      %q = stablehlo.divide %c, %c : tensor<10xf32>
      %w = stablehlo.multiply %q, %c : tensor<10xf32>
      %s = stablehlo.reduce(%w init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<10xf32>, tensor<f32>) -> tensor<f32>
      stablehlo.return %w, %s : tensor<10xf32>, tensor<f32>
    }, {
      %l = stablehlo.divide %ones, %c : tensor<10xf32>
      %m = stablehlo.reduce(%l init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<10xf32>, tensor<f32>) -> tensor<f32>
      stablehlo.return %l, %m : tensor<10xf32>, tensor<f32>
    }) : (tensor<i1>) -> (tensor<10xf32>, tensor<f32>)
    %t = stablehlo.reduce(%r#0 init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<10xf32>, tensor<f32>) -> tensor<f32>
    %b = "stablehlo.case"(%k) ({
      %n = stablehlo.negate %c : tensor<10xf32>
      stablehlo.return %n : tensor<10xf32>
    }, {
      %q = stablehlo.divide %c, %c : tensor<10xf32>
      stablehlo.return %q : tensor<10xf32>
    }, {
      %l = stablehlo.divide %ones, %c : tensor<10xf32>
      stablehlo.return %l : tensor<10xf32>
    }) : (tensor<i32>) -> tensor<10xf32>
    %bs = stablehlo.reduce(%b init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<10xf32>, tensor<f32>) -> tensor<f32>
    return %r#0, %r#1, %t, %b, %bs : tensor<10xf32>, tensor<f32>, tensor<f32>, tensor<10xf32>, tensor<f32>
  }
}
