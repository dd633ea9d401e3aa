// Sub-axes ("x":(p)s, the middle of x's parts p, s and n / (p x s)): each is
// a proper part of an axis of the mesh, overlaps no other axis reference of
// the sharding, and does not directly follow the sub-axis it extends in a
// dimension (Shardy's rules).
// RUN: kiln-opt --split-input-file --verify-diagnostics %s

module {
  sdy.mesh @mesh = <["x"=8, "y"=2]>
  func.func @pre_size_below_one(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    // expected-error @+1 {{sub-axis "x":(0)2 has a pre-size below 1}}
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x":(0)2}]> : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["x"=8, "y"=2]>
  func.func @size_one(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    // expected-error @+1 {{sub-axis "x":(2)1 has a size below 2}}
    %0 = stablehlo.negate %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x":(2)1}]>]>} : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["x"=8, "y"=2]>
  // expected-error @+1 {{sub-axis "x":(4)4: pre-size x size = 16 does not divide the size 8 of axis "x"}}
  func.func @beyond_the_axis(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(4)4}]>}) -> tensor<8xf32> {
    return %arg0 : tensor<8xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["x"=8, "y"=2]>
  func.func @not_dividing(%arg0: tensor<6xf32>) -> tensor<6xf32> {
    // expected-error @+1 {{sub-axis "x":(3)2: pre-size x size = 6 does not divide the size 8 of axis "x"}}
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x":(3)2}]> : tensor<6xf32>
    return %0 : tensor<6xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["x"=8, "y"=2]>
  func.func @whole_axis(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    // expected-error @+1 {{sub-axis "x":(1)8 is the whole axis; write "x"}}
    %0 = sdy.reshard %arg0 <@mesh, [{"x":(1)8}]> : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["x"=8, "y"=2]>
  func.func @unknown_axis(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    // expected-error @+1 {{axis "z" is not in the mesh}}
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"z":(1)2}]> : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["x"=8, "y"=2]>
  func.func @overlap_whole(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    // expected-error @+1 {{axes "x" and "x":(2)2 overlap}}
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x"}, {"x":(2)2}]> : tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["x"=8, "y"=2]>
  func.func @overlap_replicated(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    // expected-error @+1 {{axes "x":(2)4 and "x":(1)4 overlap}}
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x":(2)4}, {}], replicated={"x":(1)4}> : tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["x"=8, "y"=2]>
  func.func @twice(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    // expected-error @+1 {{axis "x":(2)2 is used more than once}}
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x":(2)2}, {}], unreduced={"x":(2)2}> : tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["x"=8, "y"=2]>
  func.func @mergeable(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    // expected-error @+1 {{sub-axes "x":(2)2, "x":(4)2 are consecutive parts of one sub-axis; write them as one}}
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x":(2)2, "x":(4)2}, {}]> : tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}

// -----

// Manual axes are whole axes.
module {
  sdy.mesh @mesh = <["x"=4]>
  func.func @manual_sub_axis(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    // expected-error @+1 {{malformed #sdy<manual_axes{...}>}}
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x":(1)2} (%arg1: tensor<2xf32>) {
      sdy.return %arg1 : tensor<2xf32>
    } : (tensor<8xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}
