// Attributes: constants of every element type (float formatting, splats, special values, hex for >100 elements) and every builtin attribute kind.
// Each chunk is given in the pretty form; the CHECK and GENERIC lines are what
// MLIR (jaxlib) prints for it. The generic output must parse back to the same
// pretty form, and printing is a fixed point.
// RUN: kiln-opt --split-input-file %s | FileCheck %s
// RUN: kiln-opt --split-input-file %s | kiln-opt --split-input-file | FileCheck %s
// RUN: kiln-opt --split-input-file --generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: kiln-opt --split-input-file --generic %s | kiln-opt --split-input-file | FileCheck %s

func.func @consts() {
  %cst = stablehlo.constant dense<[1.000000e+00, -0.000000e+00, 0x7F800000, 0xFF800000, 3.14159274, 1.401300e-45, 3.40282347E+38, 1.000000e-01, 1.234560e+05, 1.000000e+10]> : tensor<10xf32>
  %cst_0 = stablehlo.constant dense<[1.000000e+00, 1.000000e-01, 0x7FF8000000000000, 2.2250738585072014E-308, 1.7976931348623157E+308, 4.940660e-324, 123456789.123]> : tensor<7xf64>
  %cst_1 = stablehlo.constant dense<[1.000000e+00, 9.997550e-02, 0x7E00, 6.550400e+04, 5.960460e-08]> : tensor<5xf16>
  %cst_2 = stablehlo.constant dense<[1.000000e+00, 1.000980e-01, 0x7FC0, 3.004060e+38]> : tensor<4xbf16>
  %c = stablehlo.constant dense<[[true, false], [false, true]]> : tensor<2x2xi1>
  %c_3 = stablehlo.constant dense<[-128, 127]> : tensor<2xi8>
  %c_4 = stablehlo.constant dense<[255, 0]> : tensor<2xui8>
  %c_5 = stablehlo.constant dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>
  %c_6 = stablehlo.constant dense<18446744073709551615> : tensor<ui64>
  %cst_7 = stablehlo.constant dense<[(1.000000e+00,2.000000e+00), (0x7FC00000,-5.000000e-01)]> : tensor<2xcomplex<f32>>
  %cst_8 = stablehlo.constant dense<[1.000000e+00, 5.000000e-01, 4.480000e+02, 0x7F]> : tensor<4xf8E4M3FN>
  %cst_9 = stablehlo.constant dense<[1.000000e+00, 6.000000e+00, -5.000000e-01]> : tensor<3xf4E2M1FN>
  %c_10 = stablehlo.constant dense<[-8, 7]> : tensor<2xi4>
  %c_11 = stablehlo.constant dense<true> : tensor<i1>
  %cst_12 = stablehlo.constant dense<> : tensor<0xf32>
  %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<2x0x3xf32>
  %c_14 = stablehlo.constant dense<[[1, 2, 3]]> : tensor<1x3xi32>
  %cst_15 = stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %cst_16 = stablehlo.constant dense<[9.99999974E-6, 2.500000e-07, 1.000000e+20, 1.000000e+02, 1.000000e+16, 9.99999974E-6, 0x4B800000, 3.000000e-01]> : tensor<8xf32>
  %cst_17 = stablehlo.constant dense<[1.401300e-45, 0x7FC00001, 0xFFC00000]> : tensor<3xf32>
  %c_18 = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [11, 12]]> : tensor<6x2xi32>
  %cst_19 = stablehlo.constant dense<[5.000000e-01, 2.500000e-01, 1.000000e-03, 7.000000e-04]> : tensor<4xf32>
  return
}
// CHECK: module {
// CHECK-LABEL: func.func @consts() {
// CHECK-NEXT: %cst = stablehlo.constant dense<[1.000000e+00, -0.000000e+00, 0x7F800000, 0xFF800000, 3.14159274, 1.401300e-45, 3.40282347E+38, 1.000000e-01, 1.234560e+05, 1.000000e+10]> : tensor<10xf32>
// CHECK-NEXT: %cst_0 = stablehlo.constant dense<[1.000000e+00, 1.000000e-01, 0x7FF8000000000000, 2.2250738585072014E-308, 1.7976931348623157E+308, 4.940660e-324, 123456789.123]> : tensor<7xf64>
// CHECK-NEXT: %cst_1 = stablehlo.constant dense<[1.000000e+00, 9.997550e-02, 0x7E00, 6.550400e+04, 5.960460e-08]> : tensor<5xf16>
// CHECK-NEXT: %cst_2 = stablehlo.constant dense<[1.000000e+00, 1.000980e-01, 0x7FC0, 3.004060e+38]> : tensor<4xbf16>
// CHECK-NEXT: %c = stablehlo.constant dense<{{\[\[}}true, false], [false, true]]> : tensor<2x2xi1>
// CHECK-NEXT: %c_3 = stablehlo.constant dense<[-128, 127]> : tensor<2xi8>
// CHECK-NEXT: %c_4 = stablehlo.constant dense<[255, 0]> : tensor<2xui8>
// CHECK-NEXT: %c_5 = stablehlo.constant dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>
// CHECK-NEXT: %c_6 = stablehlo.constant dense<18446744073709551615> : tensor<ui64>
// CHECK-NEXT: %cst_7 = stablehlo.constant dense<[(1.000000e+00,2.000000e+00), (0x7FC00000,-5.000000e-01)]> : tensor<2xcomplex<f32>>
// CHECK-NEXT: %cst_8 = stablehlo.constant dense<[1.000000e+00, 5.000000e-01, 4.480000e+02, 0x7F]> : tensor<4xf8E4M3FN>
// CHECK-NEXT: %cst_9 = stablehlo.constant dense<[1.000000e+00, 6.000000e+00, -5.000000e-01]> : tensor<3xf4E2M1FN>
// CHECK-NEXT: %c_10 = stablehlo.constant dense<[-8, 7]> : tensor<2xi4>
// CHECK-NEXT: %c_11 = stablehlo.constant dense<true> : tensor<i1>
// CHECK-NEXT: %cst_12 = stablehlo.constant dense<> : tensor<0xf32>
// CHECK-NEXT: %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<2x0x3xf32>
// CHECK-NEXT: %c_14 = stablehlo.constant dense<{{\[\[}}1, 2, 3]]> : tensor<1x3xi32>
// CHECK-NEXT: %cst_15 = stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: %cst_16 = stablehlo.constant dense<[9.99999974E-6, 2.500000e-07, 1.000000e+20, 1.000000e+02, 1.000000e+16, 9.99999974E-6, 0x4B800000, 3.000000e-01]> : tensor<8xf32>
// CHECK-NEXT: %cst_17 = stablehlo.constant dense<[1.401300e-45, 0x7FC00001, 0xFFC00000]> : tensor<3xf32>
// CHECK-NEXT: %c_18 = stablehlo.constant dense<{{\[\[}}1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [11, 12]]> : tensor<6x2xi32>
// CHECK-NEXT: %cst_19 = stablehlo.constant dense<[5.000000e-01, 2.500000e-01, 1.000000e-03, 7.000000e-04]> : tensor<4xf32>
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
// GENERIC: "builtin.module"() ({
// GENERIC-NEXT: "func.func"() <{function_type = () -> (), sym_name = "consts"}> ({
// GENERIC-NEXT: %0 = "stablehlo.constant"() <{value = dense<[1.000000e+00, -0.000000e+00, 0x7F800000, 0xFF800000, 3.14159274, 1.401300e-45, 3.40282347E+38, 1.000000e-01, 1.234560e+05, 1.000000e+10]> : tensor<10xf32>}> : () -> tensor<10xf32>
// GENERIC-NEXT: %1 = "stablehlo.constant"() <{value = dense<[1.000000e+00, 1.000000e-01, 0x7FF8000000000000, 2.2250738585072014E-308, 1.7976931348623157E+308, 4.940660e-324, 123456789.123]> : tensor<7xf64>}> : () -> tensor<7xf64>
// GENERIC-NEXT: %2 = "stablehlo.constant"() <{value = dense<[1.000000e+00, 9.997550e-02, 0x7E00, 6.550400e+04, 5.960460e-08]> : tensor<5xf16>}> : () -> tensor<5xf16>
// GENERIC-NEXT: %3 = "stablehlo.constant"() <{value = dense<[1.000000e+00, 1.000980e-01, 0x7FC0, 3.004060e+38]> : tensor<4xbf16>}> : () -> tensor<4xbf16>
// GENERIC-NEXT: %4 = "stablehlo.constant"() <{value = dense<{{\[\[}}true, false], [false, true]]> : tensor<2x2xi1>}> : () -> tensor<2x2xi1>
// GENERIC-NEXT: %5 = "stablehlo.constant"() <{value = dense<[-128, 127]> : tensor<2xi8>}> : () -> tensor<2xi8>
// GENERIC-NEXT: %6 = "stablehlo.constant"() <{value = dense<[255, 0]> : tensor<2xui8>}> : () -> tensor<2xui8>
// GENERIC-NEXT: %7 = "stablehlo.constant"() <{value = dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>}> : () -> tensor<2xi64>
// GENERIC-NEXT: %8 = "stablehlo.constant"() <{value = dense<18446744073709551615> : tensor<ui64>}> : () -> tensor<ui64>
// GENERIC-NEXT: %9 = "stablehlo.constant"() <{value = dense<[(1.000000e+00,2.000000e+00), (0x7FC00000,-5.000000e-01)]> : tensor<2xcomplex<f32>>}> : () -> tensor<2xcomplex<f32>>
// GENERIC-NEXT: %10 = "stablehlo.constant"() <{value = dense<[1.000000e+00, 5.000000e-01, 4.480000e+02, 0x7F]> : tensor<4xf8E4M3FN>}> : () -> tensor<4xf8E4M3FN>
// GENERIC-NEXT: %11 = "stablehlo.constant"() <{value = dense<[1.000000e+00, 6.000000e+00, -5.000000e-01]> : tensor<3xf4E2M1FN>}> : () -> tensor<3xf4E2M1FN>
// GENERIC-NEXT: %12 = "stablehlo.constant"() <{value = dense<[-8, 7]> : tensor<2xi4>}> : () -> tensor<2xi4>
// GENERIC-NEXT: %13 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
// GENERIC-NEXT: %14 = "stablehlo.constant"() <{value = dense<> : tensor<0xf32>}> : () -> tensor<0xf32>
// GENERIC-NEXT: %15 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<2x0x3xf32>}> : () -> tensor<2x0x3xf32>
// GENERIC-NEXT: %16 = "stablehlo.constant"() <{value = dense<{{\[\[}}1, 2, 3]]> : tensor<1x3xi32>}> : () -> tensor<1x3xi32>
// GENERIC-NEXT: %17 = "stablehlo.constant"() <{value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
// GENERIC-NEXT: %18 = "stablehlo.constant"() <{value = dense<[9.99999974E-6, 2.500000e-07, 1.000000e+20, 1.000000e+02, 1.000000e+16, 9.99999974E-6, 0x4B800000, 3.000000e-01]> : tensor<8xf32>}> : () -> tensor<8xf32>
// GENERIC-NEXT: %19 = "stablehlo.constant"() <{value = dense<[1.401300e-45, 0x7FC00001, 0xFFC00000]> : tensor<3xf32>}> : () -> tensor<3xf32>
// GENERIC-NEXT: %20 = "stablehlo.constant"() <{value = dense<{{\[\[}}1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [11, 12]]> : tensor<6x2xi32>}> : () -> tensor<6x2xi32>
// GENERIC-NEXT: %21 = "stablehlo.constant"() <{value = dense<[5.000000e-01, 2.500000e-01, 1.000000e-03, 7.000000e-04]> : tensor<4xf32>}> : () -> tensor<4xf32>
// GENERIC-NEXT: "func.return"() : () -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC-NEXT: }) : () -> ()

