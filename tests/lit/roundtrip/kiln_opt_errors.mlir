// kiln-opt's command line: input and output files, --split-input-file with a
// failing chunk, unknown flags, $KILN_FLAGS and --help.

// A missing input file is a clear error, not a crash.
// RUN: not kiln-opt %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: kiln-opt: error: cannot open '{{.*}}kiln_opt_errors.mlir.missing': No such file or directory
// RUN: not kiln-opt %S 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: kiln-opt: error: '{{.*}}roundtrip' is a directory

// RUN: not kiln-opt --no-such-flag %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: kiln-opt: error: unknown option '--no-such-flag'
// UNKNOWN-NEXT: run 'kiln-opt --help' for usage
// RUN: not kiln-opt -o 2>&1 | FileCheck %s --check-prefix=NOVALUE
// NOVALUE: kiln-opt: error: option '-o' needs a value

// --help lists every flag.
// RUN: kiln-opt --help | FileCheck %s --check-prefix=HELP
// HELP: usage: kiln-opt [FILE|-] [options]
// HELP-DAG: -o OUT
// HELP-DAG: --generic
// HELP-DAG: --split-input-file
// HELP-DAG: --verify-diagnostics
// HELP-DAG: --allow-unregistered-dialect
// HELP-DAG: --print-debuginfo
// HELP-DAG: --help

// Each chunk is handled on its own: the good ones are printed, the bad ones
// reported with the line numbers of the whole file, and the exit status is 1.
// RUN: not kiln-opt --split-input-file %s > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// OUT: func.func @ok(%arg0: tensor<2xf32>) -> tensor<2xf32> {
// OUT: // -----
// OUT-NEXT: module {
// OUT-NEXT: func.func @also_ok() {
// OUT-NOT: bad_type
// ERR: kiln_opt_errors.mlir:[[# @LINE + 17]]:8: error: 'stablehlo.abs' op result #0 has type tensor<2xi32>
// ERR: kiln_opt_errors.mlir:[[# @LINE + 29]]:25: error: expected ':'

// -o writes the output to a file; $KILN_FLAGS adds flags before the command line's.
// RUN: not kiln-opt --split-input-file %s -o %t.file 2> /dev/null
// RUN: FileCheck %s --check-prefix=OUT < %t.file
// RUN: env KILN_FLAGS="--split-input-file --generic" not kiln-opt %s 2> /dev/null | FileCheck %s --check-prefix=ENV
// ENV: "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "ok"}>

func.func @ok(%a: tensor<2xf32>) -> (tensor<2xf32>) {
  %0 = stablehlo.abs %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @bad_type(%a: tensor<2xf32>) -> (tensor<2xi32>) {
  %0 = "stablehlo.abs"(%a) : (tensor<2xf32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @also_ok() {
  return
}

// -----

func.func @parse_error(%a: tensor<2xf32>) {
  %0 = stablehlo.abs %a tensor<2xf32>
}
