// The parser reads ops of other dialects only in the generic form: sed writes
// JAX's `chlo.square %x : T -> T` that way first.
// RUN: sed -E 's/chlo[.]square (%[a-z0-9_]+) : (tensor<[^>]*>) -> (tensor<[^>]*>)/"chlo.square"(\1) : (\2) -> \3/' %S/../../corpus/jax/transformer_encoder_layer.mlir > %t.mlir
// RUN: kiln-opt --allow-unregistered-dialect --no-verify-each --passes=inline,schedule --stats -o /dev/null %t.mlir 2>&1 | FileCheck %s
// The statistics of a transformer encoder layer (the unit test
// BufferAssignmentTest.TransformerEncoderLayerPeakIsBelowTheSumOfItsIntermediates
// checks that peak_bytes < intermediate_bytes_total, which FileCheck cannot).
// CHECK: kernels=[[#]]
// CHECK-NEXT: fusions=0
// CHECK-NEXT: peak_bytes=[[#]]
// CHECK-NEXT: arena_bytes=[[#]]
// CHECK-NEXT: buffers=[[#]]
// CHECK-NEXT: parameter_bytes=35728
// CHECK-NEXT: intermediate_bytes_total=[[#]]
