// RUN: not kiln-opt --passes=import_gspmd_shardings --split-input-file %s 2>&1 | FileCheck %s
// What import_gspmd_shardings cannot express is an error at the op (or the
// function) that carries it.

// CHECK: import_gspmd_shardings_errors.mlir:[[@LINE+2]]:8: error: in pass 'import_gspmd_shardings': malformed mhlo.sharding: subgroups other than one replicated last dimension (last_tile_dims={manual...}) are not supported
func.func @partially_manual(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @Sharding(%a) {mhlo.sharding = "{devices=[2,2]<=[2,2] last_tile_dims={manual}}"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK: import_gspmd_shardings_errors.mlir:[[@LINE+1]]:1: error: in pass 'import_gspmd_shardings': argument #0: the sharding tiles 2 dimension(s) of a tensor of rank 1
func.func @rank_mismatch(%a: tensor<4xf32> {mhlo.sharding = "{devices=[2,2]<=[4]}"}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// CHECK: import_gspmd_shardings_errors.mlir:[[@LINE+1]]:1: error: in pass 'import_gspmd_shardings': argument #0 is {manual} outside a SPMDFullToShardShape/SPMDShardToFullShape region; this is not supported
func.func @manual_argument(%a: tensor<4xf32> {mhlo.sharding = "{manual}"}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

func.func @exit_without_entry(%a: tensor<2xf32>) -> tensor<4xf32> {
  // CHECK: import_gspmd_shardings_errors.mlir:[[@LINE+1]]:8: error: in pass 'import_gspmd_shardings': SPMDShardToFullShape without a SPMDFullToShardShape entering its region
  %0 = stablehlo.custom_call @SPMDShardToFullShape(%a) {mhlo.sharding = "{devices=[2]<=[2]}"} : (tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @manual_escapes(%a: tensor<4xf32>) -> tensor<2xf32> {
  %0 = stablehlo.custom_call @Sharding(%a) {mhlo.sharding = "{devices=[2]<=[2]}"} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<2xf32>
  // CHECK: import_gspmd_shardings_errors.mlir:[[@LINE+1]]:3: error: in pass 'import_gspmd_shardings': a manual value (inside a SPMDFullToShardShape region) leaves the block without SPMDShardToFullShape
  return %1 : tensor<2xf32>
}

// -----

func.func @unsharded_entry(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: import_gspmd_shardings_errors.mlir:[[@LINE+1]]:8: error: in pass 'import_gspmd_shardings': SPMDFullToShardShape of a value without a @Sharding to say how it is split; this is not supported
  %0 = stablehlo.custom_call @SPMDFullToShardShape(%a) {mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<2xf32>
  %1 = stablehlo.custom_call @SPMDShardToFullShape(%0) {mhlo.sharding = "{devices=[2]<=[2]}"} : (tensor<2xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// A region's ops may not read values computed outside it (other than constants).
func.func @reads_outside(%a: tensor<4xf32>, %b: tensor<2xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @Sharding(%a) {mhlo.sharding = "{devices=[2]<=[2]}"} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<2xf32>
  // CHECK: import_gspmd_shardings_errors.mlir:[[@LINE+1]]:8: error: in pass 'import_gspmd_shardings': an op inside a SPMDFullToShardShape region reads a value from outside it; this is not supported
  %2 = stablehlo.add %1, %b : tensor<2xf32>
  %3 = stablehlo.custom_call @SPMDShardToFullShape(%2) {mhlo.sharding = "{devices=[2]<=[2]}"} : (tensor<2xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// More than 2^20 devices (docs/limits.md): refused before the device list an
// iota stands for is written out, and before any product overflows.
// CHECK: import_gspmd_shardings_errors.mlir:[[@LINE+1]]:1: error: in pass 'import_gspmd_shardings': malformed mhlo.sharding: tiles more than 1048576 devices at offset 24
func.func @huge_iota(%a: tensor<8xf32> {mhlo.sharding = "{devices=[1099511627776]<=[1099511627776]}"}) -> tensor<8xf32> {
  return %a : tensor<8xf32>
}

// -----

// 2^32 x 2^32 tiles: 2^64 devices, which wraps to 0 in int64.
// CHECK: import_gspmd_shardings_errors.mlir:[[@LINE+1]]:1: error: in pass 'import_gspmd_shardings': malformed mhlo.sharding: tiles more than 1048576 devices at offset 32
func.func @tiles_overflow(%a: tensor<8x8xf32> {mhlo.sharding = "{devices=[4294967296,4294967296]<=[4294967296,4294967296]}"}) -> tensor<8x8xf32> {
  return %a : tensor<8x8xf32>
}

// -----

// Few tiles, but a reshape whose product overflows.
// CHECK: import_gspmd_shardings_errors.mlir:[[@LINE+1]]:1: error: in pass 'import_gspmd_shardings': malformed mhlo.sharding: <=[...] has more than 1048576 devices
func.func @reshape_overflow(%a: tensor<8xf32> {mhlo.sharding = "{devices=[2]<=[4294967296,4294967296]}"}) -> tensor<8xf32> {
  return %a : tensor<8xf32>
}

// -----

// Tuples of tuples 300 deep (a string of `{` overflowed the stack of the
// recursive reader): at most 256 levels.
// CHECK: import_gspmd_shardings_errors.mlir:[[@LINE+1]]:1: error: in pass 'import_gspmd_shardings': malformed mhlo.sharding: tuple shardings nested deeper than 256 levels at offset 257
func.func @deep_tuple(%a: tensor<8xf32> {mhlo.sharding = "{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{replicated}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}"}) -> tensor<8xf32> {
  return %a : tensor<8xf32>
}
