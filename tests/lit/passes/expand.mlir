// RUN: kiln-opt --passes=expand --split-input-file %s | FileCheck %s
// Each case pins one expander of kiln/passes/expand.cpp.

// batch_norm_inference -> (x - mean) / sqrt(variance + epsilon) * scale + offset.
// CHECK-LABEL: func.func @batch_norm_inference
// CHECK-NEXT: %[[MEAN:.*]] = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[C:.*]] = stablehlo.subtract %arg0, %[[MEAN]] : tensor<2x3xf32>
// CHECK-NEXT: %[[EPS:.*]] = stablehlo.constant dense<1.000000e-03> : tensor<3xf32>
// CHECK-NEXT: %[[VE:.*]] = stablehlo.add %arg4, %[[EPS]] : tensor<3xf32>
// CHECK-NEXT: %[[SD:.*]] = stablehlo.sqrt %[[VE]] : tensor<3xf32>
// CHECK-NEXT: %[[SDB:.*]] = stablehlo.broadcast_in_dim %[[SD]], dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[N:.*]] = stablehlo.divide %[[C]], %[[SDB]] : tensor<2x3xf32>
// CHECK-NEXT: %[[SC:.*]] = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[S:.*]] = stablehlo.multiply %[[N]], %[[SC]] : tensor<2x3xf32>
// CHECK-NEXT: %[[OFF:.*]] = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[Y:.*]] = stablehlo.add %[[S]], %[[OFF]] : tensor<2x3xf32>
// CHECK-NEXT: return %[[Y]]
func.func @batch_norm_inference(%x: tensor<2x3xf32>, %scale: tensor<3xf32>, %offset: tensor<3xf32>, %mean: tensor<3xf32>, %var: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = "stablehlo.batch_norm_inference"(%x, %scale, %offset, %mean, %var) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----
// batch_norm_training -> mean and variance by sums over the non-feature dims.
// CHECK-LABEL: func.func @batch_norm_training
// CHECK-NEXT: %[[COUNT:.*]] = stablehlo.constant dense<2.000000e+00> : tensor<3xf32>
// CHECK-NEXT: %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[SUM:.*]] = stablehlo.reduce(%arg0 init: %[[Z]]) applies stablehlo.add across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT: %[[MEAN:.*]] = stablehlo.divide %[[SUM]], %[[COUNT]] : tensor<3xf32>
// CHECK-NEXT: %[[MEANB:.*]] = stablehlo.broadcast_in_dim %[[MEAN]], dims = [1]
// CHECK-NEXT: %[[C:.*]] = stablehlo.subtract %arg0, %[[MEANB]] : tensor<2x3xf32>
// CHECK-NEXT: %[[SQ:.*]] = stablehlo.multiply %[[C]], %[[C]] : tensor<2x3xf32>
// CHECK-NEXT: %[[Z2:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[SSQ:.*]] = stablehlo.reduce(%[[SQ]] init: %[[Z2]]) applies stablehlo.add across dimensions = [0]
// CHECK-NEXT: %[[VAR:.*]] = stablehlo.divide %[[SSQ]], %[[COUNT]] : tensor<3xf32>
// CHECK:      %[[Y:.*]] = stablehlo.add %{{.*}}, %{{.*}} : tensor<2x3xf32>
// CHECK-NEXT: return %[[Y]], %[[MEAN]], %[[VAR]]
func.func @batch_norm_training(%x: tensor<2x3xf32>, %scale: tensor<3xf32>, %offset: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0:3 = "stablehlo.batch_norm_training"(%x, %scale, %offset) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----
// batch_norm_grad -> the spec's gradient formulas.
// CHECK-LABEL: func.func @batch_norm_grad
// CHECK-NEXT: %[[EPS:.*]] = stablehlo.constant dense<0.0010000000474974513> : tensor<3xf64>
// CHECK-NEXT: %[[VE:.*]] = stablehlo.add %arg3, %[[EPS]] : tensor<3xf64>
// CHECK-NEXT: %[[SD:.*]] = stablehlo.sqrt %[[VE]] : tensor<3xf64>
// CHECK-NEXT: %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f64>
// CHECK-NEXT: %[[GOFF:.*]] = stablehlo.reduce(%arg4 init: %[[Z]]) applies stablehlo.add across dimensions = [0]
// CHECK-NEXT: %[[MEANB:.*]] = stablehlo.broadcast_in_dim %arg2, dims = [1]
// CHECK-NEXT: %[[C:.*]] = stablehlo.subtract %arg0, %[[MEANB]] : tensor<2x3xf64>
// CHECK-NEXT: %[[DYC:.*]] = stablehlo.multiply %arg4, %[[C]] : tensor<2x3xf64>
// CHECK-NEXT: %[[Z2:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f64>
// CHECK-NEXT: %[[SDYC:.*]] = stablehlo.reduce(%[[DYC]] init: %[[Z2]]) applies stablehlo.add across dimensions = [0]
// CHECK-NEXT: %[[GSCALE:.*]] = stablehlo.divide %[[SDYC]], %[[SD]] : tensor<3xf64>
// CHECK-NEXT: %[[COUNT:.*]] = stablehlo.constant dense<2.000000e+00> : tensor<3xf64>
// CHECK-NEXT: %[[F0:.*]] = stablehlo.divide %arg1, %[[SD]] : tensor<3xf64>
// CHECK-NEXT: %[[F:.*]] = stablehlo.divide %[[F0]], %[[COUNT]] : tensor<3xf64>
// CHECK-NEXT: %[[SDYCB:.*]] = stablehlo.broadcast_in_dim %[[SDYC]], dims = [1]
// CHECK-NEXT: %[[CS:.*]] = stablehlo.multiply %[[C]], %[[SDYCB]] : tensor<2x3xf64>
// CHECK-NEXT: %[[VEB:.*]] = stablehlo.broadcast_in_dim %[[VE]], dims = [1]
// CHECK-NEXT: %[[CORR:.*]] = stablehlo.divide %[[CS]], %[[VEB]] : tensor<2x3xf64>
// CHECK-NEXT: %[[COUNTB:.*]] = stablehlo.broadcast_in_dim %[[COUNT]], dims = [1]
// CHECK-NEXT: %[[NDY:.*]] = stablehlo.multiply %[[COUNTB]], %arg4 : tensor<2x3xf64>
// CHECK-NEXT: %[[GOFFB:.*]] = stablehlo.broadcast_in_dim %[[GOFF]], dims = [1]
// CHECK-NEXT: %[[D0:.*]] = stablehlo.subtract %[[NDY]], %[[GOFFB]] : tensor<2x3xf64>
// CHECK-NEXT: %[[D1:.*]] = stablehlo.subtract %[[D0]], %[[CORR]] : tensor<2x3xf64>
// CHECK-NEXT: %[[FB:.*]] = stablehlo.broadcast_in_dim %[[F]], dims = [1]
// CHECK-NEXT: %[[GX:.*]] = stablehlo.multiply %[[FB]], %[[D1]] : tensor<2x3xf64>
// CHECK-NEXT: return %[[GX]], %[[GSCALE]], %[[GOFF]]
func.func @batch_norm_grad(%x: tensor<2x3xf64>, %scale: tensor<3xf64>, %mean: tensor<3xf64>, %var: tensor<3xf64>, %dy: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) {
  %0:3 = "stablehlo.batch_norm_grad"(%x, %scale, %mean, %var, %dy) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>)
  return %0#0, %0#1, %0#2 : tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>
}

// -----
// rng UNIFORM -> rng_bit_generator + a + (b - a) * (u >> 11) * 2^-53 in f64.
// CHECK-LABEL: func.func @rng_uniform
// CHECK:      %[[A0:.*]] = stablehlo.convert %arg0 : (tensor<f32>) -> tensor<f64>
// CHECK-NEXT: %[[A:.*]] = stablehlo.broadcast_in_dim %[[A0]], dims = [] : (tensor<f64>) -> tensor<2x2xf64>
// CHECK-NEXT: %[[B0:.*]] = stablehlo.convert %arg1 : (tensor<f32>) -> tensor<f64>
// CHECK-NEXT: %[[B:.*]] = stablehlo.broadcast_in_dim %[[B0]], dims = [] : (tensor<f64>) -> tensor<2x2xf64>
// CHECK-NEXT: %[[STATE:.*]] = stablehlo.constant dense<0> : tensor<3xui64>
// CHECK-NEXT: %{{.*}}, %[[BITS:.*]] = stablehlo.rng_bit_generator %[[STATE]], algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<2x2xui64>)
// CHECK-NEXT: %[[W:.*]] = stablehlo.subtract %[[B]], %[[A]] : tensor<2x2xf64>
// CHECK-NEXT: %[[ELEVEN:.*]] = stablehlo.constant dense<11> : tensor<2x2xui64>
// CHECK-NEXT: %[[TOP:.*]] = stablehlo.shift_right_logical %[[BITS]], %[[ELEVEN]] : tensor<2x2xui64>
// CHECK-NEXT: %[[TOPF:.*]] = stablehlo.convert %[[TOP]] : (tensor<2x2xui64>) -> tensor<2x2xf64>
// CHECK-NEXT: %[[ULP:.*]] = stablehlo.constant dense<1.1102230246251565E-16> : tensor<2x2xf64>
// CHECK-NEXT: %[[U:.*]] = stablehlo.multiply %[[TOPF]], %[[ULP]] : tensor<2x2xf64>
// CHECK-NEXT: %[[WU:.*]] = stablehlo.multiply %[[W]], %[[U]] : tensor<2x2xf64>
// CHECK-NEXT: %[[V:.*]] = stablehlo.add %[[A]], %[[WU]] : tensor<2x2xf64>
// CHECK-NEXT: %[[R:.*]] = stablehlo.convert %[[V]] : (tensor<2x2xf64>) -> tensor<2x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @rng_uniform(%a: tensor<f32>, %b: tensor<f32>) -> tensor<2x2xf32> {
  %shape = stablehlo.constant dense<[2, 2]> : tensor<2xi64>
  %0 = stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----
// rng NORMAL -> Box-Muller over two words per element.
// CHECK-LABEL: func.func @rng_normal
// CHECK:      stablehlo.rng_bit_generator %{{.*}}, algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<3x2xui64>)
// CHECK:      stablehlo.slice %{{.*}} [0:3, 0:1]
// CHECK:      stablehlo.log
// CHECK:      stablehlo.sqrt
// CHECK:      stablehlo.constant dense<6.2831853071795862> : tensor<3xf64>
// CHECK:      stablehlo.slice %{{.*}} [0:3, 1:2]
// CHECK:      stablehlo.cosine
// CHECK:      stablehlo.convert %{{.*}} : (tensor<3xf64>) -> tensor<3xf32>
// CHECK-NOT:  stablehlo.rng 
func.func @rng_normal(%a: tensor<f32>, %b: tensor<f32>) -> tensor<3xf32> {
  %shape = stablehlo.constant dense<[3]> : tensor<1xi64>
  %0 = stablehlo.rng %a, %b, %shape, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----
// Integer rng is left alone.
// CHECK-LABEL: func.func @rng_int_kept
// CHECK: stablehlo.rng %arg0, %arg1
func.func @rng_int_kept(%a: tensor<i32>, %b: tensor<i32>) -> tensor<3xi32> {
  %shape = stablehlo.constant dense<[3]> : tensor<1xi64>
  %0 = stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----
// convolution with batch_group_count 2: the lhs batch dim (b, last here)
// splits into (2, 3) in place, the 2 moves to just before the feature dim
// (f, first), and (2, 8) merge into 16 features in 2 feature groups.
// CHECK-LABEL: func.func @conv_batch_groups
// CHECK-NEXT: %[[S:.*]] = stablehlo.reshape %arg0 : (tensor<8x5x5x6xf32>) -> tensor<8x5x5x2x3xf32>
// CHECK-NEXT: %[[T:.*]] = stablehlo.transpose %[[S]], dims = [3, 0, 1, 2, 4] : (tensor<8x5x5x2x3xf32>) -> tensor<2x8x5x5x3xf32>
// CHECK-NEXT: %[[M:.*]] = stablehlo.reshape %[[T]] : (tensor<2x8x5x5x3xf32>) -> tensor<16x5x5x3xf32>
// CHECK-NEXT: stablehlo.convolution(%[[M]], %arg1) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f]
// CHECK-SAME: batch_group_count = 1 : i64, feature_group_count = 2 : i64
// CHECK-SAME: (tensor<16x5x5x3xf32>, tensor<8x3x3x4xf32>) -> tensor<3x3x3x4xf32>
func.func @conv_batch_groups(%x: tensor<8x5x5x6xf32>, %dy: tensor<8x3x3x4xf32>) -> tensor<3x3x3x4xf32> {
  %0 = stablehlo.convolution(%x, %dy) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 2 : i64, feature_group_count = 1 : i64} : (tensor<8x5x5x6xf32>, tensor<8x3x3x4xf32>) -> tensor<3x3x3x4xf32>
  return %0 : tensor<3x3x3x4xf32>
}

// -----
// window_reversal -> the rhs reversed along those kernel spatial dims.
// CHECK-LABEL: func.func @conv_window_reversal
// CHECK-NEXT: %[[R:.*]] = stablehlo.reverse %arg1, dims = [1] : tensor<3x3x3x16xf32>
// CHECK-NEXT: stablehlo.convolution(%arg0, %[[R]])
// CHECK-SAME: reverse = [false, false]
func.func @conv_window_reversal(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x16xf32>) -> tensor<1x6x6x16xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x6x6x16xf32>
  return %0 : tensor<1x6x6x16xf32>
}

// -----
// A complex dot_general -> the parts' four real dots (same attributes):
// re = ar.br - ai.bi, im = ar.bi + ai.br.
// CHECK-LABEL: func.func @complex_dot
// CHECK-NEXT: %[[AR:.*]] = stablehlo.real %arg0 : (tensor<2x3x4xcomplex<f32>>) -> tensor<2x3x4xf32>
// CHECK-NEXT: %[[AI:.*]] = stablehlo.imag %arg0
// CHECK-NEXT: %[[BR:.*]] = stablehlo.real %arg1
// CHECK-NEXT: %[[BI:.*]] = stablehlo.imag %arg1
// CHECK-NEXT: %[[RR:.*]] = stablehlo.dot_general %[[AR]], %[[BR]], batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: %[[II:.*]] = stablehlo.dot_general %[[AI]], %[[BI]], batching_dims = [0] x [0], contracting_dims = [2] x [1]
// CHECK-NEXT: %[[RI:.*]] = stablehlo.dot_general %[[AR]], %[[BI]], batching_dims = [0] x [0], contracting_dims = [2] x [1]
// CHECK-NEXT: %[[IR:.*]] = stablehlo.dot_general %[[AI]], %[[BR]], batching_dims = [0] x [0], contracting_dims = [2] x [1]
// CHECK-NEXT: %[[RE:.*]] = stablehlo.subtract %[[RR]], %[[II]] : tensor<2x3x5xf32>
// CHECK-NEXT: %[[IM:.*]] = stablehlo.add %[[RI]], %[[IR]] : tensor<2x3x5xf32>
// CHECK-NEXT: %[[Z:.*]] = stablehlo.complex %[[RE]], %[[IM]] : tensor<2x3x5xcomplex<f32>>
// CHECK-NEXT: return %[[Z]]
func.func @complex_dot(%a: tensor<2x3x4xcomplex<f32>>, %b: tensor<2x4x5xcomplex<f32>>) -> tensor<2x3x5xcomplex<f32>> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xcomplex<f32>>, tensor<2x4x5xcomplex<f32>>) -> tensor<2x3x5xcomplex<f32>>
  return %0 : tensor<2x3x5xcomplex<f32>>
}

