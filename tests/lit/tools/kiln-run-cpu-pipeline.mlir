// The cpu back end's LLVM pipeline for kernels (docs/cpu_backend.md, "Compile
// time"). Every loop is marked llvm.loop.unroll.runtime.disable before
// optimization: the marks are in the optimized dump, not in the emitted one,
// and the scalar head loop of the transpose's tiles (which the loop
// vectorizer leaves alone) keeps its one mark, rolled. The assembly says
// which code generation passes kernels skip. Results do not change.
// RUN: rm -rf %t.dump
// RUN: kiln run %s --input-literal 'dense<2.0> : tensor<f32>' --dump-dir %t.dump | FileCheck %s --check-prefix=RESULT
// RESULT: dense<"0x0000000000000040000080400000C040
// RUN: FileCheck %s --check-prefix=EMITTED --implicit-check-not=llvm.loop.unroll.runtime.disable < %t.dump/main.ll
// EMITTED: define {{.*}}void @kernel0(
// RUN: FileCheck %s --check-prefix=OPT < %t.dump/main.opt.ll
// OPT: define {{.*}}void @kernel0(
// OPT: element.head:
// OPT-NOT: element.head.prol
// OPT: br {{.*}} label %element.head, !llvm.loop [[HEAD:![0-9]+]]
// OPT: [[HEAD]] = distinct !{[[HEAD]], [[RUNTIME:![0-9]+]]}
// OPT: [[RUNTIME]] = !{!"llvm.loop.unroll.runtime.disable"}
// RUN: FileCheck %s --check-prefix=ASM < %t.dump/main.s
// ASM: # code generation without: 'Loop Strength Reduction'{{$}}
// ASM: kernel0:
func.func @main(%x: tensor<f32>) -> tensor<80x96xf32> {
  %i = stablehlo.iota dim = 0 : tensor<96x80xf32>
  %b = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<96x80xf32>
  %m = stablehlo.multiply %i, %b : tensor<96x80xf32>
  %t = stablehlo.transpose %m, dims = [1, 0] : (tensor<96x80xf32>) -> tensor<80x96xf32>
  return %t : tensor<80x96xf32>
}
