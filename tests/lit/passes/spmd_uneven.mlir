// RUN: kiln-opt --passes=sharding_propagation,spmd_partition --split-input-file %s | FileCheck %s
// Uneven shardings (a dimension its number of blocks does not divide, as
// JAX's with_sharding_constraint allows): each device holds ceil(n / k)
// elements, the last blocks ending in padding. The constraint pads the whole
// value with zeros and cuts the device's block; ops run on padded blocks; a
// reduction over the dimension first replaces the padding by its identity;
// gathering slices the padding off. The results run on any back end:
// tests/lit/tools/kiln-run-spmd-uneven.test compares them with the
// unpartitioned program.

// f32[10] in 4 blocks of 3. The split spreads forward to the log and the
// reduce's operand; the argument stays replicated (the caller holds whole
// blocks), and the result of the log, returned, is gathered and sliced to 10.
// CHECK-LABEL: module @sum
// CHECK: func.func public @main(%arg0: tensor<10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> (tensor<10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<f32>
// CHECK: %[[ZERO:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[PADDED:.*]] = stablehlo.pad %arg0, %[[ZERO]], low = [0], high = [2], interior = [0] : (tensor<10xf32>, tensor<f32>) -> tensor<12xf32>
// CHECK: %[[TABLE:.*]] = stablehlo.constant dense<[0, 3, 6, 9]> : tensor<4xi32>
// CHECK: %[[OFFSET:.*]] = stablehlo.reshape
// CHECK: %[[MINE:.*]] = stablehlo.dynamic_slice %[[PADDED]], %[[OFFSET]], sizes = [3] : (tensor<12xf32>, tensor<i32>) -> tensor<3xf32>
// CHECK: %[[LOG:.*]] = stablehlo.log %[[MINE]] : tensor<3xf32>
// CHECK: %[[INIT:.*]] = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK: %[[SIZE:.*]] = stablehlo.constant dense<10> : tensor<i32>
// CHECK: %[[IOTA:.*]] = stablehlo.iota dim = 0 : tensor<3xi32>
// CHECK: %[[AT:.*]] = stablehlo.broadcast_in_dim %[[OFFSET]], dims = [] : (tensor<i32>) -> tensor<3xi32>
// CHECK: %[[INDEX:.*]] = stablehlo.add %[[IOTA]], %[[AT]] : tensor<3xi32>
// CHECK: %[[LIMIT:.*]] = stablehlo.broadcast_in_dim %[[SIZE]], dims = [] : (tensor<i32>) -> tensor<3xi32>
// CHECK: %[[VALID:.*]] = stablehlo.compare LT, %[[INDEX]], %[[LIMIT]] : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
// CHECK: %[[FILL:.*]] = stablehlo.broadcast_in_dim %[[INIT]], dims = [] : (tensor<f32>) -> tensor<3xf32>
// CHECK: %[[MASKED:.*]] = stablehlo.select %[[VALID]], %[[LOG]], %[[FILL]] : tensor<3xi1>, tensor<3xf32>
// CHECK: %[[PARTIAL:.*]] = stablehlo.reduce(%[[MASKED]] init: %[[INIT]]) applies stablehlo.maximum across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
// CHECK: %[[MAX:.*]] = "stablehlo.all_reduce"(%[[PARTIAL]]) {{.*}}replica_groups = dense<{{\[\[}}0, 1, 2, 3]]>
// CHECK: stablehlo.maximum
// CHECK: %[[ALL:.*]] = "stablehlo.all_gather"(%[[LOG]]) <{all_gather_dim = 0 : i64, {{.*}} : (tensor<3xf32>) -> tensor<12xf32>
// CHECK: %[[WHOLE:.*]] = stablehlo.slice %[[ALL]] [0:10] : (tensor<12xf32>) -> tensor<10xf32>
// CHECK: return %[[WHOLE]], %[[MAX]] : tensor<10xf32>, tensor<f32>
module @sum {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<10xf32>) -> (tensor<10xf32>, tensor<f32>) {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x"}]> : tensor<10xf32>
    %1 = stablehlo.log %0 : tensor<10xf32>
    %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %init) applies stablehlo.maximum across dimensions = [0] : (tensor<10xf32>, tensor<f32>) -> tensor<f32>
    return %1, %2 : tensor<10xf32>, tensor<f32>
  }
}

// -----