// -----
// A complex convolution with window reversal: the rhs is reversed first, and
// the four real convolutions read the reversed rhs's parts.
// CHECK-LABEL: func.func @complex_conv
// CHECK-NEXT: %[[R:.*]] = stablehlo.reverse %arg1, dims = [0] : tensor<3x2x4xcomplex<f32>>
// CHECK-NEXT: stablehlo.real %arg0
// CHECK-NEXT: stablehlo.imag %arg0
// CHECK-NEXT: stablehlo.real %[[R]]
// CHECK-NEXT: stablehlo.imag %[[R]]
// CHECK-COUNT-4: stablehlo.convolution{{.*}}reverse = [false]{{.*}} : (tensor<1x8x2xf32>, tensor<3x2x4xf32>) -> tensor<1x6x4xf32>
// CHECK-NEXT: stablehlo.subtract
// CHECK-NEXT: stablehlo.add
// CHECK-NEXT: stablehlo.complex
func.func @complex_conv(%x: tensor<1x8x2xcomplex<f32>>, %w: tensor<3x2x4xcomplex<f32>>) -> tensor<1x6x4xcomplex<f32>> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1], pad = [[0, 0]], lhs_dilate = [1], rhs_dilate = [1], reverse = [true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x2xcomplex<f32>>, tensor<3x2x4xcomplex<f32>>) -> tensor<1x6x4xcomplex<f32>>
  return %0 : tensor<1x6x4xcomplex<f32>>
}

