// RUN: kiln-opt --split-input-file --verify-diagnostics %s
// Limits: sizes that cannot be represented are errors where they are
// written, before anything is allocated (docs/ops.md, "Limits").

// A product of dimensions past 2^63 bytes (each dimension is below 2^48).
// expected-error @+1 {{tensor type tensor<2147483648x2147483648x4xf32> holds more than 2^63 bytes}}
func.func @too_many_bytes(%a: tensor<2147483648x2147483648x4xf32>) {
  return
}

// -----

// expected-error @+1 {{tensor dimension is too large}}
func.func @dimension_too_large(%a: tensor<281474976710657xf32>) {
  return
}

// -----

func.func @pad_overflow(%a: tensor<3xf32>, %p: tensor<f32>) {
  // expected-error @+1 {{has a result size in dimension 0 that overflows int64}}
  %0 = stablehlo.pad %a, %p, low = [9223372036854775807], high = [9223372036854775807], interior = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return
}

// -----

// A splat stores one element whatever its shape: the type rules read at most
// 2^20 elements out of a dense attribute (docs/limits.md), so a short text
// never expands to terabytes. replica_groups of 2^40 ids:
func.func @huge_replica_groups(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'stablehlo.all_reduce' op expects attribute 'replica_groups' (tensor<1048576x1048576xi64>) to have at most 1048576 elements}}
  %0 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<0> : tensor<1048576x1048576xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @huge_ragged_replica_groups(%a: tensor<4xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{expects attribute 'replica_groups' (tensor<1x1099511627776xi64>) to have at most 1048576 elements}}
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<-1> : tensor<1x1099511627776xi64>} : (tensor<4xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

func.func @huge_source_target_pairs(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects attribute 'source_target_pairs' (tensor<1099511627776x2xi64>) to have at most 1048576 elements}}
  %0 = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<0> : tensor<1099511627776x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @huge_cross_replica_sum(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects attribute 'replica_groups' (tensor<1099511627776x1xi64>) to have at most 1048576 elements}}
  %0 = "stablehlo.cross-replica-sum"(%a) {replica_groups = dense<0> : tensor<1099511627776x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Lists of dimensions: required (broadcast_dimensions), optional with a
// default (slice's strides).
func.func @huge_dimension_list(%a: tensor<4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{expects attribute 'broadcast_dimensions' (tensor<1099511627776xi64>) to have at most 1048576 elements}}
  %0 = "stablehlo.broadcast_in_dim"(%a) {broadcast_dimensions = dense<0> : tensor<1099511627776xi64>} : (tensor<4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @huge_optional_list(%a: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects attribute 'strides' (tensor<1099511627776xi64>) to have at most 1048576 elements}}
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 2>, strides = dense<1> : tensor<1099511627776xi64>} : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @huge_window(%a: tensor<4xf32>, %i: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+1 {{expects attribute 'padding' (tensor<1099511627776x2xi64>) to have at most 1048576 elements}}
  %0 = "stablehlo.reduce_window"(%a, %i) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 2>, padding = dense<0> : tensor<1099511627776x2xi64>} : (tensor<4xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @huge_window_reversal(%lhs: tensor<1x4x4x1xf32>, %rhs: tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32> {
  // expected-error @+1 {{expects attribute 'window_reversal' (tensor<1099511627776xi1>) to have at most 1048576 elements}}
  %0 = "stablehlo.convolution"(%lhs, %rhs) {window_strides = array<i64: 1, 1>, window_reversal = dense<false> : tensor<1099511627776xi1>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return %0 : tensor<1x2x2x1xf32>
}

// -----

// A splat constant may be as large as a type allows: it is never expanded
// by the verifier or the printer (the back ends check it against the memory
// limit before their pipelines; tests/lit/limits/).
func.func @huge_splat_constant() -> tensor<1099511627776x1048576xi8> {
  %0 = stablehlo.constant dense<7> : tensor<1099511627776x1048576xi8>
  return %0 : tensor<1099511627776x1048576xi8>
}

// -----

// Sizes the type rules compute from attributes that may hold any int64:
// a dilation, padding, a group size or split_count past int64 is the
// verifier's error (UBSan saw the products overflow before).
func.func @reduce_window_dilation_overflow(%a: tensor<3xf32>, %i: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+1 {{'stablehlo.reduce_window' op has a result size in dimension 0 that overflows int64}}
  %0 = "stablehlo.reduce_window"(%a, %i) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 1>, base_dilations = array<i64: 9223372036854775807>} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @reduce_window_padding_overflow(%a: tensor<3xf32>, %i: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+1 {{'stablehlo.reduce_window' op has a result size in dimension 0 that overflows int64}}
  %0 = "stablehlo.reduce_window"(%a, %i) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 1>, padding = dense<[[9223372036854775807, 9223372036854775807]]> : tensor<1x2xi64>} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @convolution_dilation_overflow(%lhs: tensor<1x4x4x1xf32>, %rhs: tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32> {
  // expected-error @+1 {{'stablehlo.convolution' op has a result size in dimension 1 that overflows int64}}
  %0 = "stablehlo.convolution"(%lhs, %rhs) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 9223372036854775807, 1>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return %0 : tensor<1x2x2x1xf32>
}

// -----

func.func @select_and_scatter_padding_overflow(%a: tensor<4xf32>, %src: tensor<2xf32>, %i: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'stablehlo.select_and_scatter' op has windows in dimension 0 whose count overflows int64}}
  %0 = "stablehlo.select_and_scatter"(%a, %src, %i) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = stablehlo.compare GE, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 2>, padding = dense<[[9223372036854775807, 9223372036854775807]]> : tensor<1x2xi64>} : (tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// split_dimension is `?`: nothing bounds split_count by the operand's size.
func.func @all_to_all_concat_overflow(%a: tensor<?x281474976710656xi1>) -> tensor<?x281474976710656xi1> {
  // expected-error @+1 {{'stablehlo.all_to_all' op has a result size in dimension 1 that overflows int64}}
  %0 = "stablehlo.all_to_all"(%a) {split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 1099511627776 : i64} : (tensor<?x281474976710656xi1>) -> tensor<?x281474976710656xi1>
  return %0 : tensor<?x281474976710656xi1>
}

// -----

// `?` dimensions (Type::kDynamic, INT64_MIN) stay `?` through the window and
// group arithmetic instead of overflowing it.
func.func @dynamic_windows_and_groups(%a: tensor<?xf32>, %i: tensor<f32>, %b: tensor<4x?xf32>) -> (tensor<?xf32>, tensor<8x?xf32>, tensor<?xf32>) {
  %0 = "stablehlo.reduce_window"(%a, %i) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 2>, base_dilations = array<i64: 3>, padding = dense<[[1, 1]]> : tensor<1x2xi64>} : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %1 = "stablehlo.all_to_all"(%b) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64} : (tensor<4x?xf32>) -> tensor<8x?xf32>
  %2 = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<?xf32>) -> tensor<?xf32>
  return %0, %1, %2 : tensor<?xf32>, tensor<8x?xf32>, tensor<?xf32>
}

// -----

// A quantization dimension is stored in 32 bits: 2^32 read as 0 before, a
// valid axis of this type.
// expected-error @+1 {{quantized dimension 4294967296 is out of range}}
func.func @quantized_dimension_wraps(%a: tensor<2x!quant.uniform<i8:f32:4294967296, {1.0, 2.0}>>) {
  return
}

// -----

// The operand's `?` dimension leaves limit_indices unbounded: the size of the
// slice is computed without limit + stride - 1 (which overflowed).
func.func @slice_of_dynamic_to_int64_max(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 9223372036854775807>, strides = array<i64: 2>} : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
