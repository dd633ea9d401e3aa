// `kiln run --backend cpu` (the default): the program is compiled with LLVM
// and run natively; ops the cpu back end cannot compile are errors naming the
// op and its location (never a silent fallback to the interpreter).

// Bias add (a trailing-dim broadcast), relu, and a predicate result.
// RUN: kiln run %s --backend cpu --input-literal 'dense<[[-1.0, 2.0, 3.5], [0.5, -4.0, 1.0]]> : tensor<2x3xf32>' --input-literal 'dense<[1.0, -1.0, 0.5]> : tensor<3xf32>' | FileCheck %s --check-prefix=RELU
// RELU: dense<{{\[\[}}0.000000e+00, 1.000000e+00, 4.000000e+00], [1.500000e+00, 0.000000e+00, 1.500000e+00]]> : tensor<2x3xf32>
// RELU-NEXT: dense<[true, false, true]> : tensor<3xi1>
func.func @main(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xi1>) {
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %s = stablehlo.add %x, %bb : tensor<2x3xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<2x3xf32>
  %r = stablehlo.maximum %s, %zero : tensor<2x3xf32>
  %zeros = stablehlo.constant dense<0.0> : tensor<3xf32>
  %pos = stablehlo.compare GT, %b, %zeros, FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return %r, %pos : tensor<2x3xf32>, tensor<3xi1>
}

// Integer division as XLA defines it: x / 0 = -1, INT_MIN / -1 = INT_MIN.
// RUN: kiln run %s --backend cpu --entry divide --input-literal 'dense<[7, -7, -2147483648, 5]> : tensor<4xi32>' --input-literal 'dense<[2, 2, -1, 0]> : tensor<4xi32>' | FileCheck %s --check-prefix=DIV
// DIV: dense<[3, -3, -2147483648, -1]> : tensor<4xi32>
func.func @divide(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %q = stablehlo.divide %x, %y : tensor<4xi32>
  return %q : tensor<4xi32>
}

// sort has no kernel: it runs as a routine (here the native one: one key,
// JAX's comparator), and --stats counts it and names which.
// RUN: kiln run %s --backend cpu --entry sorted --stats --input-literal 'dense<[3.0, 1.0]> : tensor<2xf32>' 2>&1 | FileCheck %s --check-prefix=SORT
// SORT-DAG: dense<[1.000000e+00, 3.000000e+00]> : tensor<2xf32>
// SORT-DAG: compile: pipeline {{[0-9.e-]+}} s, codegen {{[0-9.e-]+}} s
// SORT-DAG: steps: 0 kernels (0 multi-threaded), 0 library calls, 1 routines, 0 control flow (0 flat loops, 0 variables in place), 0 fusions run op by op
// SORT-DAG: routine: stablehlo.sort [native sort {{.*}}] x1
func.func @sorted(%x: tensor<2xf32>) -> tensor<2xf32> {
  %s = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<2xf32>) -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// A while loop runs in the executable, its body and condition as kernels;