// -----
// An integer convolution -> a dot over its input's windows: the input moved
// to [b, 0, f] and padded (lhs dilation as interior padding), one strided
// slice per window position (offset by the rhs dilation), concatenated
// along the features; the kernel moved to [0, i, o] and flattened; the
// product moved to the result's layout.
// CHECK-LABEL: func.func @integer_conv
// CHECK-NEXT: %[[X:.*]] = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<2x3x7xi8>) -> tensor<2x7x3xi8>
// CHECK-NEXT: %[[ZERO:.*]] = stablehlo.constant dense<0> : tensor<i8>
// CHECK-NEXT: %[[P:.*]] = stablehlo.pad %[[X]], %[[ZERO]], low = [0, 1, 0], high = [0, 2, 0], interior = [0, 1, 0] : (tensor<2x7x3xi8>, tensor<i8>) -> tensor<2x16x3xi8>
// CHECK-NEXT: %[[S0:.*]] = stablehlo.slice %[[P]] [0:2, 0:13:3, 0:3] : (tensor<2x16x3xi8>) -> tensor<2x5x3xi8>
// CHECK-NEXT: %[[S1:.*]] = stablehlo.slice %[[P]] [0:2, 2:15:3, 0:3]
// CHECK-NEXT: %[[C:.*]] = stablehlo.concatenate %[[S0]], %[[S1]], dim = 2 : (tensor<2x5x3xi8>, tensor<2x5x3xi8>) -> tensor<2x5x6xi8>
// CHECK-NEXT: %[[W:.*]] = stablehlo.transpose %arg1, dims = [2, 1, 0] : (tensor<4x3x2xi8>) -> tensor<2x3x4xi8>
// CHECK-NEXT: %[[WM:.*]] = stablehlo.reshape %[[W]] : (tensor<2x3x4xi8>) -> tensor<6x4xi8>
// CHECK-NEXT: %[[CM:.*]] = stablehlo.reshape %[[C]] : (tensor<2x5x6xi8>) -> tensor<10x6xi8>
// CHECK-NEXT: %[[D:.*]] = stablehlo.dot_general %[[CM]], %[[WM]], contracting_dims = [1] x [0] : (tensor<10x6xi8>, tensor<6x4xi8>) -> tensor<10x4xi8>
// CHECK-NEXT: %[[Y:.*]] = stablehlo.reshape %[[D]] : (tensor<10x4xi8>) -> tensor<2x5x4xi8>
// CHECK-NEXT: %[[T:.*]] = stablehlo.transpose %[[Y]], dims = [0, 2, 1] : (tensor<2x5x4xi8>) -> tensor<2x4x5xi8>
// CHECK-NEXT: return %[[T]]
func.func @integer_conv(%x: tensor<2x3x7xi8>, %w: tensor<4x3x2xi8>) -> tensor<2x4x5xi8> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [3], pad = [[1, 2]], lhs_dilate = [2], rhs_dilate = [2], reverse = [false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x7xi8>, tensor<4x3x2xi8>) -> tensor<2x4x5xi8>
  return %0 : tensor<2x4x5xi8>
}

