// if, case, while, composite, optimization_barrier, tuple, get_tuple_element, custom_call, func.call.
// Each chunk is given in the pretty form; the CHECK and GENERIC lines are what
// MLIR (jaxlib) prints for it. The generic output must parse back to the same
// pretty form, and printing is a fixed point.
// RUN: kiln-opt --split-input-file %s | FileCheck %s
// RUN: kiln-opt --split-input-file %s | kiln-opt --split-input-file | FileCheck %s
// RUN: kiln-opt --split-input-file --generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: kiln-opt --split-input-file --generic %s | kiln-opt --split-input-file | FileCheck %s

func.func @cf(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.if"(%arg0) ({
    stablehlo.return %arg2 : tensor<2xf32>
  }, {
    %11 = stablehlo.negate %arg2 : tensor<2xf32>
    stablehlo.return %11 : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  %1 = "stablehlo.case"(%arg1) ({
    stablehlo.return %arg2 : tensor<2xf32>
  }, {
    stablehlo.return %0 : tensor<2xf32>
  }) : (tensor<i32>) -> tensor<2xf32>
  %2:2 = stablehlo.while(%iterArg = %arg1, %iterArg_0 = %arg2) : tensor<i32>, tensor<2xf32>
  cond {
    %c = stablehlo.constant dense<10> : tensor<i32>
    %11 = stablehlo.compare LT, %iterArg, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %11 : tensor<i1>
  } do {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %11 = stablehlo.add %iterArg, %c : tensor<i32>
    stablehlo.return %11, %iterArg_0 : tensor<i32>, tensor<2xf32>
  }
  %3 = stablehlo.optimization_barrier %arg2 : tensor<2xf32>
  %4 = stablehlo.tuple %arg2, %arg1 : tuple<tensor<2xf32>, tensor<i32>>
  %5 = stablehlo.get_tuple_element %4[1] : (tuple<tensor<2xf32>, tensor<i32>>) -> tensor<i32>
  %6 = stablehlo.custom_call @foo(%arg2) {api_version = 2 : i32, backend_config = "cfg", has_side_effect = true} : (tensor<2xf32>) -> tensor<2xf32>
  %7:2 = stablehlo.custom_call @bar(%arg2, %arg1) {api_version = 4 : i32, backend_config = {a = 1 : i64}, called_computations = [@callee], operand_layouts = [dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<2xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<i32>)
  %8 = stablehlo.composite "my.op" %arg2 {composite_attributes = {k = 1 : i32}, decomposition = @callee1, version = 1 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  %9 = stablehlo.composite "my.op2" %arg2 {decomposition = @callee1} : (tensor<2xf32>) -> tensor<2xf32>
  %10 = stablehlo.custom_call @x.y(%arg2) : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}
func.func private @callee(%arg0: tensor<2xf32>, %arg1: tensor<i32>) -> (tensor<2xf32>, tensor<i32>) {
  return %arg0, %arg1 : tensor<2xf32>, tensor<i32>
}
func.func private @callee1(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = call @callee1(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
// CHECK: module {
// CHECK-LABEL: func.func @cf(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT: %0 = "stablehlo.if"(%arg0) ({
// CHECK-NEXT: stablehlo.return %arg2 : tensor<2xf32>
// CHECK-NEXT: }, {
// CHECK-NEXT: %11 = stablehlo.negate %arg2 : tensor<2xf32>
// CHECK-NEXT: stablehlo.return %11 : tensor<2xf32>
// CHECK-NEXT: }) : (tensor<i1>) -> tensor<2xf32>
// CHECK-NEXT: %1 = "stablehlo.case"(%arg1) ({
// CHECK-NEXT: stablehlo.return %arg2 : tensor<2xf32>
// CHECK-NEXT: }, {
// CHECK-NEXT: stablehlo.return %0 : tensor<2xf32>
// CHECK-NEXT: }) : (tensor<i32>) -> tensor<2xf32>
// CHECK-NEXT: %2:2 = stablehlo.while(%iterArg = %arg1, %iterArg_0 = %arg2) : tensor<i32>, tensor<2xf32>
// CHECK-NEXT: cond {
// CHECK-NEXT: %c = stablehlo.constant dense<10> : tensor<i32>
// CHECK-NEXT: %11 = stablehlo.compare LT, %iterArg, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK-NEXT: stablehlo.return %11 : tensor<i1>
// CHECK-NEXT: } do {
// CHECK-NEXT: %c = stablehlo.constant dense<1> : tensor<i32>
// CHECK-NEXT: %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %11 = stablehlo.add %iterArg, %c : tensor<i32>
// CHECK-NEXT: stablehlo.return %11, %iterArg_0 : tensor<i32>, tensor<2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %3 = stablehlo.optimization_barrier %arg2 : tensor<2xf32>
// CHECK-NEXT: %4 = stablehlo.tuple %arg2, %arg1 : tuple<tensor<2xf32>, tensor<i32>>
// CHECK-NEXT: %5 = stablehlo.get_tuple_element %4[1] : (tuple<tensor<2xf32>, tensor<i32>>) -> tensor<i32>
// CHECK-NEXT: %6 = stablehlo.custom_call @foo(%arg2) {api_version = 2 : i32, backend_config = "cfg", has_side_effect = true} : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %7:2 = stablehlo.custom_call @bar(%arg2, %arg1) {api_version = 4 : i32, backend_config = {a = 1 : i64}, called_computations = [@callee], operand_layouts = [dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<2xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<i32>)
// CHECK-NEXT: %8 = stablehlo.composite "my.op" %arg2 {composite_attributes = {k = 1 : i32}, decomposition = @callee1, version = 1 : i32} : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %9 = stablehlo.composite "my.op2" %arg2 {decomposition = @callee1} : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %10 = stablehlo.custom_call @x.y(%arg2) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: return %1 : tensor<2xf32>
// CHECK-NEXT: }
// CHECK-LABEL: func.func private @callee(%arg0: tensor<2xf32>, %arg1: tensor<i32>) -> (tensor<2xf32>, tensor<i32>) {
// CHECK-NEXT: return %arg0, %arg1 : tensor<2xf32>, tensor<i32>
// CHECK-NEXT: }
// CHECK-LABEL: func.func private @callee1(%arg0: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT: %0 = call @callee1(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: return %0 : tensor<2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// GENERIC: "builtin.module"() ({
// GENERIC-NEXT: "func.func"() <{function_type = (tensor<i1>, tensor<i32>, tensor<2xf32>) -> tensor<2xf32>, sym_name = "cf"}> ({
// GENERIC-NEXT: ^bb0(%arg3: tensor<i1>, %arg4: tensor<i32>, %arg5: tensor<2xf32>):
// GENERIC-NEXT: %1 = "stablehlo.if"(%arg3) ({
// GENERIC-NEXT: "stablehlo.return"(%arg5) : (tensor<2xf32>) -> ()
// GENERIC-NEXT: }, {
// GENERIC-NEXT: %17 = "stablehlo.negate"(%arg5) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: "stablehlo.return"(%17) : (tensor<2xf32>) -> ()
// GENERIC-NEXT: }) : (tensor<i1>) -> tensor<2xf32>
// GENERIC-NEXT: %2 = "stablehlo.case"(%arg4) ({
// GENERIC-NEXT: "stablehlo.return"(%arg5) : (tensor<2xf32>) -> ()
// GENERIC-NEXT: }, {
// GENERIC-NEXT: "stablehlo.return"(%1) : (tensor<2xf32>) -> ()
// GENERIC-NEXT: }) : (tensor<i32>) -> tensor<2xf32>
// GENERIC-NEXT: %3:2 = "stablehlo.while"(%arg4, %arg5) ({
// GENERIC-NEXT: ^bb0(%arg8: tensor<i32>, %arg9: tensor<2xf32>):
// GENERIC-NEXT: %15 = "stablehlo.constant"() <{value = dense<10> : tensor<i32>}> : () -> tensor<i32>
// GENERIC-NEXT: %16 = "stablehlo.compare"(%arg8, %15) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
// GENERIC-NEXT: "stablehlo.return"(%16) : (tensor<i1>) -> ()
// GENERIC-NEXT: }, {
// GENERIC-NEXT: ^bb0(%arg6: tensor<i32>, %arg7: tensor<2xf32>):
// GENERIC-NEXT: %12 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
// GENERIC-NEXT: %13 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
// GENERIC-NEXT: %14 = "stablehlo.add"(%arg6, %12) : (tensor<i32>, tensor<i32>) -> tensor<i32>
// GENERIC-NEXT: "stablehlo.return"(%14, %arg7) : (tensor<i32>, tensor<2xf32>) -> ()
// GENERIC-NEXT: }) : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>)
// GENERIC-NEXT: %4 = "stablehlo.optimization_barrier"(%arg5) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %5 = "stablehlo.tuple"(%arg5, %arg4) : (tensor<2xf32>, tensor<i32>) -> tuple<tensor<2xf32>, tensor<i32>>
// GENERIC-NEXT: %6 = "stablehlo.get_tuple_element"(%5) <{index = 1 : i32}> : (tuple<tensor<2xf32>, tensor<i32>>) -> tensor<i32>
// GENERIC-NEXT: %7 = "stablehlo.custom_call"(%arg5) <{api_version = 2 : i32, backend_config = "cfg", call_target_name = "foo", has_side_effect = true}> : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %8:2 = "stablehlo.custom_call"(%arg5, %arg4) <{api_version = 4 : i32, backend_config = {a = 1 : i64}, call_target_name = "bar", called_computations = [@callee], operand_layouts = [dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]}> : (tensor<2xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<i32>)
// GENERIC-NEXT: %9 = "stablehlo.composite"(%arg5) <{composite_attributes = {k = 1 : i32}, decomposition = @callee1, name = "my.op", version = 1 : i32}> : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %10 = "stablehlo.composite"(%arg5) <{decomposition = @callee1, name = "my.op2"}> : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %11 = "stablehlo.custom_call"(%arg5) <{call_target_name = "x.y"}> : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: "func.return"(%2) : (tensor<2xf32>) -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC-NEXT: "func.func"() <{function_type = (tensor<2xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<i32>), sym_name = "callee", sym_visibility = "private"}> ({
// GENERIC-NEXT: ^bb0(%arg1: tensor<2xf32>, %arg2: tensor<i32>):
// GENERIC-NEXT: "func.return"(%arg1, %arg2) : (tensor<2xf32>, tensor<i32>) -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC-NEXT: "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "callee1", sym_visibility = "private"}> ({
// GENERIC-NEXT: ^bb0(%arg0: tensor<2xf32>):
// GENERIC-NEXT: %0 = "func.call"(%arg0) <{callee = @callee1}> : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: "func.return"(%0) : (tensor<2xf32>) -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC-NEXT: }) : () -> ()
