// The sdy ops' checks: a sharding names a mesh of the module and has one
// entry per dimension; meshes are symbols like functions.
// RUN: kiln-opt --split-input-file --verify-diagnostics %s

module {
  func.func @unknown_mesh(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{refers to mesh @nowhere, which is not an sdy.mesh of this module}}
    %0 = sdy.sharding_constraint %arg0 <@nowhere, [{"x"}]> : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["x"=1]>
  func.func @rank_mismatch(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
    // expected-error @+1 {{has a sharding of 1 dimension(s) for a tensor of rank 2}}
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x"}]> : tensor<4x2xf32>
    return %0 : tensor<4x2xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["x"=1]>
  // expected-error @+1 {{redefines the symbol @mesh}}
  func.func @mesh(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    return %arg0 : tensor<4xf32>
  }
}

// -----

module {
  // expected-error @+1 {{requires a '#sdy.mesh<...>' attribute 'mesh'}}
  "sdy.mesh"() <{mesh = 3 : i64, sym_name = "m"}> : () -> ()
}

// -----

module {
  sdy.mesh @mesh = <["x"=1]>
  func.func @type_change(%arg0: tensor<4xf32>) -> tensor<4xf64> {
    // expected-error @+1 {{result #0 has type tensor<4xf64>}}
    %0 = "sdy.sharding_constraint"(%arg0) <{sharding = #sdy.sharding<@mesh, [{"x"}]>}> : (tensor<4xf32>) -> tensor<4xf64>
    return %0 : tensor<4xf64>
  }
}
