// Which multiplies and adds fuse into an fma on the cuda back end: those the
// emitted IR asks for with llvm.fma, no others, as on the cpu back end.
//
// A complex product is the interpreter's complex_math::multiply (XLA:CPU's
// contraction of the textbook formula): real fma(x.re, y.re, -(x.im * y.im)),
// imaginary fma(x.im, y.re, x.re * y.im). The shared emitter writes those
// two llvm.fma calls; NVPTX compiles with FPOpFusion::Standard (ptx.cpp), so
// every other multiply and add is mul.rn / add.rn / sub.rn, which LLVM does
// not fuse and ptxas may not contract (a PTX add without a rounding mode,
// it may). So: exactly two fma.rn per complex product, with the operands
// above (a negated product is exact: -(x.im * y.im) = y.im * -x.im), and
// none in real arithmetic, nor between a complex product and an add after it.
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null
// RUN: FileCheck %s --input-file %t/cuda_kernels.txt --check-prefix=KERNELS
// RUN: FileCheck %s --input-file %t/k0_loop.sm_80.ptx --check-prefix=C64
// RUN: FileCheck %s --input-file %t/k0_loop.sm_90.ptx --check-prefix=C64
// RUN: FileCheck %s --input-file %t/k1_loop.sm_80.ptx --check-prefix=C128
// RUN: FileCheck %s --input-file %t/k1_loop.sm_90.ptx --check-prefix=C128
// RUN: cat %t/k2_loop.sm_80.ptx %t/k2_loop.sm_90.ptx %t/k3_loop.sm_80.ptx %t/k3_loop.sm_90.ptx | FileCheck %s --check-prefix=REAL

// KERNELS: kernel k0_loop: stablehlo.multiply
// KERNELS: kernel k1_loop: kiln.fusion
// KERNELS: kernel k2_loop: kiln.fusion
// KERNELS: kernel k3_loop: kiln.fusion
// KERNELS-NOT: unsupported

// complex<f32> x * y, x the first parameter.
// C64: .visible .entry k0_loop(
// C64-DAG: ld.param.u64 [[PX:%rd[0-9]+]], [k0_loop_param_0];
// C64-DAG: ld.param.u64 [[PY:%rd[0-9]+]], [k0_loop_param_1];
// C64-DAG: cvta.to.global.u64 [[X:%rd[0-9]+]], [[PX]];
// C64-DAG: cvta.to.global.u64 [[Y:%rd[0-9]+]], [[PY]];
// C64-DAG: ld.global.f32 [[XRE:%f[0-9]+]], {{\[}}[[X]]];
// C64-DAG: ld.global.f32 [[XIM:%f[0-9]+]], {{\[}}[[X]]+4];
// C64-DAG: ld.global.f32 [[YRE:%f[0-9]+]], {{\[}}[[Y]]];
// C64-DAG: ld.global.f32 [[YIM:%f[0-9]+]], {{\[}}[[Y]]+4];
// C64-DAG: mul.rn.f32 [[P:%f[0-9]+]], [[XRE]], [[YIM]];
// C64-DAG: fma.rn.f32 [[IM:%f[0-9]+]], [[XIM]], [[YRE]], [[P]];
// C64-DAG: neg.f32 [[NXIM:%f[0-9]+]], [[XIM]];
// C64-DAG: mul.rn.f32 [[Q:%f[0-9]+]], [[YIM]], [[NXIM]];
// C64-DAG: fma.rn.f32 [[RE:%f[0-9]+]], [[XRE]], [[YRE]], [[Q]];
// C64-DAG: st.global.f32 [{{%rd[0-9]+}}], [[RE]];
// C64-DAG: st.global.f32 [{{%rd[0-9]+}}+4], [[IM]];
// C64-NOT: fma
// C64: ret;

