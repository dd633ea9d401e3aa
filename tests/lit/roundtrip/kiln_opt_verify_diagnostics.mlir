// kiln-opt --verify-diagnostics: the diagnostics of each chunk must match the
// `expected-error/-warning/-note` annotations (substring of the message, at
// the annotated line); then the exit status is 0.
// RUN: kiln-opt --split-input-file --verify-diagnostics %s | FileCheck %s

// A chunk without diagnostics is printed as usual.
// CHECK: func.func @fine

func.func @fine() {
  return
}

// -----

func.func @relative(%a: tensor<2xf32>) -> (tensor<2xi32>) {
  // expected-error @+1 {{result #0 has type tensor<2xi32>}}
  %0 = "stablehlo.abs"(%a) : (tensor<2xf32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @same_line(%a: tensor<2xf32>) {
  %0 = stablehlo.abs %a tensor<2xf32> // expected-error {{expected ':'}}
}

// -----

func.func @above(%a: tensor<2xf32>) -> (tensor<2xi32>) {
  %0 = "stablehlo.abs"(%a) : (tensor<2xf32>) -> tensor<2xi32>
  // expected-error @above {{'stablehlo.abs' op}}
  return %0 : tensor<2xi32>
}

// -----

func.func @below(%a: tensor<2xf32>) -> (tensor<2xi32>) {
  // expected-error @below {{but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.abs"(%a) : (tensor<2xf32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// Mismatches are reported and make the exit status 1: the BAD lines below
// (with EXPECTED for `expected`, so this file does not see them) hold an
// annotation whose text is not the error's, on a line without the error.
// RUN: sed -n -e '/^\/\/ BAD: /{s|^// BAD: ||;s|EXPECTED|expected|;p;}' %s > %t.bad.mlir
// RUN: not kiln-opt --verify-diagnostics %t.bad.mlir 2>&1 | FileCheck %s --check-prefix=MISMATCH
// BAD: func.func @wrong(%a: tensor<2xf32>) -> (tensor<2xi32>) {
// BAD:   // EXPECTED-error @+1 {{a message kiln does not give}}
// BAD:   %0 = "stablehlo.abs"(%a) : (tensor<2xf32>) -> tensor<2xi32>
// BAD:   // EXPECTED-warning {{nothing here}}
// BAD:   return %0 : tensor<2xi32>
// BAD: }
// MISMATCH-DAG: kiln-opt: unexpected error: {{.*}}.bad.mlir:3:8: error: 'stablehlo.abs' op result #0 has type tensor<2xi32>
// MISMATCH-DAG: kiln-opt: {{.*}}.bad.mlir:3: expected error "a message kiln does not give" was not produced (annotation on line 2)
// MISMATCH-DAG: kiln-opt: {{.*}}.bad.mlir:4: expected warning "nothing here" was not produced (annotation on line 4)
