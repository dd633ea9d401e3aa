// The sdy ops' checks: meshes are well formed; every sharding (on function
// arguments and results, ops, constraints and manual computations) names a
// mesh of the module, gives one entry per dimension, and uses axes of the mesh
// at most once; manual axes divide their dimensions; meshes are symbols like
// functions.
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

// -----

module {
  // expected-error @+1 {{mesh axis "x" has size 0}}
  sdy.mesh @mesh = <["x"=0]>
}

// -----

module {
  // expected-error @+1 {{axis "x" is named twice}}
  sdy.mesh @mesh = <["x"=2, "x"=2]>
}

// -----

module {
  // expected-error @+1 {{lists 3 device id(s) for 4 devices}}
  sdy.mesh @mesh = <["x"=2, "y"=2], device_ids=[0, 1, 2]>
}

// -----

module {
  // expected-error @+1 {{device id 1 is listed twice}}
  sdy.mesh @mesh = <["x"=2, "y"=2], device_ids=[0, 1, 1, 3]>
}

// -----

module {
  // expected-error @+1 {{device id 4 is not in [0, 4)}}
  sdy.mesh @mesh = <["x"=4], device_ids=[0, 1, 2, 4]>
}

// -----

module {
  sdy.mesh @mesh = <["x"=2]>
  // expected-error @+1 {{has a sharding on argument #0 that does not fit tensor<4xf32>: #sdy.sharding<@mesh, [{"z"}]>: axis "z" is not in the mesh}}
  func.func @arg_unknown_axis(%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"z"}]>}) -> tensor<4xf32> {
    return %arg0 : tensor<4xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["x"=2]>
  // expected-error @+1 {{has a sharding on result #0 that does not fit tensor<4x2xf32>: #sdy.sharding<@mesh, [{"x"}]>: gives 1 dimension(s) for a tensor of rank 2}}
  func.func @result_rank(%arg0: tensor<4x2xf32>) -> (tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) {
    return %arg0 : tensor<4x2xf32>
  }
}

// -----

module {
  // expected-error @+1 {{has a sharding on argument #0 that refers to mesh @absent, which is not an sdy.mesh of this module}}
  func.func @arg_unknown_mesh(%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@absent, [{}]>}) -> tensor<4xf32> {
    return %arg0 : tensor<4xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func @axis_twice(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {
    // expected-error @+1 {{axis "x" is used more than once}}
    %0 = stablehlo.negate %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {"y", "x"}]>]>} : tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["x"=2]>
  func.func @per_value_count(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{has 2 sharding(s) in 'sdy.sharding' for 1 result(s)}}
    %0 = stablehlo.negate %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}]>, <@mesh, [{}]>]>} : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["x"=2]>
  func.func @constraint_unknown_axis(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{has a sharding that does not fit tensor<4xf32>: #sdy.sharding<@mesh, [{"y"}]>: axis "y" is not in the mesh}}
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"y"}]> : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["x"=2]>
  func.func @reshard_replicated_twice(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{axis "x" is used more than once}}
    %0 = sdy.reshard %arg0 <@mesh, [{"x"}], replicated={"x"}> : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["x"=2]>
  func.func @negative_priority(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{priority p-1 is negative}}
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x"}p-1]> : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// A dimension that the axes do not divide is legal Shardy (it pads): the
// verifier accepts it, and the SPMD partitioner decides.
module {
  sdy.mesh @mesh = <["x"=4]>
  func.func @not_divisible_is_legal(%arg0: tensor<6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> tensor<6xf32> {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x", ?}p0]> : tensor<6xf32>
    // expected-error @+1 {{'sdy.sharding_group' op has a negative group_id -1}}
    sdy.sharding_group %0 group_id=-1 : tensor<6xf32>
    return %0 : tensor<6xf32>
  }
}

// -----

func.func @barrier_both(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{cannot allow propagation in BOTH directions}}
  %0 = sdy.propagation_barrier %arg0 allowed_direction=BOTH : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @barrier_both_generic(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{cannot allow propagation in BOTH directions}}
  %0 = "sdy.propagation_barrier"(%arg0) <{allowed_direction = 3 : i32}> : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @barrier_unknown(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{has an unknown propagation direction 7}}
  %0 = "sdy.propagation_barrier"(%arg0) <{allowed_direction = 7 : i32}> : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @barrier_unknown_name(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected a propagation direction (NONE, FORWARD or BACKWARD)}}
  %0 = sdy.propagation_barrier %arg0 allowed_direction=SIDEWAYS : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