// --dump-dir receives the LLVM IR before and after optimization and the
// assembly (and the module around each pass).
// RUN: rm -rf %t.dump
// RUN: kiln run %s --entry doubling --stats --dump-dir %t.dump --input-literal 'dense<1.5> : tensor<f32>' --input-literal 'dense<3> : tensor<i32>' 2>&1 | FileCheck %s --check-prefix=WHILE
// WHILE-DAG: dense<1.200000e+01> : tensor<f32>
// WHILE-DAG: steps: {{[1-9][0-9]*}} kernels (0 multi-threaded), 0 library calls, 0 routines, 1 control flow
// RUN: FileCheck %s --check-prefix=IR < %t.dump/doubling.ll
// IR: define {{.*}}void @kernel0(
// RUN: FileCheck %s --check-prefix=IR < %t.dump/doubling.opt.ll
// RUN: FileCheck %s --check-prefix=ASM < %t.dump/doubling.s
// ASM: kernel0:
// --profile times every step over N more runs: the while (3 trips a run) and,
// indented under it, the steps of its regions, with their cost and roofs.
// RUN: kiln run %s --entry doubling --profile 2 --input-literal 'dense<1.5> : tensor<f32>' --input-literal 'dense<3> : tensor<i32>' 2>&1 | FileCheck %s --check-prefix=PROFILE
// PROFILE-DAG: dense<1.200000e+01> : tensor<f32>
// PROFILE-DAG: profile: 2 run(s), {{[0-9.]+}} ms per run (the steps' medians); roofs measured now on {{[0-9]+}} thread(s): triad {{[0-9.]+}} GB/s, f32 GEMM {{[0-9.]+}} GFLOP/s
// PROFILE-DAG: {{[0-9.]+}} {{u|m}}s {{ *[0-9.]+}}% {{ *}}1 {{ *}}while  while kiln-run-cpu.mlir:[[@LINE+9]]
// PROFILE-DAG: {{[0-9.]+}} {{u|m}}s {{ *[0-9.]+}}% {{ *}}3 {{ *}}3 {{ *}}36 {{.*%}} {{memory|compute|overhead}} {{ *}}kernel  add kiln-run-cpu.mlir:[[@LINE+13]]
// --profile-json writes the same rows as JSON.
// RUN: kiln run %s --entry doubling --profile 1 --profile-json %t.profile.json --input-literal 'dense<1.5> : tensor<f32>' --input-literal 'dense<3> : tensor<i32>'
// RUN: FileCheck %s --check-prefix=PROFILE-JSON < %t.profile.json
// PROFILE-JSON: "label": "add kiln-run-cpu.mlir:[[@LINE+9]]", "op": "stablehlo.add", {{.*}} "calls_per_run": 3, "flops_per_run": 3, "bytes_per_run": 36,
func.func @doubling(%x: tensor<f32>, %n: tensor<i32>) -> tensor<f32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %acc = %x) : tensor<i32>, tensor<f32>
    cond {
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %next = stablehlo.add %i, %one : tensor<i32>
      %twice = stablehlo.add %acc, %acc : tensor<f32>
      stablehlo.return %next, %twice : tensor<i32>, tensor<f32>
    }
  return %r#1 : tensor<f32>
}

// An op with no kernel, library call or routine is a compile error naming
// it and its location; there is no fallback to the interpreter.
// RUN: not kiln run %s --entry unsupported --input-literal 'dense<[1.0, 2.0]> : tensor<2xf32>' 2>&1 | FileCheck %s --check-prefix=NOFORM
// NOFORM: kiln run: {{.*}}kiln-run-cpu.mlir:[[@LINE+2]]:8: error: the cpu back end cannot compile 'stablehlo.collective_reduce' yet ({{.*}}kiln-run-cpu.mlir:[[@LINE+2]]:8)
func.func @unsupported(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r = "stablehlo.collective_reduce"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// A module for two replicas runs both (one thread each; their all_reduce
// meets) and prints replica 0's results, as the interpreter does.
// RUN: kiln run %S/Inputs/two_replicas.mlir --input-literal 'dense<[1.0, 2.5]> : tensor<2xf32>' | FileCheck %s --check-prefix=REPLICAS
// RUN: kiln run --backend interpreter %S/Inputs/two_replicas.mlir --input-literal 'dense<[1.0, 2.5]> : tensor<2xf32>' | FileCheck %s --check-prefix=REPLICAS
// REPLICAS: dense<[3.000000e+00, 6.000000e+00]> : tensor<2xf32>
// REPLICAS-NEXT: dense<0> : tensor<ui32>

// A replica count below one is an error, not an empty run.
// RUN: not kiln run %S/Inputs/zero_replicas.mlir 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: mhlo.num_replicas and mhlo.num_partitions must be at least 1, the module says 0 and 1

// A bitcast_convert between element types of one width is a view of its
// operand's bytes, like a reshape: no kernel copies them (2 kernels, not 3).
// RUN: kiln run %s --backend cpu --entry bits --stats --input-literal 'dense<[1.5, -3.25, 0.1, 7.0]> : tensor<4xf32>' 2>&1 | FileCheck %s --check-prefix=BITS
// RUN: kiln run %s --backend interpreter --entry bits --input-literal 'dense<[1.5, -3.25, 0.1, 7.0]> : tensor<4xf32>' | FileCheck %s --check-prefix=BITS-VALUES
// BITS-DAG: dense<[4194304, 5242880, 5033165, 6291456]> : tensor<4xi32>
// BITS-DAG: steps: 2 kernels (0 multi-threaded)
// BITS-VALUES: dense<[4194304, 5242880, 5033165, 6291456]> : tensor<4xi32>
func.func @bits(%x: tensor<4xf32>) -> tensor<4xi32> {
  %d = stablehlo.add %x, %x : tensor<4xf32>
  %b = stablehlo.bitcast_convert %d : (tensor<4xf32>) -> tensor<4xi32>
  %m = stablehlo.constant dense<8388607> : tensor<4xi32>
  %r = stablehlo.and %b, %m : tensor<4xi32>
  return %r : tensor<4xi32>
}
