// Tests of the StableHLO text parser (kiln/parse): types, every attribute
// form, the pretty and generic forms of ops (checked against each other and
// against text printed by jaxlib's MLIR), diagnostics and robustness.
#include "kiln/parse/parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "kiln/ir/ir.h"

namespace kiln {
namespace {

// A real JAX program with debug info: jax.jit(step).lower(...).as_text(debug_info=True)
// for an MLP training step with a fori_loop, sort, scatter-add, gather and cumsum.
constexpr const char kJaxProgram[] = R"mlir(#loc = loc(unknown)
#loc1 = loc("params[0]")
#loc2 = loc("params[1]")
#loc3 = loc("params[2]")
#loc4 = loc("x")
#loc5 = loc("y")
#loc6 = loc("idx")
#loc24 = loc("scatter-add")
#loc30 = loc("sort")
#loc36 = loc("reduce_window_sum")
#loc54 = loc("scatter-add:"(#loc24))
#loc59 = loc("sort:"(#loc30))
#loc60 = loc("reduce_window_sum:"(#loc36))
module @jit_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xf32> loc("params[0]"), %arg1: tensor<8xf32> loc("params[1]"), %arg2: tensor<8x2xf32> loc("params[2]"), %arg3: tensor<3x4xf32> loc("x"), %arg4: tensor<3x2xf32> loc("y"), %arg5: tensor<2xi32> loc("idx")) -> (tensor<4x8xf32> {jax.result_info = "result[0][0]"}, tensor<8xf32> {jax.result_info = "result[0][1]"}, tensor<8x2xf32> {jax.result_info = "result[0][2]"}, tensor<4xf32> {jax.result_info = "result[1]"}, tensor<3xf32> {jax.result_info = "result[2]"}, tensor<2x4xf32> {jax.result_info = "result[3]"}, tensor<6xf32> {jax.result_info = "result[4]"}) {
    %0 = stablehlo.dot_general %arg3, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x4xf32>, tensor<4x8xf32>) -> tensor<3x8xf32> loc(#loc105)
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32> loc(#loc106)
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<3x8xf32> loc(#loc107)
    %3 = stablehlo.add %0, %2 : tensor<3x8xf32> loc(#loc107)
    %4 = call @relu(%3) : (tensor<3x8xf32>) -> tensor<3x8xf32> loc(#loc108)
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc62)
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x8xf32> loc(#loc109)
    %6 = stablehlo.compare GT, %3, %5, FLOAT : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xi1> loc(#loc109)
    %7 = stablehlo.dot_general %4, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x8xf32>, tensor<8x2xf32>) -> tensor<3x2xf32> loc(#loc110)
    %8 = stablehlo.subtract %7, %arg4 : tensor<3x2xf32> loc(#loc111)
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32> loc(#loc62)
    %9 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x2xf32> loc(#loc112)
    %10 = stablehlo.multiply %9, %8 : tensor<3x2xf32> loc(#loc112)
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32> loc(#loc62)
    %cst_2 = stablehlo.constant dense<6.000000e+00> : tensor<f32> loc(#loc62)
    %11 = stablehlo.divide %cst_1, %cst_2 : tensor<f32> loc(#loc113)
    %12 = stablehlo.broadcast_in_dim %11, dims = [] : (tensor<f32>) -> tensor<3x2xf32> loc(#loc114)
    %13 = stablehlo.multiply %12, %10 : tensor<3x2xf32> loc(#loc115)
    %14 = stablehlo.dot_general %13, %4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x2xf32>, tensor<3x8xf32>) -> tensor<2x8xf32> loc(#loc116)
    %15 = stablehlo.transpose %14, dims = [1, 0] : (tensor<2x8xf32>) -> tensor<8x2xf32> loc(#loc117)
    %16 = stablehlo.dot_general %13, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<3x2xf32>, tensor<8x2xf32>) -> tensor<3x8xf32> loc(#loc116)
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc62)
    %17 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<3x8xf32> loc(#loc118)
    %18 = stablehlo.select %6, %16, %17 : tensor<3x8xi1>, tensor<3x8xf32> loc(#loc119)
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc120)
    %19 = stablehlo.reduce(%18 init: %cst_4) applies stablehlo.add across dimensions = [0] : (tensor<3x8xf32>, tensor<f32>) -> tensor<8xf32> loc(#loc120)
    %20 = stablehlo.reshape %19 : (tensor<8xf32>) -> tensor<1x8xf32> loc(#loc121)
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc120)
    %21 = stablehlo.reduce(%20 init: %cst_5) applies stablehlo.add across dimensions = [0] : (tensor<1x8xf32>, tensor<f32>) -> tensor<8xf32> loc(#loc120)
    %22 = stablehlo.dot_general %18, %arg3, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x8xf32>, tensor<3x4xf32>) -> tensor<8x4xf32> loc(#loc122)
    %23 = stablehlo.transpose %22, dims = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32> loc(#loc123)
    %cst_6 = stablehlo.constant dense<1.000000e-01> : tensor<f32> loc(#loc62)
    %24 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4x8xf32> loc(#loc124)
    %25 = stablehlo.multiply %24, %23 : tensor<4x8xf32> loc(#loc124)
    %26 = stablehlo.subtract %arg0, %25 : tensor<4x8xf32> loc(#loc125)
    %cst_7 = stablehlo.constant dense<1.000000e-01> : tensor<f32> loc(#loc62)
    %27 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<8xf32> loc(#loc124)
    %28 = stablehlo.multiply %27, %21 : tensor<8xf32> loc(#loc124)
    %29 = stablehlo.subtract %arg1, %28 : tensor<8xf32> loc(#loc125)
    %cst_8 = stablehlo.constant dense<1.000000e-01> : tensor<f32> loc(#loc62)
    %30 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<8x2xf32> loc(#loc124)
    %31 = stablehlo.multiply %30, %15 : tensor<8x2xf32> loc(#loc124)
    %32 = stablehlo.subtract %arg2, %31 : tensor<8x2xf32> loc(#loc125)
    %33 = stablehlo.slice %arg3 [0:1, 0:4] : (tensor<3x4xf32>) -> tensor<1x4xf32> loc(#loc83)
    %34 = stablehlo.reshape %33 : (tensor<1x4xf32>) -> tensor<4xf32> loc(#loc84)
    %c = stablehlo.constant dense<0> : tensor<i32> loc(#loc85)
    %35:2 = stablehlo.while(%iterArg = %c, %iterArg_14 = %34) : tensor<i32>, tensor<4xf32>
    cond {
      %c_15 = stablehlo.constant dense<3> : tensor<i32> loc(#loc126)
      %55 = stablehlo.compare LT, %iterArg, %c_15, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1> loc(#loc127)
      stablehlo.return %55 : tensor<i1> loc(#loc126)
    } do {
      %55 = func.call @closed_call(%iterArg_14) : (tensor<4xf32>) -> tensor<4xf32> loc(#loc128)
      %c_15 = stablehlo.constant dense<1> : tensor<i32> loc(#loc126)
      %56 = stablehlo.add %iterArg, %c_15 : tensor<i32> loc(#loc129)
      stablehlo.return %56, %55 : tensor<i32>, tensor<4xf32> loc(#loc126)
    } loc(#loc126)
    %36 = stablehlo.slice %arg3 [0:3, 0:1] : (tensor<3x4xf32>) -> tensor<3x1xf32> loc(#loc88)
    %37 = stablehlo.reshape %36 : (tensor<3x1xf32>) -> tensor<3xf32> loc(#loc89)
    %38 = call @sort(%37) : (tensor<3xf32>) -> tensor<3xf32> loc(#loc90)
    %c_9 = stablehlo.constant dense<0> : tensor<i32> loc(#loc62)
    %39 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<2xi32> loc(#loc91)
    %40 = stablehlo.compare LT, %arg5, %39, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1> loc(#loc91)
    %c_10 = stablehlo.constant dense<3> : tensor<i32> loc(#loc62)
    %41 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<2xi32> loc(#loc92)
    %42 = stablehlo.add %arg5, %41 : tensor<2xi32> loc(#loc92)
    %43 = stablehlo.select %40, %42, %arg5 : tensor<2xi1>, tensor<2xi32> loc(#loc93)
    %44 = stablehlo.broadcast_in_dim %43, dims = [0] : (tensor<2xi32>) -> tensor<2x1xi32> loc(#loc94)
    %cst_11 = stablehlo.constant dense<1.000000e+00> : tensor<f32> loc(#loc62)
    %45 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<2x4xf32> loc(#loc94)
    %46 = "stablehlo.scatter"(%arg3, %44, %45) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg6: tensor<f32> loc("scatter-add:"(#loc24)), %arg7: tensor<f32> loc("scatter-add:"(#loc24))):
      %55 = stablehlo.add %arg6, %arg7 : tensor<f32> loc(#loc92)
      stablehlo.return %55 : tensor<f32> loc(#loc95)
    }) : (tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<3x4xf32> loc(#loc95)
    %c_12 = stablehlo.constant dense<0> : tensor<i32> loc(#loc62)
    %47 = stablehlo.broadcast_in_dim %c_12, dims = [] : (tensor<i32>) -> tensor<2xi32> loc(#loc96)
    %48 = stablehlo.compare LT, %arg5, %47, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1> loc(#loc96)
    %c_13 = stablehlo.constant dense<3> : tensor<i32> loc(#loc62)
    %49 = stablehlo.broadcast_in_dim %c_13, dims = [] : (tensor<i32>) -> tensor<2xi32> loc(#loc97)
    %50 = stablehlo.add %arg5, %49 : tensor<2xi32> loc(#loc97)
    %51 = stablehlo.select %48, %50, %arg5 : tensor<2xi1>, tensor<2xi32> loc(#loc98)
    %52 = stablehlo.broadcast_in_dim %51, dims = [0] : (tensor<2xi32>) -> tensor<2x1xi32> loc(#loc99)
    %53 = "stablehlo.gather"(%46, %52) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}> : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32> loc(#loc100)
    %54 = call @cumsum(%arg4) : (tensor<3x2xf32>) -> tensor<6xf32> loc(#loc101)
    return %26, %29, %32, %35#1, %38, %53, %54 : tensor<4x8xf32>, tensor<8xf32>, tensor<8x2xf32>, tensor<4xf32>, tensor<3xf32>, tensor<2x4xf32>, tensor<6xf32> loc(#loc62)
  } loc(#loc)
  func.func private @relu(%arg0: tensor<3x8xf32> loc(unknown)) -> tensor<3x8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc)
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x8xf32> loc(#loc28)
    %1 = stablehlo.maximum %arg0, %0 : tensor<3x8xf32> loc(#loc28)
    return %1 : tensor<3x8xf32> loc(#loc)
  } loc(#loc57)
  func.func private @closed_call(%arg0: tensor<4xf32> loc(unknown)) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32> loc(#loc)
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32> loc(#loc73)
    %1 = stablehlo.multiply %arg0, %0 : tensor<4xf32> loc(#loc73)
    return %1 : tensor<4xf32> loc(#loc)
  } loc(#loc102)
  func.func private @sort(%arg0: tensor<3xf32> loc(unknown)) -> tensor<3xf32> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32> loc("sort:"(#loc30)), %arg2: tensor<f32> loc("sort:"(#loc30))):
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc30)
      %1 = stablehlo.compare EQ, %arg1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1> loc(#loc31)
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc30)
      %2 = stablehlo.select %1, %cst_0, %arg1 : tensor<i1>, tensor<f32> loc(#loc32)
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1> loc(#loc33)
      %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32> loc(#loc30)
      %4 = stablehlo.select %3, %cst_1, %2 : tensor<i1>, tensor<f32> loc(#loc32)
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc30)
      %5 = stablehlo.compare EQ, %arg2, %cst_2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1> loc(#loc31)
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc30)
      %6 = stablehlo.select %5, %cst_3, %arg2 : tensor<i1>, tensor<f32> loc(#loc32)
      %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1> loc(#loc33)
      %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32> loc(#loc30)
      %8 = stablehlo.select %7, %cst_4, %6 : tensor<i1>, tensor<f32> loc(#loc32)
      %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1> loc(#loc34)
      stablehlo.return %9 : tensor<i1> loc(#loc30)
    }) : (tensor<3xf32>) -> tensor<3xf32> loc(#loc30)
    return %0 : tensor<3xf32> loc(#loc)
  } loc(#loc130)
  func.func private @cumsum(%arg0: tensor<3x2xf32> loc(unknown)) -> tensor<6xf32> {
    %0 = stablehlo.reshape %arg0 : (tensor<3x2xf32>) -> tensor<6xf32> loc(#loc35)
    %1 = call @cumsum_0(%0) : (tensor<6xf32>) -> tensor<6xf32> loc(#loc)
    return %1 : tensor<6xf32> loc(#loc)
  } loc(#loc131)
  func.func private @cumsum_0(%arg0: tensor<6xf32> loc(unknown)) -> tensor<6xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc36)
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32> loc(#loc36)
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[5, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 6>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<f32> loc("reduce_window_sum:"(#loc36)), %arg2: tensor<f32> loc("reduce_window_sum:"(#loc36))):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32> loc(#loc36)
      stablehlo.return %2 : tensor<f32> loc(#loc36)
    }) : (tensor<6xf32>, tensor<f32>) -> tensor<6xf32> loc(#loc36)
    return %1 : tensor<6xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc7 = loc("/tmp/pp/j3.py":4:20 to :26)
#loc8 = loc("/tmp/pp/j3.py":8:8 to :36)
#loc9 = loc("/tmp/pp/j3.py":15:6 to :32)
#loc10 = loc("/tmp/pp/j3.py":4:20 to :31)
#loc11 = loc("/tmp/pp/j3.py":4:8 to :32)
#loc12 = loc("/tmp/pp/j3.py":5:10 to :16)
#loc13 = loc("/tmp/pp/j3.py":6:21 to :28)
#loc14 = loc("/tmp/pp/j3.py":6:20 to :34)
#loc15 = loc("/tmp/pp/j3.py":6:11 to :35)
#loc16 = loc("/tmp/pp/j3.py":9:18 to :26)
#loc17 = loc("/tmp/pp/j3.py":9:13 to :55)
#loc18 = loc("/tmp/pp/j3.py":9:14 to :26)
#loc19 = loc("/tmp/pp/j3.py":10:53 to :57)
#loc20 = loc("/tmp/pp/j3.py":10:8 to :58)
#loc21 = loc("/tmp/pp/j3.py":11:17 to :24)
#loc22 = loc("/tmp/pp/j3.py":11:8 to :25)
#loc23 = loc("/tmp/pp/j3.py":12:8 to :26)
#loc25 = loc("/tmp/pp/j3.py":13:25 to :31)
#loc26 = loc("/tmp/pp/j3.py":13:33 to :46)
#loc27 = loc("jit")
#loc28 = loc("max")
#loc29 = loc("/tmp/pp/j3.py":10:45 to :51)
#loc31 = loc("eq")
#loc32 = loc("select_n")
#loc33 = loc("ne")
#loc34 = loc("lt_to")
#loc35 = loc("reshape")
#loc37 = loc("loss"(#loc7))
#loc38 = loc("step"(#loc8))
#loc39 = loc("<module>"(#loc9))
#loc40 = loc("loss"(#loc10))
#loc41 = loc("loss"(#loc11))
#loc42 = loc("loss"(#loc12))
#loc43 = loc("loss"(#loc13))
#loc44 = loc("loss"(#loc14))
#loc45 = loc("loss"(#loc15))
#loc46 = loc("step.<locals>.<listcomp>"(#loc16))
#loc47 = loc("step"(#loc17))
#loc48 = loc("step.<locals>.<listcomp>"(#loc18))
#loc49 = loc("step"(#loc19))
#loc50 = loc("step"(#loc20))
#loc51 = loc("step"(#loc21))
#loc52 = loc("step"(#loc22))
#loc53 = loc("step"(#loc23))
#loc55 = loc("step"(#loc25))
#loc56 = loc("step"(#loc26))
#loc57 = loc("jit:"(#loc27))
#loc58 = loc("step.<locals>.<lambda>"(#loc29))
#loc61 = loc(callsite(#loc38 at #loc39))
#loc62 = loc("jit(step)"(#loc39))
#loc63 = loc(callsite(#loc47 at #loc39))
#loc64 = loc(callsite(#loc49 at #loc39))
#loc65 = loc(callsite(#loc50 at #loc39))
#loc66 = loc(callsite(#loc50 at #loc50))
#loc67 = loc(callsite(#loc51 at #loc39))
#loc68 = loc(callsite(#loc52 at #loc39))
#loc69 = loc(callsite(#loc53 at #loc39))
#loc70 = loc(callsite(#loc55 at #loc39))
#loc71 = loc(callsite(#loc56 at #loc39))
#loc72 = loc("while/body/closed_call"(#loc50))
#loc73 = loc("mul"(#loc58))
#loc74 = loc(callsite(#loc37 at #loc61))
#loc75 = loc(callsite(#loc40 at #loc61))
#loc76 = loc(callsite(#loc41 at #loc61))
#loc77 = loc(callsite(#loc42 at #loc61))
#loc78 = loc(callsite(#loc43 at #loc61))
#loc79 = loc(callsite(#loc44 at #loc61))
#loc80 = loc(callsite(#loc45 at #loc61))
#loc81 = loc(callsite(#loc46 at #loc63))
#loc82 = loc(callsite(#loc48 at #loc63))
#loc83 = loc("jit(step)/slice"(#loc64))
#loc84 = loc("jit(step)/squeeze"(#loc64))
#loc85 = loc("jit(step)/scan"(#loc65))
#loc86 = loc(callsite(#loc50 at #loc65))
#loc87 = loc(callsite(#loc66 at #loc65))
#loc88 = loc("jit(step)/slice"(#loc67))
#loc89 = loc("jit(step)/squeeze"(#loc67))
#loc90 = loc("jit(step)/jit(sort)"(#loc68))
#loc91 = loc("jit(step)/lt"(#loc69))
#loc92 = loc("jit(step)/add"(#loc69))
#loc93 = loc("jit(step)/select_n"(#loc69))
#loc94 = loc("jit(step)/broadcast_in_dim"(#loc69))
#loc95 = loc("jit(step)/scatter-add"(#loc69))
#loc96 = loc("jit(step)/lt"(#loc70))
#loc97 = loc("jit(step)/add"(#loc70))
#loc98 = loc("jit(step)/select_n"(#loc70))
#loc99 = loc("jit(step)/broadcast_in_dim"(#loc70))
#loc100 = loc("jit(step)/gather"(#loc70))
#loc101 = loc("jit(step)/jit(cumsum)"(#loc71))
#loc102 = loc("closed_call:"(#loc72))
#loc103 = loc("jit(step)/jit"(#loc68))
#loc104 = loc("jit(step)/jit"(#loc71))
#loc105 = loc("jit(step)/jvp()/dot_general"(#loc74))
#loc106 = loc("jit(step)/jvp()/broadcast_in_dim"(#loc75))
#loc107 = loc("jit(step)/jvp()/add"(#loc75))
#loc108 = loc("jit(step)/jvp()/jit(relu)"(#loc76))
#loc109 = loc("jit(step)/jvp()/gt"(#loc76))
#loc110 = loc("jit(step)/jvp()/dot_general"(#loc77))
#loc111 = loc("jit(step)/jvp()/sub"(#loc78))
#loc112 = loc("jit(step)/jvp()/mul"(#loc79))
#loc113 = loc("jit(step)/transpose(jvp())/div"(#loc80))
#loc114 = loc("jit(step)/transpose(jvp())/broadcast_in_dim"(#loc80))
#loc115 = loc("jit(step)/transpose(jvp())/mul"(#loc79))
#loc116 = loc("jit(step)/transpose(jvp())/dot_general"(#loc77))
#loc117 = loc("jit(step)/transpose(jvp())/transpose"(#loc77))
#loc118 = loc("jit(step)/transpose(jvp())/broadcast_in_dim"(#loc76))
#loc119 = loc("jit(step)/transpose(jvp())/select_n"(#loc76))
#loc120 = loc("jit(step)/transpose(jvp())/reduce_sum"(#loc75))
#loc121 = loc("jit(step)/transpose(jvp())/reshape"(#loc75))
#loc122 = loc("jit(step)/transpose(jvp())/dot_general"(#loc74))
#loc123 = loc("jit(step)/transpose(jvp())/transpose"(#loc74))
#loc124 = loc("jit(step)/mul"(#loc81))
#loc125 = loc("jit(step)/sub"(#loc82))
#loc126 = loc("jit(step)/while"(#loc86))
#loc127 = loc("jit(step)/while/cond/lt"(#loc87))
#loc128 = loc("jit(step)/while/body/closed_call"(#loc87))
#loc129 = loc("jit(step)/while/body/add"(#loc87))
#loc130 = loc("jit:"(#loc103))
#loc131 = loc("jit:"(#loc104))

)mlir";

// One module exercising many ops, as jaxlib prints it (pretty form) ...
constexpr const char kPrettyForms[] = R"mlir(module @m attributes {mhlo.num_partitions = 1 : i32} {
  func.func @main(%arg0: tensor<2x3xf32> {mhlo.sharding = "{replicated}"}, %arg1: tensor<2xi32>, %arg2: !stablehlo.token, %arg3: tensor<2xui64>) -> (tensor<2x3xf32> {jax.result_info = "r"}) {
    %cst = stablehlo.constant dense<[[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
    %0 = stablehlo.add %arg0, %cst : tensor<2x3xf32>
    %1 = stablehlo.compare LT, %arg0, %cst, TOTALORDER : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %2 = stablehlo.select %1, %arg0, %0 : tensor<2x3xi1>, tensor<2x3xf32>
    %3 = stablehlo.dot_general %arg0, %cst, contracting_dims = [1] x [1], precision = [DEFAULT, HIGHEST] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
    %4 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %5 = stablehlo.slice %arg0 [0:2, 1:3:2] : (tensor<2x3xf32>) -> tensor<2x1xf32>
    %6 = stablehlo.iota dim = 1 : tensor<2x3xi32>
    %7 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<2xi32>) -> tensor<2x3xi32>
    %8 = stablehlo.convert %7 : (tensor<2x3xi32>) -> tensor<2x3xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %10:2 = stablehlo.reduce(%arg0 init: %cst_0), (%6 init: %c) across dimensions = [1] : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
     reducer(%arg4: tensor<f32>, %arg6: tensor<f32>) (%arg5: tensor<i32>, %arg7: tensor<i32>)  {
      %38 = stablehlo.compare GT, %arg4, %arg6 : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %39 = stablehlo.select %38, %arg4, %arg6 : tensor<i1>, tensor<f32>
      %40 = stablehlo.select %38, %arg5, %arg7 : tensor<i1>, tensor<i32>
      stablehlo.return %39, %40 : tensor<f32>, tensor<i32>
    }
    %11:2 = stablehlo.while(%iterArg = %c, %iterArg_1 = %arg0) : tensor<i32>, tensor<2x3xf32>
    cond {
      %c_2 = stablehlo.constant dense<3> : tensor<i32>
      %38 = stablehlo.compare LT, %iterArg, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %38 : tensor<i1>
    } do {
      %c_2 = stablehlo.constant dense<1> : tensor<i32>
      %38 = stablehlo.add %iterArg, %c_2 : tensor<i32>
      %39 = stablehlo.multiply %iterArg_1, %cst : tensor<2x3xf32>
      stablehlo.return %38, %39 : tensor<i32>, tensor<2x3xf32>
    }
    %12 = stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<1x2x3x1xf32>
    %13 = stablehlo.reshape %cst : (tensor<2x3xf32>) -> tensor<2x3x1x1xf32>
    %14 = stablehlo.convolution(%12, %13) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 0], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x3x1xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x2x1xf32>
    %15 = stablehlo.custom_call @my_target(%arg0) {api_version = 2 : i32, backend_config = "cfg", has_side_effect = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %16 = stablehlo.tuple %arg0, %arg1 : tuple<tensor<2x3xf32>, tensor<2xi32>>
    %17 = stablehlo.get_tuple_element %16[1] : (tuple<tensor<2x3xf32>, tensor<2xi32>>) -> tensor<2xi32>
    %18 = stablehlo.complex %arg0, %cst : tensor<2x3xcomplex<f32>>
    %19 = stablehlo.fft %18, type = FFT, length = [3] : (tensor<2x3xcomplex<f32>>) -> tensor<2x3xcomplex<f32>>
    %20 = stablehlo.real %19 : (tensor<2x3xcomplex<f32>>) -> tensor<2x3xf32>
    %output_state, %output = stablehlo.rng_bit_generator %arg3, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x3xui32>)
    %21 = stablehlo.reduce_precision %arg0, format = e5m10 : tensor<2x3xf32>
    %22 = stablehlo.pad %arg0, %cst_0, low = [0, 1], high = [1, 0], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x4xf32>
    %23 = stablehlo.concatenate %arg0, %cst, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    %24 = stablehlo.dynamic_slice %arg0, %c, %c, sizes = [1, 2] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
    %25:2 = stablehlo.optimization_barrier %arg0, %arg1 : tensor<2x3xf32>, tensor<2xi32>
    %26 = stablehlo.after_all %arg2, %arg2 : !stablehlo.token
    %27 = stablehlo.partition_id : tensor<ui32>
    %28 = stablehlo.cholesky %3, lower = true : tensor<2x2xf32>
    %29 = stablehlo.exponential %arg0 {result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<2x3xf32>
    %30 = stablehlo.composite "my.comp" %arg0 {composite_attributes = {k = 1 : i32}, decomposition = @dec, version = 1 : i32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %31 = stablehlo.rng %cst_0, %cst_0, %arg1, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi32>) -> tensor<2x3xf32>
    %32 = stablehlo.reverse %arg0, dims = [1] : tensor<2x3xf32>
    %33 = stablehlo.clamp %cst_0, %arg0, %cst_0 : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %34 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<2x3xf32>) -> tensor<i32>
    %35 = call @dec(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %36 = stablehlo.is_finite %arg0 : (tensor<2x3xf32>) -> tensor<2x3xi1>
    %37 = stablehlo.dot_general %12, %12, batching_dims = [0] x [0], contracting_dims = [1, 2] x [1, 2], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false> : (tensor<1x2x3x1xf32>, tensor<1x2x3x1xf32>) -> tensor<1x1x1xf32>
    return %2 : tensor<2x3xf32>
  }
  func.func private @dec(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
    return %arg0 : tensor<2x3xf32>
  }
}
)mlir";

// ... and the same module as jaxlib prints it in the generic form.
constexpr const char kGenericForms[] = R"mlir("builtin.module"() <{sym_name = "m"}> ({
  "func.func"() <{arg_attrs = [{mhlo.sharding = "{replicated}"}, {}, {}, {}], function_type = (tensor<2x3xf32>, tensor<2xi32>, !stablehlo.token, tensor<2xui64>) -> tensor<2x3xf32>, res_attrs = [{jax.result_info = "r"}], sym_name = "main"}> ({
  ^bb0(%arg1: tensor<2x3xf32>, %arg2: tensor<2xi32>, %arg3: !stablehlo.token, %arg4: tensor<2xui64>):
    %0 = "stablehlo.constant"() <{value = dense<[[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
    %1 = "stablehlo.add"(%arg1, %0) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %2 = "stablehlo.compare"(%arg1, %0) <{compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %3 = "stablehlo.select"(%2, %arg1, %1) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %4 = "stablehlo.dot_general"(%arg1, %0) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
    %5 = "stablehlo.transpose"(%arg1) <{permutation = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %6 = "stablehlo.slice"(%arg1) <{limit_indices = array<i64: 2, 3>, start_indices = array<i64: 0, 1>, strides = array<i64: 1, 2>}> : (tensor<2x3xf32>) -> tensor<2x1xf32>
    %7 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<2x3xi32>
    %8 = "stablehlo.broadcast_in_dim"(%arg2) <{broadcast_dimensions = array<i64: 0>}> : (tensor<2xi32>) -> tensor<2x3xi32>
    %9 = "stablehlo.convert"(%8) : (tensor<2x3xi32>) -> tensor<2x3xf32>
    %10 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %11 = "stablehlo.reduce"(%arg1, %10) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg13: tensor<f32>, %arg14: tensor<f32>):
      %50 = "stablehlo.add"(%arg13, %arg14) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%50) : (tensor<f32>) -> ()
    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %12 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %13:2 = "stablehlo.reduce"(%arg1, %7, %10, %12) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg9: tensor<f32>, %arg10: tensor<i32>, %arg11: tensor<f32>, %arg12: tensor<i32>):
      %47 = "stablehlo.compare"(%arg9, %arg11) <{comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %48 = "stablehlo.select"(%47, %arg9, %arg11) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %49 = "stablehlo.select"(%47, %arg10, %arg12) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%48, %49) : (tensor<f32>, tensor<i32>) -> ()
    }) : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
    %14:2 = "stablehlo.while"(%12, %arg1) ({
    ^bb0(%arg7: tensor<i32>, %arg8: tensor<2x3xf32>):
      %45 = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
      %46 = "stablehlo.compare"(%arg7, %45) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%46) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg5: tensor<i32>, %arg6: tensor<2x3xf32>):
      %42 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %43 = "stablehlo.add"(%arg5, %42) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %44 = "stablehlo.multiply"(%arg6, %0) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
      "stablehlo.return"(%43, %44) : (tensor<i32>, tensor<2x3xf32>) -> ()
    }) : (tensor<i32>, tensor<2x3xf32>) -> (tensor<i32>, tensor<2x3xf32>)
    %15 = "stablehlo.reshape"(%arg1) : (tensor<2x3xf32>) -> tensor<1x2x3x1xf32>
    %16 = "stablehlo.reshape"(%0) : (tensor<2x3xf32>) -> tensor<2x3x1x1xf32>
    %17 = "stablehlo.convolution"(%15, %16) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, padding = dense<[[1, 0], [0, 1]]> : tensor<2x2xi64>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, window_strides = array<i64: 1, 1>}> : (tensor<1x2x3x1xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x2x1xf32>
    %18 = "stablehlo.custom_call"(%arg1) <{api_version = 2 : i32, backend_config = "cfg", call_target_name = "my_target", has_side_effect = true}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %19 = "stablehlo.tuple"(%arg1, %arg2) : (tensor<2x3xf32>, tensor<2xi32>) -> tuple<tensor<2x3xf32>, tensor<2xi32>>
    %20 = "stablehlo.get_tuple_element"(%19) <{index = 1 : i32}> : (tuple<tensor<2x3xf32>, tensor<2xi32>>) -> tensor<2xi32>
    %21 = "stablehlo.complex"(%arg1, %0) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xcomplex<f32>>
    %22 = "stablehlo.fft"(%21) <{fft_length = array<i64: 3>, fft_type = #stablehlo<fft_type FFT>}> : (tensor<2x3xcomplex<f32>>) -> tensor<2x3xcomplex<f32>>
    %23 = "stablehlo.real"(%22) : (tensor<2x3xcomplex<f32>>) -> tensor<2x3xf32>
    %24:2 = "stablehlo.rng_bit_generator"(%arg4) <{rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>}> : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x3xui32>)
    %25 = "stablehlo.reduce_precision"(%arg1) <{exponent_bits = 5 : i32, mantissa_bits = 10 : i32}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %26 = "stablehlo.pad"(%arg1, %10) <{edge_padding_high = array<i64: 1, 0>, edge_padding_low = array<i64: 0, 1>, interior_padding = array<i64: 0, 0>}> : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x4xf32>
    %27 = "stablehlo.concatenate"(%arg1, %0) <{dimension = 0 : i64}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    %28 = "stablehlo.dynamic_slice"(%arg1, %12, %12) <{slice_sizes = array<i64: 1, 2>}> : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
    %29:2 = "stablehlo.optimization_barrier"(%arg1, %arg2) : (tensor<2x3xf32>, tensor<2xi32>) -> (tensor<2x3xf32>, tensor<2xi32>)
    %30 = "stablehlo.after_all"(%arg3, %arg3) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
    %31 = "stablehlo.partition_id"() : () -> tensor<ui32>
    %32 = "stablehlo.cholesky"(%4) <{lower = true}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %33 = "stablehlo.exponential"(%arg1) <{result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %34 = "stablehlo.composite"(%arg1) <{composite_attributes = {k = 1 : i32}, decomposition = @dec, name = "my.comp", version = 1 : i32}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %35 = "stablehlo.rng"(%10, %10, %arg2) <{rng_distribution = #stablehlo<rng_distribution NORMAL>}> : (tensor<f32>, tensor<f32>, tensor<2xi32>) -> tensor<2x3xf32>
    %36 = "stablehlo.reverse"(%arg1) <{dimensions = array<i64: 1>}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %37 = "stablehlo.clamp"(%10, %arg1, %10) : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %38 = "stablehlo.get_dimension_size"(%arg1) <{dimension = 1 : i64}> : (tensor<2x3xf32>) -> tensor<i32>
    %39 = "func.call"(%arg1) <{callee = @dec}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %40 = "stablehlo.is_finite"(%arg1) : (tensor<2x3xf32>) -> tensor<2x3xi1>
    %41 = "stablehlo.dot_general"(%15, %15) <{algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false>, dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1, 2], rhs_contracting_dimensions = [1, 2]>}> : (tensor<1x2x3x1xf32>, tensor<1x2x3x1xf32>) -> tensor<1x1x1xf32>
    "func.return"(%3) : (tensor<2x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<2x3xf32>) -> tensor<2x3xf32>, sym_name = "dec", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<2x3xf32>):
    "func.return"(%arg0) : (tensor<2x3xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32} : () -> ()
)mlir";

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

std::unique_ptr<Module> parseOk(std::string_view text, const ParseOptions& options = {}) {
  auto m = parseModule(text, "test.mlir", options);
  EXPECT_TRUE(m.isOk()) << (m.isOk() ? "" : m.status().message());
  return m.isOk() ? std::move(*m) : nullptr;
}

// The diagnostic of a parse that must fail.
Diagnostic parseError(std::string_view text, const ParseOptions& options = {}) {
  auto m = parseModule(text, "bad.mlir", options);
  EXPECT_FALSE(m.isOk()) << "parse unexpectedly succeeded:\n" << text;
  return m.isOk() ? Diagnostic{} : m.status().diag();
}

Attribute attr(std::string_view text) {
  auto a = parseAttribute(text);
  EXPECT_TRUE(a.isOk()) << text << ": " << (a.isOk() ? "" : a.status().message());
  return a.isOk() ? *a : Attribute();
}

Type type(std::string_view text) {
  auto t = parseType(text);
  EXPECT_TRUE(t.isOk()) << text << ": " << (t.isOk() ? "" : t.status().message());
  return t.isOk() ? *t : Type();
}

std::string attrError(std::string_view text) {
  auto a = parseAttribute(text);
  EXPECT_FALSE(a.isOk()) << "parsed: " << text;
  return a.isOk() ? "" : a.status().diag().message;
}

std::vector<uint8_t> bytes(std::initializer_list<int> v) { return std::vector<uint8_t>(v.begin(), v.end()); }

std::vector<uint8_t> denseBytes(const Attribute& a) {
  return std::vector<uint8_t>(a.denseData().begin(), a.denseData().end());
}

// The ops of the first function's body.
std::vector<Operation*> bodyOps(const Module& m) { return func::body(*m.functions().at(0)).ops(); }

// Structural equality of two ops: names, attributes, result types, operands
// (up to the correspondence of values built while walking) and regions.
// Returns "" or the first difference.
std::string irDifference(const Operation& a, const Operation& b,
                         std::vector<std::pair<const Value*, const Value*>>& valueMap) {
  auto corresponds = [&](const Value* x, const Value* y) {
    for (auto& [p, q] : valueMap)
      if (p == x) return q == y;
    return false;
  };
  if (a.name() != b.name()) return "op " + a.name() + " vs " + b.name();
  if (!(a.attrs() == b.attrs())) {
    std::string names;
    for (const auto& [k, v] : a.attrs().entries())
      if (b.attr(k) != v) names += " " + k;
    for (const auto& [k, v] : b.attrs().entries())
      if (!a.attr(k)) names += " " + k;
    return "attributes of " + a.name() + " differ:" + names;
  }
  if (a.resultTypes() != b.resultTypes()) return "result types of " + a.name();
  if (a.numOperands() != b.numOperands()) return "operand count of " + a.name();
  for (unsigned i = 0; i < a.numOperands(); ++i)
    if (!corresponds(a.operand(i), b.operand(i))) return "operand #" + std::to_string(i) + " of " + a.name();
  for (unsigned i = 0; i < a.numResults(); ++i) valueMap.emplace_back(a.result(i), b.result(i));
  if (a.numRegions() != b.numRegions()) return "region count of " + a.name();
  for (unsigned r = 0; r < a.numRegions(); ++r) {
    if (a.region(r).numBlocks() != b.region(r).numBlocks()) return "block count in " + a.name();
    for (size_t bi = 0; bi < a.region(r).numBlocks(); ++bi) {
      const Block& ba = a.region(r).block(bi);
      const Block& bb = b.region(r).block(bi);
      if (ba.argumentTypes() != bb.argumentTypes()) return "block argument types in " + a.name();
      for (unsigned i = 0; i < ba.numArguments(); ++i) valueMap.emplace_back(ba.argument(i), bb.argument(i));
      if (ba.size() != bb.size()) return "number of ops in a block of " + a.name();
      for (auto ia = ba.begin(), ib = bb.begin(); ia != ba.end(); ++ia, ++ib) {
        std::string d = irDifference(*ia, *ib, valueMap);
        if (!d.empty()) return d;
      }
    }
  }
  return "";
}

std::string irDifference(const Module& a, const Module& b) {
  std::vector<std::pair<const Value*, const Value*>> valueMap;
  return irDifference(a.op(), b.op(), valueMap);
}

// ---------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------

TEST(ParseType, ElementTypes) {
  EXPECT_EQ(type("i1"), Type::i1());
  EXPECT_EQ(type("i8"), Type::element(TypeKind::SI8));  // signless = signed
  EXPECT_EQ(type("si32"), Type::si32());
  EXPECT_EQ(type("i2"), Type::element(TypeKind::SI2));
  EXPECT_EQ(type("ui4"), Type::element(TypeKind::UI4));
  EXPECT_EQ(type("ui64"), Type::element(TypeKind::UI64));
  EXPECT_EQ(type("f16"), Type::element(TypeKind::F16));
  EXPECT_EQ(type("bf16"), Type::element(TypeKind::BF16));
  EXPECT_EQ(type("f64"), Type::f64());
  EXPECT_EQ(type("f8E4M3FN"), Type::element(TypeKind::F8E4M3FN));
  EXPECT_EQ(type("f8E4M3B11FNUZ"), Type::element(TypeKind::F8E4M3B11FNUZ));
  EXPECT_EQ(type("f8E8M0FNU"), Type::element(TypeKind::F8E8M0FNU));
  EXPECT_EQ(type("f6E3M2FN"), Type::element(TypeKind::F6E3M2FN));
  EXPECT_EQ(type("f4E2M1FN"), Type::element(TypeKind::F4E2M1FN));
  EXPECT_EQ(type("complex<f32>"), Type::element(TypeKind::Complex64));
  EXPECT_EQ(type("complex<f64>"), Type::element(TypeKind::Complex128));
  EXPECT_EQ(type("index"), Type::index());
}

TEST(ParseType, Tensors) {
  EXPECT_EQ(type("tensor<2x3xf32>"), Type::tensor({2, 3}, Type::f32()));
  EXPECT_EQ(type("tensor<f32>"), Type::tensor({}, Type::f32()));
  // `0x4` must not be read as a hex number.
  EXPECT_EQ(type("tensor<0x4xi8>"), Type::tensor({0, 4}, Type::element(TypeKind::SI8)));
  EXPECT_EQ(type("tensor<2xcomplex<f64>>"), Type::tensor({2}, Type::element(TypeKind::Complex128)));
  Type bounded = type("tensor<?x4xf32, #stablehlo.bounds<8, ?>>");
  ASSERT_TRUE(bounded.isTensor());
  EXPECT_EQ(bounded.shape()[0], Type::kDynamic);
  EXPECT_EQ(bounded.shape()[1], 4);
  ASSERT_EQ(bounded.bounds().size(), 2u);
  EXPECT_EQ(bounded.bounds()[0], 8);
  EXPECT_EQ(bounded.bounds()[1], Type::kDynamic);
}

TEST(ParseType, TokenTupleFunction) {
  EXPECT_EQ(type("!stablehlo.token"), Type::token());
  EXPECT_EQ(type("tuple<>"), Type::tuple({}));
  Type t = type("tuple<tensor<f32>, !stablehlo.token>");
  ASSERT_TRUE(t.isTuple());
  EXPECT_EQ(t.tupleTypes()[1], Type::token());
  Type fn = type("(tensor<f32>, i32) -> tensor<2xf32>");
  ASSERT_TRUE(fn.isFunction());
  EXPECT_EQ(fn.inputs().size(), 2u);
  EXPECT_EQ(fn.results()[0], Type::tensor({2}, Type::f32()));
  Type multi = type("() -> (f32, f64)");
  EXPECT_EQ(multi.inputs().size(), 0u);
  EXPECT_EQ(multi.results().size(), 2u);
}

TEST(ParseType, Quantized) {
  Type q = type("!quant.uniform<i8:f32, 0.5:3>");
  ASSERT_TRUE(q.isQuantized());
  EXPECT_EQ(q.quant().storageType, Type::element(TypeKind::SI8));
  EXPECT_EQ(q.quant().expressedType, Type::f32());
  EXPECT_EQ(q.quant().storageMin, -128);
  EXPECT_EQ(q.quant().storageMax, 127);
  EXPECT_EQ(q.quant().scales, std::vector<double>{0.5});
  EXPECT_EQ(q.quant().zeroPoints, std::vector<int64_t>{3});
  EXPECT_FALSE(q.quant().quantizedDimension.has_value());

  Type perAxis = type("tensor<3x2x!quant.uniform<i8<-127:127>:f32:1, {0.1:2, 2.0e-1:-3}>>");
  ASSERT_TRUE(perAxis.isTensor());
  const QuantParams& p = perAxis.elementType().quant();
  EXPECT_EQ(p.storageMin, -127);
  EXPECT_EQ(p.storageMax, 127);
  EXPECT_EQ(p.quantizedDimension, 1);
  EXPECT_EQ(p.scales, (std::vector<double>{0.1, 0.2}));
  EXPECT_EQ(p.zeroPoints, (std::vector<int64_t>{2, -3}));
}

TEST(ParseType, OtherDialectTypesAreOpaque) {
  Type t = type("!foo.bar<1, <2>, \"x>\">");
  ASSERT_EQ(t.kind(), TypeKind::Opaque);
  EXPECT_EQ(t.opaqueText(), "!foo.bar<1, <2>, \"x>\">");
}

// A per-axis quantized tensor type has its axis within the rank and one scale
// per element along it (the spec's (C12), (C13) of quantized tensor types).
TEST(ParseType, PerAxisQuantizedTensorsMatchTheirAxis) {
  EXPECT_NE(parseType("tensor<2x!quant.uniform<i8:f32:1, {0.1:2, 0.2:3}>>").status().diag().message.find(
                "has quantization dimension 1 but rank 1"),
            std::string::npos);
  EXPECT_NE(parseType("tensor<3x!quant.uniform<i8:f32:0, {0.1:2, 0.2:3}>>").status().diag().message.find(
                "has 2 scales for quantization dimension 0 of size 3"),
            std::string::npos);
  EXPECT_TRUE(parseType("tensor<?x!quant.uniform<i8:f32:0, {0.1:2, 0.2:3}>>").isOk());  // known once refined
}

TEST(ParseType, Errors) {
  EXPECT_NE(parseType("tensor<2xf32").status().diag().message.find("expected '>'"), std::string::npos);
  EXPECT_NE(parseType("tensor<*xf32>").status().diag().message.find("unranked"), std::string::npos);
  EXPECT_NE(parseType("complex<i32>").status().diag().message.find("f32 or f64"), std::string::npos);
  EXPECT_NE(parseType("f31").status().diag().message.find("unknown type 'f31'"), std::string::npos);
  EXPECT_FALSE(parseType("tensor<2xf32> junk").isOk());
}

// ---------------------------------------------------------------------------
// Attributes
// ---------------------------------------------------------------------------

TEST(ParseAttribute, Scalars) {
  EXPECT_EQ(attr("3 : i32"), Attribute::integer(3, Type::si32()));
  EXPECT_EQ(attr("-7"), Attribute::integer(-7, Type::si64()));
  EXPECT_EQ(attr("255 : ui8"), Attribute::integer(255, Type::element(TypeKind::UI8)));
  EXPECT_EQ(attr("1.5 : f32"), Attribute::floating(1.5, Type::f32()));
  EXPECT_EQ(attr("-2.5e-1"), Attribute::floating(-0.25, Type::f64()));
  Attribute nan = attr("0x7FC00000 : f32");
  EXPECT_TRUE(std::isnan(nan.floatValue()));
  EXPECT_EQ(attr("0xFF800000 : f32").floatValue(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(attr("true"), Attribute::boolean(true));
  EXPECT_EQ(attr("false"), Attribute::boolean(false));
  EXPECT_EQ(attr("unit"), Attribute::unit());
  EXPECT_EQ(attr(R"("a\"b\n\41\\")"), Attribute::string("a\"b\nA\\"));
  EXPECT_EQ(attr("@main"), Attribute::symbolRef({"main"}));
  EXPECT_EQ(attr("@a::@b"), Attribute::symbolRef({"a", "b"}));
  EXPECT_EQ(attr(R"(@"a.b-c")"), Attribute::symbolRef({"a.b-c"}));
  EXPECT_EQ(attr("tensor<2xf32>"), Attribute::type(Type::tensor({2}, Type::f32())));
}

TEST(ParseAttribute, ArraysAndDictionaries) {
  EXPECT_EQ(attr("[]"), Attribute::array({}));
  EXPECT_EQ(attr("[1, \"x\", [true]]"),
            Attribute::array({Attribute::integer(1), Attribute::string("x"), Attribute::array({Attribute::boolean(true)})}));
  // Dictionaries are sorted by name, as in MLIR.
  EXPECT_EQ(attr("{b = 1 : i32, a, \"c.d\" = \"x\"}"),
            Attribute::dictionary({{"a", Attribute::unit()},
                                   {"b", Attribute::integer(1, Type::si32())},
                                   {"c.d", Attribute::string("x")}}));
}

TEST(ParseAttribute, DenseArrays) {
  EXPECT_EQ(attr("array<i64: 1, -2>"), Attribute::denseI64Array({1, -2}));
  EXPECT_EQ(attr("array<i64>"), Attribute::denseI64Array({}));
  EXPECT_EQ(attr("array<i1: true, false>"), Attribute::denseBoolArray({true, false}));
  Attribute f = attr("array<f32: 1.5, -2.0>");
  EXPECT_EQ(f.denseArrayElementType(), Type::f32());
  EXPECT_EQ(std::vector<double>(f.denseArrayFloats().begin(), f.denseArrayFloats().end()),
            (std::vector<double>{1.5, -2.0}));
}

TEST(ParseAttribute, DenseSplatAndLists) {
  Attribute splat = attr("dense<1.0> : tensor<2x2xf32>");
  EXPECT_TRUE(splat.denseIsSplat());
  EXPECT_EQ(denseBytes(splat), bytes({0x00, 0x00, 0x80, 0x3F}));
  EXPECT_EQ(splat.valueType(), Type::tensor({2, 2}, Type::f32()));

  Attribute ints = attr("dense<[[1, -2], [3, 256]]> : tensor<2x2xi16>");
  EXPECT_FALSE(ints.denseIsSplat());
  EXPECT_EQ(denseBytes(ints), bytes({0x01, 0x00, 0xFE, 0xFF, 0x03, 0x00, 0x00, 0x01}));

  EXPECT_EQ(denseBytes(attr("dense<[true, false, true]> : tensor<3xi1>")), bytes({1, 0, 1}));
  EXPECT_EQ(denseBytes(attr("dense<[1, 0]> : tensor<2xi1>")), bytes({1, 0}));
  // Sub-byte integers take one byte each, sign-extended.
  EXPECT_EQ(denseBytes(attr("dense<[1, -2]> : tensor<2xi4>")), bytes({0x01, 0xFE}));
  EXPECT_EQ(denseBytes(attr("dense<[255, 0]> : tensor<2xui8>")), bytes({0xFF, 0x00}));
  EXPECT_EQ(denseBytes(attr("dense<-1> : tensor<i64>")), bytes({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}));
  EXPECT_EQ(denseBytes(attr("dense<[0, 1]> : tensor<2xindex>")),
            bytes({0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(ParseAttribute, DenseFloatsOfEveryWidth) {
  // bf16 1.0 = 0x3F80, f16 1.0 = 0x3C00, f64 -2.0 = 0xC000000000000000.
  EXPECT_EQ(denseBytes(attr("dense<1.0> : tensor<bf16>")), bytes({0x80, 0x3F}));
  EXPECT_EQ(denseBytes(attr("dense<1.0> : tensor<f16>")), bytes({0x00, 0x3C}));
  EXPECT_EQ(denseBytes(attr("dense<-2.0> : tensor<f64>")), bytes({0, 0, 0, 0, 0, 0, 0x00, 0xC0}));
  // f8E4M3FN 1.5: sign 0, exponent 7 (bias 7), mantissa 0b100 = 0x3C.
  EXPECT_EQ(denseBytes(attr("dense<1.5> : tensor<f8E4M3FN>")), bytes({0x3C}));
  // f4E2M1FN 3.0: exponent 2 (bias 1), mantissa 1 = 0b0101.
  EXPECT_EQ(denseBytes(attr("dense<3.0> : tensor<f4E2M1FN>")), bytes({0x05}));
}

TEST(ParseAttribute, DenseSpecialFloats) {
  // Hex integers are bit patterns: NaN, -Inf.
  EXPECT_EQ(denseBytes(attr("dense<[0x7FC00000, 0xFF800000]> : tensor<2xf32>")),
            bytes({0x00, 0x00, 0xC0, 0x7F, 0x00, 0x00, 0x80, 0xFF}));
  EXPECT_EQ(denseBytes(attr("dense<0x7FC0> : tensor<bf16>")), bytes({0xC0, 0x7F}));
  EXPECT_EQ(denseBytes(attr("dense<[inf, -inf]> : tensor<2xf32>")),
            bytes({0x00, 0x00, 0x80, 0x7F, 0x00, 0x00, 0x80, 0xFF}));
  std::vector<uint8_t> nan = denseBytes(attr("dense<nan> : tensor<f32>"));
  ASSERT_EQ(nan.size(), 4u);
  EXPECT_EQ(nan[3] & 0x7F, 0x7F);  // exponent all ones
  EXPECT_NE(nan[2] & 0x7F, 0);     // non-zero mantissa
  EXPECT_EQ(denseBytes(attr("dense<-0.0> : tensor<f32>")), bytes({0, 0, 0, 0x80}));
}

TEST(ParseAttribute, DenseComplex) {
  // (1.0, 2.0) as complex<f32>: real then imaginary, little-endian.
  EXPECT_EQ(denseBytes(attr("dense<[(1.0, 2.0)]> : tensor<1xcomplex<f32>>")),
            bytes({0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0x40}));
  Attribute splat = attr("dense<(1.0,-1.0)> : tensor<3xcomplex<f32>>");
  EXPECT_TRUE(splat.denseIsSplat());
  EXPECT_EQ(denseBytes(splat), bytes({0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x80, 0xBF}));
}

TEST(ParseAttribute, DenseHexAndEmpty) {
  EXPECT_EQ(denseBytes(attr("dense<\"0x0000803F00000040\"> : tensor<2xf32>")),
            bytes({0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0x40}));
  Attribute hexSplat = attr("dense<\"0x0000803F\"> : tensor<3xf32>");
  EXPECT_TRUE(hexSplat.denseIsSplat());
  EXPECT_EQ(denseBytes(attr("dense<\"0x0100\"> : tensor<2xi1>")), bytes({1, 0}));
  EXPECT_TRUE(attr("dense<> : tensor<0xf32>").denseData().empty());
  EXPECT_TRUE(attr("dense<[]> : tensor<0xi32>").denseData().empty());
  EXPECT_TRUE(attr("dense<[[]]> : tensor<1x0xf32>").denseData().empty());
}

TEST(ParseAttribute, DenseErrors) {
  EXPECT_NE(attrError("dense<[1, 2]> : tensor<3xi32>").find("shape [2]"), std::string::npos);
  EXPECT_NE(attrError("dense<[1, 2> : tensor<2xi32>").find("expected ',' or ']' in dense literal"), std::string::npos);
  EXPECT_NE(attrError("dense<[[1], 2]> : tensor<2x1xi32>").find("mismatched shapes"), std::string::npos);
  EXPECT_NE(attrError("dense<300> : tensor<i8>").find("out of range"), std::string::npos);
  EXPECT_NE(attrError("dense<-1> : tensor<ui8>").find("negative"), std::string::npos);
  EXPECT_NE(attrError("dense<1.0> : tensor<complex<f32>>").find("complex"), std::string::npos);
  EXPECT_NE(attrError("dense<\"0x0102\"> : tensor<3xi8>").find("2 bytes"), std::string::npos);
  EXPECT_NE(attrError("dense<1> : tensor<?xi8>").find("static shape"), std::string::npos);
  EXPECT_NE(attrError("dense<0x1FFFF> : tensor<f16>").find("does not fit"), std::string::npos);
}

TEST(ParseAttribute, StablehloEnumsAndStructs) {
  EXPECT_EQ(attr("#stablehlo<comparison_direction LT>"), Attribute::enumAttr("comparison_direction", "LT"));
  EXPECT_EQ(attr("#stablehlo<precision HIGHEST>"), Attribute::enumAttr("precision", "HIGHEST"));

  Attribute dot = attr("#stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>");
  ASSERT_TRUE(dot.is(AttrKind::Struct));
  EXPECT_EQ(dot.attrName(), "dot");
  // Absent fields get their defaults, in canonical order.
  ASSERT_EQ(dot.entries().size(), 4u);
  EXPECT_EQ(dot.entries()[0].first, "lhs_batching_dimensions");
  EXPECT_EQ(dot.get("lhs_batching_dimensions"), Attribute::array({}));
  EXPECT_EQ(dot.get("rhs_contracting_dimensions"), Attribute::array({Attribute::integer(0)}));

  Attribute gather = attr(
      "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>");
  EXPECT_EQ(gather.get("index_vector_dim"), Attribute::integer(1));
  EXPECT_EQ(gather.get("operand_batching_dims"), Attribute::array({}));
  Attribute scatter = attr("#stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [0], "
                           "scatter_dims_to_operand_dims = [0]>");
  EXPECT_EQ(scatter.get("index_vector_dim"), Attribute::integer(0));

  Attribute channel = attr("#stablehlo.channel_handle<handle = 1, type = 2>");
  EXPECT_EQ(channel.get("type"), Attribute::integer(2));
  Attribute accuracy = attr(
      "#stablehlo.result_accuracy<atol = 1.000000e-05, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>");
  EXPECT_EQ(accuracy.get("atol"), Attribute::floating(1e-5, Type::f64()));
  EXPECT_EQ(accuracy.get("rtol"), Attribute::floating(0.0, Type::f64()));
  EXPECT_EQ(accuracy.get("mode"), Attribute::enumAttr("result_accuracy_mode", "TOLERANCE"));
  Attribute alias = attr("#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, "
                         "operand_tuple_indices = [1]>");
  EXPECT_EQ(alias.get("operand_tuple_indices"), Attribute::array({Attribute::integer(1)}));
  Attribute ext = attr("#stablehlo.type_extensions<bounds = [8, ?]>");
  EXPECT_EQ(ext.get("bounds"), Attribute::array({Attribute::integer(8), Attribute::integer(Type::kDynamic)}));

  EXPECT_NE(attrError("#stablehlo.dot<lhs_foo = [1]>").find("unknown field 'lhs_foo'"), std::string::npos);
  EXPECT_EQ(attrError("#stablehlo.nonsense<a = 1>"), "unknown attribute '#stablehlo.nonsense'");
  EXPECT_EQ(attrError("dense_resource<blob> : tensor<2xf32>"), "dense_resource attributes are not supported");
}

TEST(ParseAttribute, ConvolutionBothSpellings) {
  Attribute compact = attr("#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 1, 0, f]>");
  Attribute raw = attr(
      "#stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], "
      "kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], "
      "output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [2, 1]>");
  EXPECT_EQ(compact, raw);
  EXPECT_EQ(compact.attrName(), "conv");
  EXPECT_NE(attrError("#stablehlo.conv<[b, 0, 0, f]x[0, 1, i, o]->[b, 0, 1, f]>").find("each once"),
            std::string::npos);
}

TEST(ParseAttribute, OtherDialectsAreOpaque) {
  EXPECT_EQ(attr("#sdy.sharding<@mesh, [{\"a\"}, {}]>"), Attribute::opaque("#sdy.sharding<@mesh, [{\"a\"}, {}]>"));
  EXPECT_EQ(attr("#mhlo.foo<x -> y>"), Attribute::opaque("#mhlo.foo<x -> y>"));
  EXPECT_NE(attrError("#undefined_alias").find("undefined attribute alias"), std::string::npos);
}

// ---------------------------------------------------------------------------
// Operations, modules, functions
// ---------------------------------------------------------------------------

TEST(ParseModule, RealJaxProgram) {
  auto m = parseOk(kJaxProgram);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name(), "jit_step");
  EXPECT_EQ(m->op().attr("mhlo.num_partitions"), Attribute::integer(1, Type::si32()));
  EXPECT_EQ(m->functions().size(), 6u);
  Operation* main = m->lookupFunction("main");
  ASSERT_TRUE(main);
  EXPECT_TRUE(func::isPublic(*main));
  EXPECT_EQ(func::type(*main).inputs().size(), 6u);
  EXPECT_EQ(func::type(*main).results().size(), 7u);
  Attribute resAttrs = main->attr("res_attrs");
  ASSERT_TRUE(resAttrs.is(AttrKind::Array));
  EXPECT_EQ(resAttrs.arrayValue()[3].get("jax.result_info"), Attribute::string("result[1]"));
  EXPECT_EQ(m->lookupFunction("relu")->attr("sym_visibility"), Attribute::string("private"));

  // Locations: the op's position in the file, and its loc(...) with every
  // alias (here defined after the module) resolved.
  Operation* dot = bodyOps(*m).at(0);
  EXPECT_EQ(dot->name(), "stablehlo.dot_general");
  EXPECT_EQ(dot->loc().line, 16u);
  EXPECT_EQ(dot->loc().col, 10u);
  EXPECT_EQ(dot->debugLoc(),
            "loc(\"jit(step)/jvp()/dot_general\"(callsite(\"loss\"(\"/tmp/pp/j3.py\":4:20 to :26) at "
            "callsite(\"step\"(\"/tmp/pp/j3.py\":8:8 to :36) at \"<module>\"(\"/tmp/pp/j3.py\":15:6 to :32)))))");
  EXPECT_EQ(m->lookupFunction("relu") ? func::body(*m->lookupFunction("relu")).front()->debugLoc() : "",
            "loc(unknown)");

  size_t ops = 0, unregistered = 0;
  m->op().walk([&](Operation& op) {
    ++ops;
    if (!op.isRegistered()) ++unregistered;
  });
  EXPECT_EQ(ops, 127u);  // as counted by walking jaxlib's parse of the same text
  EXPECT_EQ(unregistered, 0u);
}

TEST(ParseModule, GenericAndPrettyFormsGiveEqualIR) {
  auto pretty = parseOk(kPrettyForms);
  auto generic = parseOk(kGenericForms);
  ASSERT_TRUE(pretty && generic);
  EXPECT_EQ(irDifference(*pretty, *generic), "");
  // Spot-check what the pretty forms turned into.
  std::vector<Operation*> ops = bodyOps(*pretty);
  auto find = [&](std::string_view name) {
    for (Operation* op : ops)
      if (op->name() == name) return op;
    return static_cast<Operation*>(nullptr);
  };
  Operation* compare = find("stablehlo.compare");
  EXPECT_EQ(compare->attr("comparison_direction"), Attribute::enumAttr("comparison_direction", "LT"));
  EXPECT_EQ(compare->attr("compare_type"), Attribute::enumAttr("comparison_type", "TOTALORDER"));
  Operation* slice = find("stablehlo.slice");
  EXPECT_EQ(slice->attr("strides"), Attribute::denseI64Array({1, 2}));
  Operation* conv = find("stablehlo.convolution");
  EXPECT_EQ(conv->attr("window_reversal"), Attribute::denseBoolArray({false, false}));
  EXPECT_EQ(conv->attr("padding"), attr("dense<[[1, 0], [0, 1]]> : tensor<2x2xi64>"));
  Operation* whileOp = find("stablehlo.while");
  EXPECT_EQ(whileOp->numRegions(), 2u);
  EXPECT_EQ(whileOp->region(1).front().numArguments(), 2u);
  Operation* customCall = find("stablehlo.custom_call");
  EXPECT_EQ(customCall->attr("call_target_name"), Attribute::string("my_target"));
  Operation* reducePrecision = find("stablehlo.reduce_precision");
  EXPECT_EQ(reducePrecision->attr("mantissa_bits"), Attribute::integer(10, Type::si32()));
}

TEST(ParseModule, ReduceAppliesFormBuildsTheBody) {
  auto m = parseOk(R"(
func.func @f(%x: tensor<4x3xf32>, %c: tensor<f32>) -> tensor<4xf32> {
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.maximum across dimensions = [1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
})");
  ASSERT_TRUE(m);
  Operation* reduce = bodyOps(*m).at(0);
  Block& body = reduce->region(0).front();
  ASSERT_EQ(body.numArguments(), 2u);
  EXPECT_EQ(body.argument(0)->type(), Type::tensor({}, Type::f32()));
  std::vector<Operation*> inner = body.ops();
  ASSERT_EQ(inner.size(), 2u);
  EXPECT_EQ(inner[0]->name(), "stablehlo.maximum");
  EXPECT_EQ(inner[0]->operand(0), body.argument(0));
  EXPECT_EQ(inner[0]->operand(1), body.argument(1));
  EXPECT_EQ(inner[0]->result()->type(), Type::tensor({}, Type::f32()));
  EXPECT_EQ(inner[1]->name(), "stablehlo.return");
  EXPECT_EQ(inner[1]->operand(0), inner[0]->result());
}

TEST(ParseModule, CheckOps) {
  auto m = parseOk(R"(
func.func @main() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_eq %0, %0 : tensor<2xf32>
  check.expect_eq_const %0, dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq %0, %0, tolerance = 1.0e-3 : f64 : tensor<2xf32>
  check.expect_almost_eq_const %0, dense<[1.0, 2.0]> : tensor<2xf32>, tolerance = 0.0001
  check.expect_close %0, %0, max_ulp_difference = 3, min_ulp_difference = 1 : tensor<2xf32>, tensor<2xf32>
  check.expect_serialized_eq %0, probe_id = "probe0", iter = 2 : tensor<2xf32>
  func.return
})");
  ASSERT_TRUE(m);
  std::vector<Operation*> ops = bodyOps(*m);
  ASSERT_EQ(ops.size(), 8u);
  EXPECT_EQ(ops[1]->numOperands(), 2u);
  EXPECT_EQ(ops[2]->attr("value"), attr("dense<[1.0, 2.0]> : tensor<2xf32>"));
  EXPECT_EQ(ops[3]->attr("tolerance"), Attribute::floating(1e-3, Type::f64()));
  EXPECT_EQ(ops[4]->attr("tolerance"), Attribute::floating(1e-4, Type::f64()));
  EXPECT_EQ(ops[5]->attr("max_ulp_difference"), Attribute::integer(3, Type::element(TypeKind::UI64)));
  EXPECT_EQ(ops[6]->attr("probe_id"), Attribute::string("probe0"));
  EXPECT_EQ(ops[6]->attr("iteration"), Attribute::integer(2, Type::element(TypeKind::UI32)));
}

TEST(ParseModule, FunctionsAndModules) {
  auto m = parseOk(R"(
#alias = #stablehlo<precision HIGH>
!tok = !stablehlo.token
module @named attributes {mhlo.frontend_attributes = {a = "b"}} {
  func.func private @decl(tensor<f32> {mhlo.layout_mode = "default"}) -> (tensor<f32>, i32)
  func.func @f(%arg0: tensor<f32> {mhlo.sharding = "{replicated}"}, %t: !tok) -> (tensor<f32> {jax.result_info = "out"}) attributes {x = #alias} {
    return %arg0 : tensor<f32>
  }
})");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name(), "named");
  EXPECT_TRUE(m->op().attr("mhlo.frontend_attributes").is(AttrKind::Dictionary));
  Operation* decl = m->lookupFunction("decl");
  EXPECT_TRUE(decl->region(0).empty());
  EXPECT_EQ(decl->attr("arg_attrs").arrayValue()[0].get("mhlo.layout_mode"), Attribute::string("default"));
  EXPECT_EQ(func::type(*decl).results().size(), 2u);
  Operation* f = m->lookupFunction("f");
  EXPECT_EQ(f->attr("x"), Attribute::enumAttr("precision", "HIGH"));
  EXPECT_EQ(func::type(*f).inputs()[1], Type::token());
  EXPECT_EQ(func::body(*f).numArguments(), 2u);
  EXPECT_FALSE(f->attr("sym_visibility"));

  // Without `module`, the ops are wrapped in an anonymous module.
  auto bare = parseOk("func.func @g() {\n  return\n}\nfunc.func @h() {\n  return\n}\n");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->name(), "");
  EXPECT_EQ(bare->functions().size(), 2u);
}

TEST(ParseModule, MultipleResultsAndBlockArguments) {
  auto m = parseOk(R"(
func.func @f(%a: tensor<2xf32>, %b: tensor<2xi32>) -> tensor<2xi32> {
  %0:2 = "stablehlo.sort"(%a, %b) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>, %z: tensor<i32>, %w: tensor<i32>):
    %lt = stablehlo.compare LT, %x, %y, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<2xf32>, tensor<2xi32>) -> (tensor<2xf32>, tensor<2xi32>)
  %s, %i = "stablehlo.optimization_barrier"(%0#0, %0#1) : (tensor<2xf32>, tensor<2xi32>) -> (tensor<2xf32>, tensor<2xi32>)
  return %i : tensor<2xi32>
})");
  ASSERT_TRUE(m);
  std::vector<Operation*> ops = bodyOps(*m);
  EXPECT_EQ(ops[0]->numResults(), 2u);
  EXPECT_EQ(ops[0]->region(0).front().numArguments(), 4u);
  EXPECT_EQ(ops[1]->operand(1), ops[0]->result(1));
  EXPECT_EQ(ops[2]->operand(0), ops[1]->result(1));
}

TEST(ParseModule, OuterValuesAreVisibleInRegions) {
  auto m = parseOk(R"(
func.func @f(%p: tensor<i1>, %a: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.if"(%p) ({
    stablehlo.return %a : tensor<f32>
  }, {
    %n = stablehlo.negate %a : tensor<f32>
    stablehlo.return %n : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  return %0 : tensor<f32>
})");
  ASSERT_TRUE(m);
  Operation* ifOp = bodyOps(*m).at(0);
  EXPECT_EQ(ifOp->region(0).front().front()->operand(0), func::body(*m->functions()[0]).argument(1));
}

// JAX writes the comparator of ApproxTopK as a function ending in
// stablehlo.return (MLIR accepts it); kiln's function ends in func.return.
TEST(ParseModule, FunctionEndingInStablehloReturn) {
  auto m = parseOk(R"(
func.func @cmp(%a: tensor<f32>, %b: tensor<f32>) -> tensor<i1> {
  %0 = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
  stablehlo.return %0 : tensor<i1>
})");
  ASSERT_TRUE(m);
  Operation* ret = bodyOps(*m).back();
  EXPECT_EQ(ret->name(), "func.return");
  ASSERT_EQ(ret->numOperands(), 1u);
  EXPECT_EQ(ret->operand(0), bodyOps(*m).front()->result());
}

TEST(ParseModule, UnregisteredDialects) {
  const char* generic = R"(
func.func @f(%a: tensor<f32>) -> tensor<f32> {
  %0 = "mydialect.op"(%a) {k = 1 : i32} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
})";
  EXPECT_NE(parseError(generic).message.find("unregistered dialect"), std::string::npos);
  ParseOptions allow;
  allow.allowUnregisteredDialect = true;
  auto m = parseOk(generic, allow);
  ASSERT_TRUE(m);
  Operation* op = bodyOps(*m).at(0);
  EXPECT_EQ(op->name(), "mydialect.op");
  EXPECT_FALSE(op->isRegistered());
  EXPECT_EQ(op->attr("k"), Attribute::integer(1, Type::si32()));

  // Pretty forms of unknown ops and unknown ops of kiln's own dialects are errors.
  EXPECT_NE(parseError("func.func @f(%a: tensor<f32>) {\n  chlo.bessel_i0e %a : tensor<f32>\n  return\n}", allow)
                .message.find("generic form"),
            std::string::npos);
  Diagnostic d = parseError("func.func @f(%a: tensor<f32>) {\n  %0 = \"stablehlo.foo\"(%a) : (tensor<f32>) -> tensor<f32>\n  return\n}", allow);
  EXPECT_EQ(d.message, "unknown operation 'stablehlo.foo'");
  EXPECT_EQ(d.loc.line, 2u);
  EXPECT_EQ(d.loc.col, 8u);
}

// ---------------------------------------------------------------------------
// Diagnostics
// ---------------------------------------------------------------------------

TEST(ParseErrors, CarryFileLineColumnAndSnippet) {
  Diagnostic d = parseError("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.add %a, %b : tensor<f32>\n  return %0 : tensor<f32>\n}");
  EXPECT_EQ(d.message, "use of undefined value '%b'");
  EXPECT_EQ(*d.loc.file, "bad.mlir");
  EXPECT_EQ(d.loc.line, 2u);
  EXPECT_EQ(d.loc.col, 26u);
  EXPECT_NE(d.str().find("bad.mlir:2:26: error: use of undefined value '%b'"), std::string::npos);
  EXPECT_NE(d.str().find("  %0 = stablehlo.add %a, %b : tensor<f32>\n                           ^"), std::string::npos);
}

TEST(ParseErrors, SayWhatWasExpected) {
  struct Case {
    const char* text;
    unsigned line, col;
    const char* message;
  };
  const Case cases[] = {
      {"func.func @f() {\n  %0 = stablehlo.constant dense<[1, 2> : tensor<2xi32>\n}", 2, 38,
       "expected ',' or ']' in dense literal, found '>'"},
      {"func.func @f(%a: tensor<f32>) {\n  %a = stablehlo.abs %a : tensor<f32>\n}", 2, 3, "redefinition of value '%a'"},
      {"func.func @f(%a: tensor<f32>) {\n  %0 = stablehlo.abs %a : tensor<i32>\n}", 2, 22,
       "use of value '%a' expects type tensor<i32> but it has type tensor<f32>"},
      {"func.func @f(%a: tensor<f32>) {\n  %0:2 = stablehlo.abs %a : tensor<f32>\n}", 2, 3,
       "operation defines 1 results but 2 result names were given"},
      {"func.func @f(%a: tensor<f32>) {\n  %0 = stablehlo.abs %a#1 : tensor<f32>\n}", 2, 22,
       "result number 1 is out of range: '%a' has 1 results"},
      {"func.func @f(%a: tensor<f32>) {\n  %0 = stablehlo.compare LT %a, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>\n}", 2,
       29, "expected ',' after comparison direction, found '%a'"},
      {"func.func @f() {\n  return\n", 3, 1, "expected operation or '}' to end the region, found end of input"},
      {"module {\n  func.func @f() {\n    return {a = 1, a = 2}\n  }\n}", 3, 20, "duplicate attribute 'a'"},
      {"func.func @f(%a: tensor<2xf32>) {\n  %0 = stablehlo.slice %a [0:1 (tensor<2xf32>) -> tensor<1xf32>\n}", 2, 32,
       "expected ',' or ']' in slice ranges, found '('"},
  };
  for (const Case& c : cases) {
    Diagnostic d = parseError(c.text);
    EXPECT_EQ(d.message, c.message) << c.text;
    EXPECT_EQ(d.loc.line, c.line) << c.text;
    EXPECT_EQ(d.loc.col, c.col) << c.text;
  }
}

TEST(SplitInputFile, KeepsLineNumbers) {
  std::string text =
      "func.func @a() {\n  return\n}\n"
      "// -----\n"
      "func.func @b() {\n"
      "  %0 = stablehlo.abs %missing : tensor<f32>\n"
      "}\n"
      "  // -----  \n"
      "func.func @c() {\n  return\n}\n";
  std::vector<SourceChunk> chunks = splitInputFile(text);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].firstLine, 1u);
  EXPECT_EQ(chunks[1].firstLine, 5u);
  EXPECT_EQ(chunks[2].firstLine, 9u);
  EXPECT_TRUE(parseModule(chunks[0].text, "split.mlir").isOk());
  auto bad = parseModule(chunks[1].text, "split.mlir");
  ASSERT_FALSE(bad.isOk());
  EXPECT_EQ(bad.status().diag().loc.line, 6u);
  EXPECT_EQ(bad.status().diag().loc.col, 22u);
  auto last = parseModule(chunks[2].text, "split.mlir");
  ASSERT_TRUE(last.isOk());
  EXPECT_EQ((*last)->functions()[0]->loc().line, 9u);
  EXPECT_EQ(splitInputFile("no separators").size(), 1u);
}

// ---------------------------------------------------------------------------
// Robustness: no input crashes, hangs or overflows the stack.
// ---------------------------------------------------------------------------

TEST(ParseRobustness, DeepNestingIsAnError) {
  std::string deepAttr = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_NE(attrError(deepAttr).find("nesting deeper than"), std::string::npos);
  std::string deepType;
  for (int i = 0; i < 5000; ++i) deepType += "tuple<";
  EXPECT_FALSE(parseType(deepType).isOk());
  std::string deepDense = "dense<" + std::string(5000, '[') + "1" + std::string(5000, ']') + "> : tensor<i32>";
  EXPECT_FALSE(parseAttribute(deepDense).isOk());
  std::string deepRegions = "func.func @f(%p: tensor<i1>) {\n";
  for (int i = 0; i < 3000; ++i) deepRegions += "\"stablehlo.if\"(%p) ({\n";
  EXPECT_NE(parseError(deepRegions).message.find("nesting deeper than"), std::string::npos);
}

TEST(ParseRobustness, EveryPrefixOfARealProgram) {
  std::string_view text = kPrettyForms;
  size_t parsed = 0;
  for (size_t n = 0; n <= text.size(); ++n) {
    auto m = parseModule(text.substr(0, n), "prefix.mlir");
    if (m.isOk()) {
      ++parsed;
    } else {
      EXPECT_TRUE(m.status().diag().loc.known()) << "prefix " << n << ": " << m.status().message();
    }
  }
  EXPECT_GE(parsed, 1u);  // at least the whole text
}

TEST(ParseRobustness, RandomMutations) {
  std::mt19937 rng(12345);
  const std::string_view sources[] = {kPrettyForms, kGenericForms, kJaxProgram};
  const char interesting[] = "<>[](){}%#@!^:,=\"-x0123456789.e\n ";
  for (int iter = 0; iter < 1500; ++iter) {
    std::string text(sources[iter % 3]);
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % text.size();
      switch (rng() % 3) {
        case 0: text[pos] = static_cast<char>(rng() % 256); break;
        case 1: text[pos] = interesting[rng() % (sizeof(interesting) - 1)]; break;
        case 2: text.erase(pos, 1 + rng() % 16); break;
      }
    }
    ParseOptions options;
    options.allowUnregisteredDialect = iter % 2 == 0;
    auto m = parseModule(text, "mutated.mlir", options);
    if (!m.isOk()) {
      EXPECT_TRUE(m.status().diag().loc.known()) << m.status().message();
    }
  }
}

}  // namespace
}  // namespace kiln