// -----
// An f64 convolution becomes a dot only without padding (the interpreter
// skips padded positions; a product with padding could add a NaN);
// feature groups stay convolutions.
// CHECK-LABEL: func.func @f64_conv
// CHECK: stablehlo.dot_general {{.*}} : (tensor<6x6xf64>, tensor<6x4xf64>) -> tensor<6x4xf64>
// CHECK: stablehlo.convolution
// CHECK-SAME: pad = {{\[\[}}1, 1]]
// CHECK: stablehlo.convolution
// CHECK-SAME: feature_group_count = 2
func.func @f64_conv(%x: tensor<1x8x2xf64>, %w: tensor<3x2x4xf64>, %g: tensor<3x1x4xi32>, %xi: tensor<1x8x2xi32>) -> (tensor<1x6x4xf64>, tensor<1x8x4xf64>, tensor<1x6x4xi32>) {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1], pad = [[0, 0]], lhs_dilate = [1], rhs_dilate = [1], reverse = [false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x2xf64>, tensor<3x2x4xf64>) -> tensor<1x6x4xf64>
  %1 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1], pad = [[1, 1]], lhs_dilate = [1], rhs_dilate = [1], reverse = [false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x2xf64>, tensor<3x2x4xf64>) -> tensor<1x8x4xf64>
  %2 = stablehlo.convolution(%xi, %g) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1], pad = [[0, 0]], lhs_dilate = [1], rhs_dilate = [1], reverse = [false]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x8x2xi32>, tensor<3x1x4xi32>) -> tensor<1x6x4xi32>
  return %0, %1, %2 : tensor<1x6x4xf64>, tensor<1x8x4xf64>, tensor<1x6x4xi32>
}