// complex<f64> x * y + z: the product's two fma, then two add.rn.
// C128: .visible .entry k1_loop(
// C128-DAG: ld.param.u64 [[PX:%rd[0-9]+]], [k1_loop_param_0];
// C128-DAG: ld.param.u64 [[PY:%rd[0-9]+]], [k1_loop_param_1];
// C128-DAG: cvta.to.global.u64 [[X:%rd[0-9]+]], [[PX]];
// C128-DAG: cvta.to.global.u64 [[Y:%rd[0-9]+]], [[PY]];
// C128-DAG: ld.global.f64 [[XRE:%fd[0-9]+]], {{\[}}[[X]]];
// C128-DAG: ld.global.f64 [[XIM:%fd[0-9]+]], {{\[}}[[X]]+8];
// C128-DAG: ld.global.f64 [[YRE:%fd[0-9]+]], {{\[}}[[Y]]];
// C128-DAG: ld.global.f64 [[YIM:%fd[0-9]+]], {{\[}}[[Y]]+8];
// C128-DAG: mul.rn.f64 [[P:%fd[0-9]+]], [[XRE]], [[YIM]];
// C128-DAG: fma.rn.f64 [[IM:%fd[0-9]+]], [[XIM]], [[YRE]], [[P]];
// C128-DAG: neg.f64 [[NXIM:%fd[0-9]+]], [[XIM]];
// C128-DAG: mul.rn.f64 [[Q:%fd[0-9]+]], [[YIM]], [[NXIM]];
// C128-DAG: fma.rn.f64 [[RE:%fd[0-9]+]], [[XRE]], [[YRE]], [[Q]];
// C128-DAG: add.rn.f64 {{%fd[0-9]+}}, {{%fd[0-9]+}}, [[RE]];
// C128-DAG: add.rn.f64 {{%fd[0-9]+}}, [[IM]], {{%fd[0-9]+}};
// C128-NOT: fma
// C128: ret;

// Real f64 a*b - c*d and f32 a*b + c: never contracted (the interpreter's
// and the cpu back end's roundings: neither fuses them either).
// REAL: .visible .entry k2_loop(
// REAL-NOT: fma
// REAL: mul.rn.f64
// REAL-NOT: fma
// REAL: sub.rn.f64
// REAL-NOT: fma
// REAL: .visible .entry k2_loop(
// REAL-NOT: fma
// REAL: sub.rn.f64
// REAL-NOT: fma
// REAL: .visible .entry k3_loop(
// REAL-NOT: fma
// REAL: mul.rn.f32
// REAL-NOT: fma
// REAL: add.rn.f32
// REAL-NOT: fma
// REAL: .visible .entry k3_loop(
// REAL-NOT: fma
// REAL: add.rn.f32
// REAL-NOT: fma
func.func @main(%x: tensor<complex<f32>>, %y: tensor<complex<f32>>,
                %c: tensor<complex<f64>>, %d: tensor<complex<f64>>, %e: tensor<complex<f64>>,
                %a: tensor<f64>, %b: tensor<f64>, %g: tensor<f64>, %h: tensor<f64>,
                %p: tensor<64xf32>, %q: tensor<64xf32>, %r: tensor<64xf32>)
    -> (tensor<complex<f32>>, tensor<complex<f64>>, tensor<f64>, tensor<64xf32>) {
  %0 = stablehlo.multiply %x, %y : tensor<complex<f32>>
  %1 = stablehlo.multiply %c, %d : tensor<complex<f64>>
  %2 = stablehlo.add %1, %e : tensor<complex<f64>>
  %3 = stablehlo.multiply %a, %b : tensor<f64>
  %4 = stablehlo.multiply %g, %h : tensor<f64>
  %5 = stablehlo.subtract %3, %4 : tensor<f64>
  %6 = stablehlo.multiply %p, %q : tensor<64xf32>
  %7 = stablehlo.add %6, %r : tensor<64xf32>
  return %0, %2, %5, %7 : tensor<complex<f32>>, tensor<complex<f64>>, tensor<f64>, tensor<64xf32>
}