module {
  sdy.mesh @mesh = <["i"=2]>
  func.func public @manual_unknown_axis(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    // expected-error @+1 {{has manual axis "j", which is not in the mesh of operand #0}}
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"i"}]>]>, manual_axes = #sdy<manual_axes{"j"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"i"}]>]>}> ({
    ^bb0(%arg1: tensor<1xf32>):
      "sdy.return"(%arg1) : (tensor<1xf32>) -> ()
    }) : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["i"=4]>
  func.func public @manual_not_divisible(%arg0: tensor<6xf32>) -> tensor<6xf32> {
    // expected-error @+1 {{has operand #0 whose dimension 0 of size 6 does not divide over its manual axes (4 devices)}}
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"i"}]>]>, manual_axes = #sdy<manual_axes{"i"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"i"}]>]>}> ({
    ^bb0(%arg1: tensor<1xf32>):
      "sdy.return"(%arg1) : (tensor<1xf32>) -> ()
    }) : (tensor<6xf32>) -> tensor<6xf32>
    return %0 : tensor<6xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["i"=2]>
  func.func public @manual_body_type(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{has result #0 of global type tensor<4xf32> whose body type is tensor<4xf32>, but its manual axes make it tensor<2xf32>}}
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{}]>]>, manual_axes = #sdy<manual_axes{"i"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"i"}]>]>}> ({
    ^bb0(%arg1: tensor<4xf32>):
      "sdy.return"(%arg1) : (tensor<4xf32>) -> ()
    }) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["i"=2]>
  func.func public @manual_count(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    // expected-error @+1 {{has 2 sharding(s) in 'in_shardings' for 1 operand(s)}}
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"i"}]>, <@mesh, [{"i"}]>]>, manual_axes = #sdy<manual_axes{"i"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"i"}]>]>}> ({
    ^bb0(%arg1: tensor<1xf32>):
      "sdy.return"(%arg1) : (tensor<1xf32>) -> ()
    }) : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}

// -----

module {
  sdy.mesh @mesh = <["i"=2, "j"=2]>
  func.func public @manual_after_free(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{has operand #0 whose dimension 0 lists manual axis "i" after free axis "j"}}
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"j", "i"}]>]>, manual_axes = #sdy<manual_axes{"i"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"i"}]>]>}> ({
    ^bb0(%arg1: tensor<2xf32>):
      "sdy.return"(%arg1) : (tensor<2xf32>) -> ()
    }) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// A sharding over a maximal mesh (one device) has no dimensions, whatever the rank.
module {
  sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]>
  func.func @maximal_with_dims(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.negate %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>]>} : tensor<4xf32>
    // expected-error @+1 {{has a sharding for result #0 over the maximal mesh of device 0, which must have no dimensions}}
    %1 = stablehlo.abs %0 {sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, [{}]>]>} : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}

// -----

func.func @inline_mesh_ill_formed(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{has a sharding that writes an ill-formed mesh #sdy.mesh<["a"=2, "a"=2]>: axis "a" is named twice}}
  %0 = sdy.sharding_constraint %arg0 <mesh<["a"=2, "a"=2]>, [{"a"}]> : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

module {
  sdy.mesh @mesh = <["i"=2]>
  sdy.mesh @other = <["i"=2]>
  func.func public @manual_two_meshes(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    // expected-error @+1 {{has shardings over different meshes (<@mesh, [{"i"}]> and <@other, [{"i"}]>)}}
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"i"}]>] out_shardings=[<@other, [{"i"}]>] manual_axes={"i"} (%arg1: tensor<1xf32>) {
      sdy.return %arg1 : tensor<1xf32>
    } : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}

// -----

// A mesh of more than 2^20 devices (docs/limits.md); 2^40 x 2^40 would wrap
// the count of devices (mhlo.num_partitions) to 0.
// expected-error @+1 {{has an ill-formed mesh #sdy.mesh<["x"=1099511627776, "y"=1099511627776]>: has more than 1048576 devices}}
sdy.mesh @huge = <["x"=1099511627776, "y"=1099511627776]>