// -----
// A dot of real operands is left alone.
// CHECK-LABEL: func.func @real_dot
// CHECK-NEXT: stablehlo.dot_general %arg0, %arg1
// CHECK-NEXT: return
func.func @real_dot(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----
// A sum of complex values -> the sums of its real and imaginary parts, each
// from its part of the init; a complex reduce with another body is left alone.
// CHECK-LABEL: func.func @complex_sum
// CHECK-NEXT: %[[XR:.*]] = stablehlo.real %arg0 : (tensor<3x4xcomplex<f32>>) -> tensor<3x4xf32>
// CHECK-NEXT: %[[IR:.*]] = stablehlo.real %arg1 : (tensor<complex<f32>>) -> tensor<f32>
// CHECK-NEXT: %[[R:.*]] = stablehlo.reduce(%[[XR]] init: %[[IR]]) applies stablehlo.add across dimensions = [1] : (tensor<3x4xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT: %[[XI:.*]] = stablehlo.imag %arg0 : (tensor<3x4xcomplex<f32>>) -> tensor<3x4xf32>
// CHECK-NEXT: %[[II:.*]] = stablehlo.imag %arg1 : (tensor<complex<f32>>) -> tensor<f32>
// CHECK-NEXT: %[[I:.*]] = stablehlo.reduce(%[[XI]] init: %[[II]]) applies stablehlo.add across dimensions = [1] : (tensor<3x4xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT: %[[Z:.*]] = stablehlo.complex %[[R]], %[[I]] : tensor<3xcomplex<f32>>
// CHECK-NEXT: %[[P:.*]] = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.multiply
// CHECK-NEXT: return %[[Z]], %[[P]]
func.func @complex_sum(%x: tensor<3x4xcomplex<f32>>, %init: tensor<complex<f32>>) -> (tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>) {
  %0 = stablehlo.reduce(%x init: %init) applies stablehlo.add across dimensions = [1] : (tensor<3x4xcomplex<f32>>, tensor<complex<f32>>) -> tensor<3xcomplex<f32>>
  %1 = stablehlo.reduce(%x init: %init) applies stablehlo.multiply across dimensions = [1] : (tensor<3x4xcomplex<f32>>, tensor<complex<f32>>) -> tensor<3xcomplex<f32>>
  return %0, %1 : tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>
}
