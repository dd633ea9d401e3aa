// RUN: kiln-opt --split-input-file --verify-diagnostics %s
// The type rules of control flow and structure ops, stablehlo.return included.

func.func @if(%pred: tensor<i1>, %a: tensor<i32>, %b: tensor<i32>) -> tensor<i32> {
  %0 = "stablehlo.if"(%pred) ({
    "stablehlo.return"(%a) : (tensor<i32>) -> ()
  }, {
    "stablehlo.return"(%b) : (tensor<i32>) -> ()
  }) : (tensor<i1>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @if_branch_types(%pred: tensor<i1>, %a: tensor<i32>, %b: tensor<f32>) -> tensor<i32> {
  // expected-error @+1 {{expects all branches to return the same types, got (tensor<i32>) and (tensor<f32>)}}
  %0 = "stablehlo.if"(%pred) ({
    "stablehlo.return"(%a) : (tensor<i32>) -> ()
  }, {
    "stablehlo.return"(%b) : (tensor<f32>) -> ()
  }) : (tensor<i1>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @if_pred(%pred: tensor<2xi1>, %a: tensor<i32>) -> tensor<i32> {
  // expected-error @+1 {{expects pred to be a 0-dimensional tensor, got tensor<2xi1>}}
  %0 = "stablehlo.if"(%pred) ({
    "stablehlo.return"(%a) : (tensor<i32>) -> ()
  }, {
    "stablehlo.return"(%a) : (tensor<i32>) -> ()
  }) : (tensor<2xi1>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @case(%index: tensor<i32>, %a: tensor<2xi64>, %b: tensor<2xi64>) -> tensor<2xi64> {
  %0 = "stablehlo.case"(%index) ({
    "stablehlo.return"(%a) : (tensor<2xi64>) -> ()
  }, {
    "stablehlo.return"(%b) : (tensor<2xi64>) -> ()
  }) : (tensor<i32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @case_index_type(%index: tensor<i64>, %a: tensor<2xi64>) -> tensor<2xi64> {
  // expected-error @+1 {{expects index to be a 0-dimensional tensor of type si32, got tensor<i64>}}
  %0 = "stablehlo.case"(%index) ({
    "stablehlo.return"(%a) : (tensor<2xi64>) -> ()
  }) : (tensor<i64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @while(%i: tensor<i64>, %n: tensor<i64>) -> tensor<i64> {
  %0:2 = "stablehlo.while"(%i, %n) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %c = "stablehlo.compare"(%x, %y) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s, %y) : (tensor<i64>, tensor<i64>) -> ()
  }) : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>)
  return %0#0 : tensor<i64>
}

// -----

func.func @while_cond_result(%i: tensor<i64>) -> tensor<i64> {
  // expected-error @+1 {{expects cond to have type (tensor<i64>) -> (tensor<i1>), got (tensor<i64>) -> (tensor<i64>)}}
  %0 = "stablehlo.while"(%i) ({
  ^bb0(%x: tensor<i64>):
    "stablehlo.return"(%x) : (tensor<i64>) -> ()
  }, {
  ^bb0(%x: tensor<i64>):
    "stablehlo.return"(%x) : (tensor<i64>) -> ()
  }) : (tensor<i64>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @my_op(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @composite(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.composite"(%a, %b) {name = "my_namespace.my_op", composite_attributes = {my_attribute = "my_value"}, decomposition = @my_op, version = 1 : i32} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// composite (C1) namespaced name
func.func @composite_name(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{expects name to be a namespaced op name like "ns.op", got "my_op"}}
  %0 = "stablehlo.composite"(%a) {name = "my_op", decomposition = @composite_name} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @my_op(%a: tensor<f32>) -> tensor<f32> {
  return %a : tensor<f32>
}
func.func @composite_signature(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{but decomposition @my_op has type (tensor<f32>) -> (tensor<f32>)}}
  %0 = "stablehlo.composite"(%a, %b) {name = "ns.my_op", decomposition = @my_op} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @optimization_barrier(%a: tensor<f32>, %t: !stablehlo.token) -> tensor<f32> {
  %0:2 = "stablehlo.optimization_barrier"(%a, %t) : (tensor<f32>, !stablehlo.token) -> (tensor<f32>, !stablehlo.token)
  return %0#0 : tensor<f32>
}

// -----

func.func @optimization_barrier_types(%a: tensor<f32>) -> tensor<f64> {
  // expected-error @+1 {{result #0 has type tensor<f64> but its operands and attributes give tensor<f32>}}
  %0 = "stablehlo.optimization_barrier"(%a) : (tensor<f32>) -> tensor<f64>
  return %0 : tensor<f64>
}

// -----

func.func @tuple(%a: tensor<2xf32>, %b: tensor<i32>) -> tensor<2xf32> {
  %0 = "stablehlo.tuple"(%a, %b) : (tensor<2xf32>, tensor<i32>) -> tuple<tensor<2xf32>, tensor<i32>>
  %1 = "stablehlo.get_tuple_element"(%0) {index = 0 : i32} : (tuple<tensor<2xf32>, tensor<i32>>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----

func.func @tuple_type(%a: tensor<2xf32>) -> tuple<tensor<f32>> {
  // expected-error @+1 {{result #0 has type tuple<tensor<f32>> but its operands and attributes give tuple<tensor<2xf32>>}}
  %0 = "stablehlo.tuple"(%a) : (tensor<2xf32>) -> tuple<tensor<f32>>
  return %0 : tuple<tensor<f32>>
}

// -----

func.func @get_tuple_element_index(%t: tuple<tensor<2xf32>>) -> tensor<2xf32> {
  // expected-error @+1 {{expects index to be in [0, 1), got 1}}
  %0 = "stablehlo.get_tuple_element"(%t) {index = 1 : i32} : (tuple<tensor<2xf32>>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @custom_call(%a: tensor<f64>) -> tensor<f64> {
  %0 = "stablehlo.custom_call"(%a) {call_target_name = "foo", has_side_effect = false, backend_config = {bar = 42 : i32}, api_version = 4 : i32} : (tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}

// -----

func.func @custom_call_target(%a: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{requires a string attribute 'call_target_name'}}
  %0 = "stablehlo.custom_call"(%a) {has_side_effect = false} : (tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}

// -----

// A function may end in stablehlo.return (JAX's ApproxTopK comparators do;
// it becomes func.return), which must still return the function's types.
func.func @stablehlo_return_ending_function(%a: tensor<f32>) -> tensor<i32> {
  // expected-error @+1 {{returns (tensor<f32>) but the enclosing function @stablehlo_return_ending_function returns (tensor<i32>)}}
  "stablehlo.return"(%a) : (tensor<f32>) -> ()
}

// -----

func.func @return_types(%a: tensor<1x6xi64>, %init: tensor<i64>, %f: tensor<f32>) -> tensor<1xi64> {
  // expected-error @+1 {{expects body to have type}}
  %0 = "stablehlo.reduce"(%a, %init) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    "stablehlo.return"(%f) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 1>} : (tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>
  return %0 : tensor<1xi64>
}