// A contracting dimension of 5 in 2 blocks of 3: both operands' padding
// becomes zero (either may hold NaN or inf) before the partial dot.
// CHECK-LABEL: module @dot
// CHECK: %[[A:.*]] = stablehlo.dynamic_slice {{.*}} sizes = [4, 3] : (tensor<4x6xf32>, tensor<i32>, tensor<i32>) -> tensor<4x3xf32>
// CHECK: %[[B:.*]] = stablehlo.dynamic_slice {{.*}} sizes = [3, 2] : (tensor<6x2xf32>, tensor<i32>, tensor<i32>) -> tensor<3x2xf32>
// CHECK: %[[ZA:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[VA:.*]] = stablehlo.compare LT, {{.*}} : (tensor<4x3xi32>, tensor<4x3xi32>) -> tensor<4x3xi1>
// CHECK: %[[MA:.*]] = stablehlo.select %[[VA]], %[[A]], {{.*}} : tensor<4x3xi1>, tensor<4x3xf32>
// CHECK: %[[VB:.*]] = stablehlo.compare LT, {{.*}} : (tensor<3x2xi32>, tensor<3x2xi32>) -> tensor<3x2xi1>
// CHECK: %[[MB:.*]] = stablehlo.select %[[VB]], %[[B]], {{.*}} : tensor<3x2xi1>, tensor<3x2xf32>
// CHECK: %[[P:.*]] = stablehlo.dot_general %[[MA]], %[[MB]], contracting_dims = [1] x [0] : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
// CHECK: "stablehlo.all_reduce"(%[[P]])
module @dot {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%a: tensor<4x5xf32>, %b: tensor<5x2xf32>) -> tensor<4x2xf32> {
    %ca = sdy.sharding_constraint %a <@mesh, [{}, {"x"}]> : tensor<4x5xf32>
    %cb = sdy.sharding_constraint %b <@mesh, [{"x"}, {}]> : tensor<5x2xf32>
    %d = stablehlo.dot_general %ca, %cb, contracting_dims = [1] x [0] : (tensor<4x5xf32>, tensor<5x2xf32>) -> tensor<4x2xf32>
    return %d : tensor<4x2xf32>
  }
}

// -----

// A reshape cannot run on padded blocks (it would move the padding into the
// middle): its operand is gathered and sliced, and the reshaped value, which
// divides evenly, cut into its own blocks again.
// CHECK-LABEL: module @reshape
// CHECK: %[[N:.*]] = stablehlo.negate %{{.*}} : tensor<2x2xf32>
// CHECK: %[[ALL:.*]] = "stablehlo.all_gather"(%[[N]]) {{.*}} : (tensor<2x2xf32>) -> tensor<8x2xf32>
// CHECK: %[[WHOLE:.*]] = stablehlo.slice %[[ALL]] [0:6, 0:2] : (tensor<8x2xf32>) -> tensor<6x2xf32>
// CHECK: %[[R:.*]] = stablehlo.reshape %[[WHOLE]] : (tensor<6x2xf32>) -> tensor<12xf32>
// CHECK: stablehlo.dynamic_slice %[[R]], %{{.*}}, sizes = [3] : (tensor<12xf32>, tensor<i32>) -> tensor<3xf32>
module @reshape {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%a: tensor<6x2xf32>) -> tensor<12xf32> {
    %c = sdy.sharding_constraint %a <@mesh, [{"x"}, {}]> : tensor<6x2xf32>
    %n = stablehlo.negate %c : tensor<6x2xf32>
    %r = stablehlo.reshape %n : (tensor<6x2xf32>) -> tensor<12xf32>
    return %r : tensor<12xf32>
  }
}

// -----

