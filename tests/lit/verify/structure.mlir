// RUN: kiln-opt --split-input-file --verify-diagnostics %s
// The structural rules of the verifier: dominance, terminators, function
// signatures, calls, registration, the contents of a module.

func.func private @external(tensor<2xf32>) -> tensor<2xf32>
func.func @calls(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @external(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Text cannot express a use before its definition: the parser rejects it
// (the verifier's dominance check guards IR built in memory, see
// tests/unit/verifier_test.cpp).
func.func @use_before_def(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{use of undefined value '%1'}}
  %0 = "stablehlo.abs"(%1) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "stablehlo.negate"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @return_types(%a: tensor<2xf32>) -> tensor<2xf64> {
  // expected-error @+1 {{returns (tensor<2xf32>) but the enclosing function @return_types returns (tensor<2xf64>)}}
  return %a : tensor<2xf32>
}

// -----

func.func @missing_callee(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{refers to @nowhere, which is not a function of this module}}
  %0 = func.call @nowhere(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func private @external(tensor<2xf32>) -> tensor<2xf32>
func.func @call_types(%a: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{but callee @external has type (tensor<2xf32>) -> (tensor<2xf32>)}}
  %0 = func.call @external(%a) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @unregistered(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{operation 'foo.bar' of an unregistered dialect}}
  %0 = "foo.bar"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @f() {
  return
}
// expected-error @+1 {{redefines the symbol @f}}
func.func @f() {
  return
}

// -----

// expected-error @+1 {{is not allowed at the top level of a module}}
%0 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
