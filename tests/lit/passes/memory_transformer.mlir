// RUN: kiln-opt --passes=inline,schedule --stats -o /dev/null %S/../../corpus/jax/transformer_encoder_layer.mlir 2>&1 | FileCheck %s
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
