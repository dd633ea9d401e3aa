// Elementwise ops: the 28 unary and 20 binary/ternary ops, map.
// Each chunk is given in the pretty form; the CHECK and GENERIC lines are what
// MLIR (jaxlib) prints for it. The generic output must parse back to the same
// pretty form, and printing is a fixed point.
// RUN: kiln-opt --split-input-file %s | FileCheck %s
// RUN: kiln-opt --split-input-file %s | kiln-opt --split-input-file | FileCheck %s
// RUN: kiln-opt --split-input-file --generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: kiln-opt --split-input-file --generic %s | kiln-opt --split-input-file | FileCheck %s

func.func @unary_float(%arg0: tensor<2xf32>, %arg1: tensor<2xcomplex<f32>>) {
  %0 = stablehlo.cbrt %arg0 : tensor<2xf32>
  %1 = stablehlo.ceil %arg0 : tensor<2xf32>
  %2 = stablehlo.cosine %arg0 : tensor<2xf32>
  %3 = stablehlo.exponential %arg0 : tensor<2xf32>
  %4 = stablehlo.exponential_minus_one %arg0 : tensor<2xf32>
  %5 = stablehlo.floor %arg0 : tensor<2xf32>
  %6 = stablehlo.log %arg0 : tensor<2xf32>
  %7 = stablehlo.log_plus_one %arg0 : tensor<2xf32>
  %8 = stablehlo.logistic %arg0 : tensor<2xf32>
  %9 = stablehlo.negate %arg0 : tensor<2xf32>
  %10 = stablehlo.round_nearest_afz %arg0 : tensor<2xf32>
  %11 = stablehlo.round_nearest_even %arg0 : tensor<2xf32>
  %12 = stablehlo.rsqrt %arg0 : tensor<2xf32>
  %13 = stablehlo.sign %arg0 : tensor<2xf32>
  %14 = stablehlo.sine %arg0 : tensor<2xf32>
  %15 = stablehlo.sqrt %arg0 : tensor<2xf32>
  %16 = stablehlo.tan %arg0 : tensor<2xf32>
  %17 = stablehlo.tanh %arg0 : tensor<2xf32>
  %18 = stablehlo.abs %arg0 : tensor<2xf32>
  %19 = stablehlo.real %arg1 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %20 = stablehlo.imag %arg1 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %21 = stablehlo.abs %arg1 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %22 = stablehlo.is_finite %arg0 : (tensor<2xf32>) -> tensor<2xi1>
  %23 = stablehlo.convert %arg0 : (tensor<2xf32>) -> tensor<2xbf16>
  %24 = stablehlo.bitcast_convert %arg0 : (tensor<2xf32>) -> tensor<2xi32>
  %25 = stablehlo.convert %arg0 : tensor<2xf32>
  %26 = stablehlo.reduce_precision %arg0, format = e5m10 : tensor<2xf32>
  %27 = stablehlo.exponential %arg0 {result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<2xf32>
  %28 = stablehlo.tanh %arg0 : tensor<2xf32>
  return
}
// CHECK: module {
// CHECK-LABEL: func.func @unary_float(%arg0: tensor<2xf32>, %arg1: tensor<2xcomplex<f32>>) {
// CHECK-NEXT: %0 = stablehlo.cbrt %arg0 : tensor<2xf32>
// CHECK-NEXT: %1 = stablehlo.ceil %arg0 : tensor<2xf32>
// CHECK-NEXT: %2 = stablehlo.cosine %arg0 : tensor<2xf32>
// CHECK-NEXT: %3 = stablehlo.exponential %arg0 : tensor<2xf32>
// CHECK-NEXT: %4 = stablehlo.exponential_minus_one %arg0 : tensor<2xf32>
// CHECK-NEXT: %5 = stablehlo.floor %arg0 : tensor<2xf32>
// CHECK-NEXT: %6 = stablehlo.log %arg0 : tensor<2xf32>
// CHECK-NEXT: %7 = stablehlo.log_plus_one %arg0 : tensor<2xf32>
// CHECK-NEXT: %8 = stablehlo.logistic %arg0 : tensor<2xf32>
// CHECK-NEXT: %9 = stablehlo.negate %arg0 : tensor<2xf32>
// CHECK-NEXT: %10 = stablehlo.round_nearest_afz %arg0 : tensor<2xf32>
// CHECK-NEXT: %11 = stablehlo.round_nearest_even %arg0 : tensor<2xf32>
// CHECK-NEXT: %12 = stablehlo.rsqrt %arg0 : tensor<2xf32>
// CHECK-NEXT: %13 = stablehlo.sign %arg0 : tensor<2xf32>
// CHECK-NEXT: %14 = stablehlo.sine %arg0 : tensor<2xf32>
// CHECK-NEXT: %15 = stablehlo.sqrt %arg0 : tensor<2xf32>
// CHECK-NEXT: %16 = stablehlo.tan %arg0 : tensor<2xf32>
// CHECK-NEXT: %17 = stablehlo.tanh %arg0 : tensor<2xf32>
// CHECK-NEXT: %18 = stablehlo.abs %arg0 : tensor<2xf32>
// CHECK-NEXT: %19 = stablehlo.real %arg1 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
// CHECK-NEXT: %20 = stablehlo.imag %arg1 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
// CHECK-NEXT: %21 = stablehlo.abs %arg1 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
// CHECK-NEXT: %22 = stablehlo.is_finite %arg0 : (tensor<2xf32>) -> tensor<2xi1>
// CHECK-NEXT: %23 = stablehlo.convert %arg0 : (tensor<2xf32>) -> tensor<2xbf16>
// CHECK-NEXT: %24 = stablehlo.bitcast_convert %arg0 : (tensor<2xf32>) -> tensor<2xi32>
// CHECK-NEXT: %25 = stablehlo.convert %arg0 : tensor<2xf32>
// CHECK-NEXT: %26 = stablehlo.reduce_precision %arg0, format = e5m10 : tensor<2xf32>
// CHECK-NEXT: %27 = stablehlo.exponential %arg0 {result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<2xf32>
// CHECK-NEXT: %28 = stablehlo.tanh %arg0 : tensor<2xf32>
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
// GENERIC: "builtin.module"() ({
// GENERIC-NEXT: "func.func"() <{function_type = (tensor<2xf32>, tensor<2xcomplex<f32>>) -> (), sym_name = "unary_float"}> ({
// GENERIC-NEXT: ^bb0(%arg0: tensor<2xf32>, %arg1: tensor<2xcomplex<f32>>):
// GENERIC-NEXT: %0 = "stablehlo.cbrt"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %1 = "stablehlo.ceil"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %2 = "stablehlo.cosine"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %3 = "stablehlo.exponential"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %4 = "stablehlo.exponential_minus_one"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %5 = "stablehlo.floor"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %6 = "stablehlo.log"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %7 = "stablehlo.log_plus_one"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %8 = "stablehlo.logistic"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %9 = "stablehlo.negate"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %10 = "stablehlo.round_nearest_afz"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %11 = "stablehlo.round_nearest_even"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %12 = "stablehlo.rsqrt"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %13 = "stablehlo.sign"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %14 = "stablehlo.sine"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %15 = "stablehlo.sqrt"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %16 = "stablehlo.tan"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %17 = "stablehlo.tanh"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %18 = "stablehlo.abs"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %19 = "stablehlo.real"(%arg1) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
// GENERIC-NEXT: %20 = "stablehlo.imag"(%arg1) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
// GENERIC-NEXT: %21 = "stablehlo.abs"(%arg1) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
// GENERIC-NEXT: %22 = "stablehlo.is_finite"(%arg0) : (tensor<2xf32>) -> tensor<2xi1>
// GENERIC-NEXT: %23 = "stablehlo.convert"(%arg0) : (tensor<2xf32>) -> tensor<2xbf16>
// GENERIC-NEXT: %24 = "stablehlo.bitcast_convert"(%arg0) : (tensor<2xf32>) -> tensor<2xi32>
// GENERIC-NEXT: %25 = "stablehlo.convert"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %26 = "stablehlo.reduce_precision"(%arg0) <{exponent_bits = 5 : i32, mantissa_bits = 10 : i32}> : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %27 = "stablehlo.exponential"(%arg0) <{result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>}> : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %28 = "stablehlo.tanh"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: "func.return"() : () -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC-NEXT: }) : () -> ()

// -----

func.func @unary_integer(%arg0: tensor<2xi32>) {
  %0 = stablehlo.count_leading_zeros %arg0 : tensor<2xi32>
  %1 = stablehlo.not %arg0 : tensor<2xi32>
  %2 = stablehlo.popcnt %arg0 : tensor<2xi32>
  %3 = stablehlo.abs %arg0 : tensor<2xi32>
  %4 = stablehlo.negate %arg0 : tensor<2xi32>
  %5 = stablehlo.sign %arg0 : tensor<2xi32>
  %6 = stablehlo.bitcast_convert %arg0 : (tensor<2xi32>) -> tensor<2x4xi8>
  return
}
// CHECK: module {
// CHECK-LABEL: func.func @unary_integer(%arg0: tensor<2xi32>) {
// CHECK-NEXT: %0 = stablehlo.count_leading_zeros %arg0 : tensor<2xi32>
// CHECK-NEXT: %1 = stablehlo.not %arg0 : tensor<2xi32>
// CHECK-NEXT: %2 = stablehlo.popcnt %arg0 : tensor<2xi32>
// CHECK-NEXT: %3 = stablehlo.abs %arg0 : tensor<2xi32>
// CHECK-NEXT: %4 = stablehlo.negate %arg0 : tensor<2xi32>
// CHECK-NEXT: %5 = stablehlo.sign %arg0 : tensor<2xi32>
// CHECK-NEXT: %6 = stablehlo.bitcast_convert %arg0 : (tensor<2xi32>) -> tensor<2x4xi8>
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
// GENERIC: "builtin.module"() ({
// GENERIC-NEXT: "func.func"() <{function_type = (tensor<2xi32>) -> (), sym_name = "unary_integer"}> ({
// GENERIC-NEXT: ^bb0(%arg0: tensor<2xi32>):
// GENERIC-NEXT: %0 = "stablehlo.count_leading_zeros"(%arg0) : (tensor<2xi32>) -> tensor<2xi32>
// GENERIC-NEXT: %1 = "stablehlo.not"(%arg0) : (tensor<2xi32>) -> tensor<2xi32>
// GENERIC-NEXT: %2 = "stablehlo.popcnt"(%arg0) : (tensor<2xi32>) -> tensor<2xi32>
// GENERIC-NEXT: %3 = "stablehlo.abs"(%arg0) : (tensor<2xi32>) -> tensor<2xi32>
// GENERIC-NEXT: %4 = "stablehlo.negate"(%arg0) : (tensor<2xi32>) -> tensor<2xi32>
// GENERIC-NEXT: %5 = "stablehlo.sign"(%arg0) : (tensor<2xi32>) -> tensor<2xi32>
// GENERIC-NEXT: %6 = "stablehlo.bitcast_convert"(%arg0) : (tensor<2xi32>) -> tensor<2x4xi8>
// GENERIC-NEXT: "func.return"() : () -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC-NEXT: }) : () -> ()

// -----

func.func @binary(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<2xi32>, %arg3: tensor<2xi1>, %arg4: tensor<f32>, %arg5: tensor<i1>) {
  %0 = stablehlo.add %arg0, %arg1 : tensor<2xf32>
  %1 = stablehlo.atan2 %arg0, %arg1 : tensor<2xf32>
  %2 = stablehlo.divide %arg0, %arg1 : tensor<2xf32>
  %3 = stablehlo.maximum %arg0, %arg1 : tensor<2xf32>
  %4 = stablehlo.minimum %arg0, %arg1 : tensor<2xf32>
  %5 = stablehlo.multiply %arg0, %arg1 : tensor<2xf32>
  %6 = stablehlo.power %arg0, %arg1 : tensor<2xf32>
  %7 = stablehlo.remainder %arg0, %arg1 : tensor<2xf32>
  %8 = stablehlo.subtract %arg0, %arg1 : tensor<2xf32>
  %9 = stablehlo.and %arg2, %arg2 : tensor<2xi32>
  %10 = stablehlo.or %arg2, %arg2 : tensor<2xi32>
  %11 = stablehlo.xor %arg2, %arg2 : tensor<2xi32>
  %12 = stablehlo.shift_left %arg2, %arg2 : tensor<2xi32>
  %13 = stablehlo.shift_right_arithmetic %arg2, %arg2 : tensor<2xi32>
  %14 = stablehlo.shift_right_logical %arg2, %arg2 : tensor<2xi32>
  %15 = stablehlo.add %arg2, %arg2 : tensor<2xi32>
  %16 = stablehlo.and %arg3, %arg3 : tensor<2xi1>
  %17 = stablehlo.complex %arg0, %arg1 : tensor<2xcomplex<f32>>
  %18 = stablehlo.clamp %arg0, %arg1, %arg0 : tensor<2xf32>
  %19 = stablehlo.clamp %arg4, %arg1, %arg4 : (tensor<f32>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %20 = stablehlo.select %arg3, %arg0, %arg1 : tensor<2xi1>, tensor<2xf32>
  %21 = stablehlo.select %arg5, %arg0, %arg1 : tensor<i1>, tensor<2xf32>
  %22 = stablehlo.compare LT, %arg0, %arg1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %23 = stablehlo.compare NE, %arg0, %arg1, TOTALORDER : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %24 = stablehlo.compare GE, %arg2, %arg2, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  return
}
// CHECK: module {
// CHECK-LABEL: func.func @binary(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<2xi32>, %arg3: tensor<2xi1>, %arg4: tensor<f32>, %arg5: tensor<i1>) {
// CHECK-NEXT: %0 = stablehlo.add %arg0, %arg1 : tensor<2xf32>
// CHECK-NEXT: %1 = stablehlo.atan2 %arg0, %arg1 : tensor<2xf32>
// CHECK-NEXT: %2 = stablehlo.divide %arg0, %arg1 : tensor<2xf32>
// CHECK-NEXT: %3 = stablehlo.maximum %arg0, %arg1 : tensor<2xf32>
// CHECK-NEXT: %4 = stablehlo.minimum %arg0, %arg1 : tensor<2xf32>
// CHECK-NEXT: %5 = stablehlo.multiply %arg0, %arg1 : tensor<2xf32>
// CHECK-NEXT: %6 = stablehlo.power %arg0, %arg1 : tensor<2xf32>
// CHECK-NEXT: %7 = stablehlo.remainder %arg0, %arg1 : tensor<2xf32>
// CHECK-NEXT: %8 = stablehlo.subtract %arg0, %arg1 : tensor<2xf32>
// CHECK-NEXT: %9 = stablehlo.and %arg2, %arg2 : tensor<2xi32>
// CHECK-NEXT: %10 = stablehlo.or %arg2, %arg2 : tensor<2xi32>
// CHECK-NEXT: %11 = stablehlo.xor %arg2, %arg2 : tensor<2xi32>
// CHECK-NEXT: %12 = stablehlo.shift_left %arg2, %arg2 : tensor<2xi32>
// CHECK-NEXT: %13 = stablehlo.shift_right_arithmetic %arg2, %arg2 : tensor<2xi32>
// CHECK-NEXT: %14 = stablehlo.shift_right_logical %arg2, %arg2 : tensor<2xi32>
// CHECK-NEXT: %15 = stablehlo.add %arg2, %arg2 : tensor<2xi32>
// CHECK-NEXT: %16 = stablehlo.and %arg3, %arg3 : tensor<2xi1>
// CHECK-NEXT: %17 = stablehlo.complex %arg0, %arg1 : tensor<2xcomplex<f32>>
// CHECK-NEXT: %18 = stablehlo.clamp %arg0, %arg1, %arg0 : tensor<2xf32>
// CHECK-NEXT: %19 = stablehlo.clamp %arg4, %arg1, %arg4 : (tensor<f32>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
// CHECK-NEXT: %20 = stablehlo.select %arg3, %arg0, %arg1 : tensor<2xi1>, tensor<2xf32>
// CHECK-NEXT: %21 = stablehlo.select %arg5, %arg0, %arg1 : tensor<i1>, tensor<2xf32>
// CHECK-NEXT: %22 = stablehlo.compare LT, %arg0, %arg1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
// CHECK-NEXT: %23 = stablehlo.compare NE, %arg0, %arg1, TOTALORDER : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
// CHECK-NEXT: %24 = stablehlo.compare GE, %arg2, %arg2, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
// GENERIC: "builtin.module"() ({
// GENERIC-NEXT: "func.func"() <{function_type = (tensor<2xf32>, tensor<2xf32>, tensor<2xi32>, tensor<2xi1>, tensor<f32>, tensor<i1>) -> (), sym_name = "binary"}> ({
// GENERIC-NEXT: ^bb0(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<2xi32>, %arg3: tensor<2xi1>, %arg4: tensor<f32>, %arg5: tensor<i1>):
// GENERIC-NEXT: %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %1 = "stablehlo.atan2"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %2 = "stablehlo.divide"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %3 = "stablehlo.maximum"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %4 = "stablehlo.minimum"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %5 = "stablehlo.multiply"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %6 = "stablehlo.power"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %7 = "stablehlo.remainder"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %8 = "stablehlo.subtract"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %9 = "stablehlo.and"(%arg2, %arg2) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
// GENERIC-NEXT: %10 = "stablehlo.or"(%arg2, %arg2) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
// GENERIC-NEXT: %11 = "stablehlo.xor"(%arg2, %arg2) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
// GENERIC-NEXT: %12 = "stablehlo.shift_left"(%arg2, %arg2) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
// GENERIC-NEXT: %13 = "stablehlo.shift_right_arithmetic"(%arg2, %arg2) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
// GENERIC-NEXT: %14 = "stablehlo.shift_right_logical"(%arg2, %arg2) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
// GENERIC-NEXT: %15 = "stablehlo.add"(%arg2, %arg2) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
// GENERIC-NEXT: %16 = "stablehlo.and"(%arg3, %arg3) : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
// GENERIC-NEXT: %17 = "stablehlo.complex"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xcomplex<f32>>
// GENERIC-NEXT: %18 = "stablehlo.clamp"(%arg0, %arg1, %arg0) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %19 = "stablehlo.clamp"(%arg4, %arg1, %arg4) : (tensor<f32>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
// GENERIC-NEXT: %20 = "stablehlo.select"(%arg3, %arg0, %arg1) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %21 = "stablehlo.select"(%arg5, %arg0, %arg1) : (tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %22 = "stablehlo.compare"(%arg0, %arg1) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
// GENERIC-NEXT: %23 = "stablehlo.compare"(%arg0, %arg1) <{compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
// GENERIC-NEXT: %24 = "stablehlo.compare"(%arg2, %arg2) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
// GENERIC-NEXT: "func.return"() : () -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC-NEXT: }) : () -> ()

// -----

func.func @map(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.map"(%arg0, %arg1) <{dimensions = array<i64: 0>}> ({
  ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
    %1 = stablehlo.multiply %arg2, %arg3 : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
// CHECK: module {
// CHECK-LABEL: func.func @map(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT: %0 = "stablehlo.map"(%arg0, %arg1) <{dimensions = array<i64: 0>}> ({
// CHECK-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK-NEXT: %1 = stablehlo.multiply %arg2, %arg3 : tensor<f32>
// CHECK-NEXT: stablehlo.return %1 : tensor<f32>
// CHECK-NEXT: }) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: return %0 : tensor<2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// GENERIC: "builtin.module"() ({
// GENERIC-NEXT: "func.func"() <{function_type = (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>, sym_name = "map"}> ({
// GENERIC-NEXT: ^bb0(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>):
// GENERIC-NEXT: %0 = "stablehlo.map"(%arg0, %arg1) <{dimensions = array<i64: 0>}> ({
// GENERIC-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// GENERIC-NEXT: %1 = "stablehlo.multiply"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
// GENERIC-NEXT: "stablehlo.return"(%1) : (tensor<f32>) -> ()
// GENERIC-NEXT: }) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: "func.return"(%0) : (tensor<2xf32>) -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC-NEXT: }) : () -> ()