// -----

func.func @f(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.abs %arg0 {foo = #stablehlo<comparison_direction EQ>, m = dense<[1.500000e+00, 2.500000e+00]> : tensor<2xbf16>, n = 1.000000e-01 : f32, o = 1.000000e+00 : f64, p = 1.000000e+00 : bf16, q = 9.997550e-02 : f16, "quoted key" = 1 : i8, s = "with \22quote\22 and \\ and \0A newline \01", t = (tensor<f32>) -> tensor<f32>, u = @a::@b, v = [@x, "y", unit], w = array<f32: 1.500000e+00, 1.000000e-01>, x = -5 : index, y = dense<[1, 2]> : tensor<2xindex>} : tensor<f32>
  return %0 : tensor<f32>
}
// CHECK: module {
// CHECK-LABEL: func.func @f(%arg0: tensor<f32>) -> tensor<f32> {
// CHECK-NEXT: %0 = stablehlo.abs %arg0 {foo = #stablehlo<comparison_direction EQ>, m = dense<[1.500000e+00, 2.500000e+00]> : tensor<2xbf16>, n = 1.000000e-01 : f32, o = 1.000000e+00 : f64, p = 1.000000e+00 : bf16, q = 9.997550e-02 : f16, "quoted key" = 1 : i8, s = "with \22quote\22 and \\ and \0A newline \01", t = (tensor<f32>) -> tensor<f32>, u = @a::@b, v = [@x, "y", unit], w = array<f32: 1.500000e+00, 1.000000e-01>, x = -5 : index, y = dense<[1, 2]> : tensor<2xindex>} : tensor<f32>
// CHECK-NEXT: return %0 : tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// GENERIC: "builtin.module"() ({
// GENERIC-NEXT: "func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "f"}> ({
// GENERIC-NEXT: ^bb0(%arg0: tensor<f32>):
// GENERIC-NEXT: %0 = "stablehlo.abs"(%arg0) {foo = #stablehlo<comparison_direction EQ>, m = dense<[1.500000e+00, 2.500000e+00]> : tensor<2xbf16>, n = 1.000000e-01 : f32, o = 1.000000e+00 : f64, p = 1.000000e+00 : bf16, q = 9.997550e-02 : f16, "quoted key" = 1 : i8, s = "with \22quote\22 and \\ and \0A newline \01", t = (tensor<f32>) -> tensor<f32>, u = @a::@b, v = [@x, "y", unit], w = array<f32: 1.500000e+00, 1.000000e-01>, x = -5 : index, y = dense<[1, 2]> : tensor<2xindex>} : (tensor<f32>) -> tensor<f32>
// GENERIC-NEXT: "func.return"(%0) : (tensor<f32>) -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC-NEXT: }) : () -> ()

// -----

func.func @large_constants() {
  %cst = stablehlo.constant dense<"0x000000000000803F0000004000004040000080400000A0400000C0400000E0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041000098410000A0410000A8410000B0410000B8410000C0410000C8410000D0410000D8410000E0410000E8410000F0410000F84100000042000004420000084200000C4200001042000014420000184200001C4200002042000024420000284200002C4200003042000034420000384200003C4200004042000044420000484200004C4200005042000054420000584200005C4200006042000064420000684200006C4200007042000074420000784200007C42000080420000824200008442000086420000884200008A4200008C4200008E42000090420000924200009442000096420000984200009A4200009C4200009E420000A0420000A2420000A4420000A6420000A8420000AA420000AC420000AE420000B0420000B2420000B4420000B6420000B8420000BA420000BC420000BE420000C0420000C2420000C4420000C6420000C842"> : tensor<101xf32>
  %c = stablehlo.constant dense<"0x000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F"> : tensor<101xi4>
  %c_0 = stablehlo.constant dense<"0x0100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100"> : tensor<101xi1>
  %cst_1 = stablehlo.constant dense<2.500000e+00> : tensor<1000xf32>
  %cst_2 = stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  return
}
// CHECK: module {
// CHECK-LABEL: func.func @large_constants() {
// CHECK-NEXT: %cst = stablehlo.constant dense<"0x000000000000803F0000004000004040000080400000A0400000C0400000E0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041000098410000A0410000A8410000B0410000B8410000C0410000C8410000D0410000D8410000E0410000E8410000F0410000F84100000042000004420000084200000C4200001042000014420000184200001C4200002042000024420000284200002C4200003042000034420000384200003C4200004042000044420000484200004C4200005042000054420000584200005C4200006042000064420000684200006C4200007042000074420000784200007C42000080420000824200008442000086420000884200008A4200008C4200008E42000090420000924200009442000096420000984200009A4200009C4200009E420000A0420000A2420000A4420000A6420000A8420000AA420000AC420000AE420000B0420000B2420000B4420000B6420000B8420000BA420000BC420000BE420000C0420000C2420000C4420000C6420000C842"> : tensor<101xf32>
// CHECK-NEXT: %c = stablehlo.constant dense<"0x000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F"> : tensor<101xi4>
// CHECK-NEXT: %c_0 = stablehlo.constant dense<"0x0100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100"> : tensor<101xi1>
// CHECK-NEXT: %cst_1 = stablehlo.constant dense<2.500000e+00> : tensor<1000xf32>
// CHECK-NEXT: %cst_2 = stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
// GENERIC: "builtin.module"() ({
// GENERIC-NEXT: "func.func"() <{function_type = () -> (), sym_name = "large_constants"}> ({
// GENERIC-NEXT: %0 = "stablehlo.constant"() <{value = dense<"0x000000000000803F0000004000004040000080400000A0400000C0400000E0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041000098410000A0410000A8410000B0410000B8410000C0410000C8410000D0410000D8410000E0410000E8410000F0410000F84100000042000004420000084200000C4200001042000014420000184200001C4200002042000024420000284200002C4200003042000034420000384200003C4200004042000044420000484200004C4200005042000054420000584200005C4200006042000064420000684200006C4200007042000074420000784200007C42000080420000824200008442000086420000884200008A4200008C4200008E42000090420000924200009442000096420000984200009A4200009C4200009E420000A0420000A2420000A4420000A6420000A8420000AA420000AC420000AE420000B0420000B2420000B4420000B6420000B8420000BA420000BC420000BE420000C0420000C2420000C4420000C6420000C842"> : tensor<101xf32>}> : () -> tensor<101xf32>
// GENERIC-NEXT: %1 = "stablehlo.constant"() <{value = dense<"0x000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F0E000F"> : tensor<101xi4>}> : () -> tensor<101xi4>
// GENERIC-NEXT: %2 = "stablehlo.constant"() <{value = dense<"0x0100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100000100"> : tensor<101xi1>}> : () -> tensor<101xi1>
// GENERIC-NEXT: %3 = "stablehlo.constant"() <{value = dense<2.500000e+00> : tensor<1000xf32>}> : () -> tensor<1000xf32>
// GENERIC-NEXT: %4 = "stablehlo.constant"() <{value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
// GENERIC-NEXT: "func.return"() : () -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC-NEXT: }) : () -> ()