// A while loop carries an uneven split in padded blocks (f32[10] in 4 blocks
// of 3, the split reaching the loop from the constraint): the condition's
// maximum and the body's sum mask the padding as anywhere else, the loop
// runs on tensor<3xf32>, and only its result is gathered.
// CHECK-LABEL: module @loop
// CHECK: %[[MINE:.*]] = stablehlo.dynamic_slice {{.*}} sizes = [3] : (tensor<12xf32>, tensor<i32>) -> tensor<3xf32>
// CHECK-NOT: all_gather
// CHECK: %[[LOOP:.*]]:2 = stablehlo.while(%[[I:.*]] = %{{.*}}, %[[V:.*]] = %[[MINE]]) : tensor<i32>, tensor<3xf32>
// CHECK: cond {
// CHECK: %[[VALIDC:.*]] = stablehlo.compare LT, {{.*}} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
// CHECK: %[[MASKEDC:.*]] = stablehlo.select %[[VALIDC]], %[[V]], {{.*}} : tensor<3xi1>, tensor<3xf32>
// CHECK: stablehlo.reduce(%[[MASKEDC]] {{.*}} applies stablehlo.maximum
// CHECK: "stablehlo.all_reduce"
// CHECK: } do {
// CHECK: %[[Q:.*]] = stablehlo.divide %[[V]], %[[V]] : tensor<3xf32>
// CHECK: %[[VALID:.*]] = stablehlo.compare LT, {{.*}} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
// CHECK: %[[MASKED:.*]] = stablehlo.select %[[VALID]], %[[Q]], {{.*}} : tensor<3xi1>, tensor<3xf32>
// CHECK: stablehlo.reduce(%[[MASKED]] {{.*}} applies stablehlo.add
// CHECK: "stablehlo.all_reduce"
// CHECK: stablehlo.return {{.*}} : tensor<i32>, tensor<3xf32>
// CHECK: %[[ALL:.*]] = "stablehlo.all_gather"(%[[LOOP]]#1) {{.*}} : (tensor<3xf32>) -> tensor<12xf32>
// CHECK: stablehlo.slice %[[ALL]] [0:10] : (tensor<12xf32>) -> tensor<10xf32>
module @loop {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%a: tensor<10xf32>) -> tensor<10xf32> {
    %c = sdy.sharding_constraint %a <@mesh, [{"x"}]> : tensor<10xf32>
    %start = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %start, %v = %c) : tensor<i32>, tensor<10xf32>
     cond {
      %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %m = stablehlo.reduce(%v init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<10xf32>, tensor<f32>) -> tensor<f32>
      %limit = stablehlo.constant dense<1.0e+04> : tensor<f32>
      %go = stablehlo.compare LT, %m, %limit : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    } do {
      %q = stablehlo.divide %v, %v : tensor<10xf32>
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %s = stablehlo.reduce(%q init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<10xf32>, tensor<f32>) -> tensor<f32>
      %sv = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %u = stablehlo.add %v, %sv : tensor<10xf32>
      stablehlo.return %i, %u : tensor<i32>, tensor<10xf32>
    }
    return %r#1 : tensor<10xf32>
  }
}

// -----

// An if whose branches return f32[10] in 4 blocks of 3: each returns its
// padded block (the one computing from a replicated value cuts it out
// inside the branch), and the maximum after the if masks the padding.
// CHECK-LABEL: module @branches
// CHECK: %[[MINE:.*]] = stablehlo.dynamic_slice {{.*}} sizes = [3] : (tensor<12xf32>, tensor<i32>) -> tensor<3xf32>
// CHECK: %[[IF:.*]] = "stablehlo.if"(%arg0) ({
// CHECK-NEXT: %[[Q:.*]] = stablehlo.divide %[[MINE]], %[[MINE]] : tensor<3xf32>
// CHECK-NEXT: stablehlo.return %[[Q]] : tensor<3xf32>
// CHECK: }, {
// CHECK: %[[CUT:.*]] = stablehlo.dynamic_slice {{.*}} sizes = [3] : (tensor<12xf32>, tensor<i32>) -> tensor<3xf32>
// CHECK-NEXT: stablehlo.return %[[CUT]] : tensor<3xf32>
// CHECK: }) : (tensor<i1>) -> tensor<3xf32>
// CHECK: %[[VALID:.*]] = stablehlo.compare LT, {{.*}} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
// CHECK: %[[MASKED:.*]] = stablehlo.select %[[VALID]], %[[IF]], {{.*}} : tensor<3xi1>, tensor<3xf32>
// CHECK: stablehlo.reduce(%[[MASKED]] {{.*}} applies stablehlo.maximum
// CHECK: "stablehlo.all_reduce"
module @branches {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%p: tensor<i1>, %a: tensor<10xf32>) -> tensor<f32> {
    %c = sdy.sharding_constraint %a <@mesh, [{"x"}]> : tensor<10xf32>
    %r = "stablehlo.if"(%p) ({
      %q = stablehlo.divide %c, %c : tensor<10xf32>
      stablehlo.return %q : tensor<10xf32>
    }, {
      %ones = stablehlo.constant dense<1.0> : tensor<10xf32>
      stablehlo.return %ones : tensor<10xf32>
    }) : (tensor<i1>) -> tensor<10xf32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %m = stablehlo.reduce(%r init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<10xf32>, tensor<f32>) -> tensor<f32>
    return %m : tensor<f32>
  }
}
