// RUN: kiln-opt --split-input-file --verify-diagnostics %s
// The type rules of the collective and distribution ops.

func.func @collectives(%a: tensor<2x2xi64>, %b: tensor<2x4xi64>) -> tensor<2x4xi64> {
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>} : (tensor<2x2xi64>) -> tensor<2x4xi64>
  %1 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x2xi64>
  %2 = "stablehlo.all_to_all"(%b) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xi64>) -> tensor<4x2xi64>
  %3 = "stablehlo.reduce_scatter"(%b) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xi64>) -> tensor<2x2xi64>
  %4 = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>} : (tensor<2x2xi64>) -> tensor<2x2xi64>
  %5 = "stablehlo.collective_broadcast"(%a) {replica_groups = dense<[[2, 1]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x2xi64>
  %6 = "stablehlo.collective_reduce"(%a) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x2xi64>
  %7 = "stablehlo.partition_id"() : () -> tensor<ui32>
  %8 = "stablehlo.replica_id"() : () -> tensor<ui32>
  return %0 : tensor<2x4xi64>
}

// -----

// all_gather (C1) all_gather_dim in range
func.func @all_gather_dim(%a: tensor<2x2xi64>) -> tensor<2x4xi64> {
  // expected-error @+1 {{expects all_gather_dim to be in [0, 2), got 2}}
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x4xi64>
  return %0 : tensor<2x4xi64>
}

// -----

func.func @all_reduce_groups(%a: tensor<2xi64>) -> tensor<2xi64> {
  // expected-error @+1 {{expects replica_groups to be unique, got 0 twice}}
  %0 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {replica_groups = dense<[[0, 0]]> : tensor<1x2xi64>} : (tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// all_reduce (C4) global device ids need a channel
func.func @all_reduce_global_ids(%a: tensor<2xi64>) -> tensor<2xi64> {
  // expected-error @+1 {{expects channel_id > 0 when use_global_device_ids is set}}
  %0 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids} : (tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// all_to_all (C2) split dimension divisible by split_count
func.func @all_to_all_split(%a: tensor<2x3xi64>) -> tensor<4x2xi64> {
  // expected-error @+1 {{expects dimension 1 of tensor<2x3xi64> to be divisible by split_count 2}}
  %0 = "stablehlo.all_to_all"(%a) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x3xi64>) -> tensor<4x2xi64>
  return %0 : tensor<4x2xi64>
}

// -----

// reduce_scatter (C1) scatter dimension divisible by the group size
func.func @reduce_scatter_divisible(%a: tensor<2x3xi64>) -> tensor<2x1xi64> {
  // expected-error @+1 {{expects dimension 1 of tensor<2x3xi64> to be divisible by the group size 2}}
  %0 = "stablehlo.reduce_scatter"(%a) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x3xi64>) -> tensor<2x1xi64>
  return %0 : tensor<2x1xi64>
}

// -----

// collective_permute (C3) unique targets
func.func @collective_permute_targets(%a: tensor<2xi64>) -> tensor<2xi64> {
  // expected-error @+1 {{expects targets of source_target_pairs to be unique, got [1, 1]}}
  %0 = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1], [2, 1]]> : tensor<2x2xi64>} : (tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// collective_broadcast (C3) result type
func.func @collective_broadcast_type(%a: tensor<2xi64>) -> tensor<2xi32> {
  // expected-error @+1 {{result #0 has type tensor<2xi32> but its operands and attributes give tensor<2xi64>}}
  %0 = "stablehlo.collective_broadcast"(%a) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi64>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @collective_reduce_groups(%a: tensor<2xi64>) -> tensor<2xi64> {
  // expected-error @+1 {{expects replica_groups to be non-negative, got -2}}
  %0 = "stablehlo.collective_reduce"(%a) {replica_groups = dense<[[0, -2]]> : tensor<1x2xi64>} : (tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @partition_id_type() -> tensor<i32> {
  // expected-error @+1 {{result #0 has type tensor<i32> but its operands and attributes give tensor<ui32>}}
  %0 = "stablehlo.partition_id"() : () -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @replica_id_type() -> tensor<ui64> {
  // expected-error @+1 {{result #0 has type tensor<ui64> but its operands and attributes give tensor<ui32>}}
  %0 = "stablehlo.replica_id"() : () -> tensor<ui64>
  return %0 : tensor<ui64>
}
