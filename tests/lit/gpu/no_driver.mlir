// Where no CUDA driver is installed, `kiln run --backend cuda` and `kiln
// test --backend cuda` say so and exit 1: no crash, no test run, nothing
// silently run on the cpu instead.
// UNSUPPORTED: cuda-driver
// RUN: not kiln run --backend cuda %s --input '[1, 2, 3, 4]' 2>&1 | FileCheck %s --check-prefix=RUNERR
// RUN: not kiln test --backend cuda %s 2>&1 | FileCheck %s --check-prefix=TEST

// RUNERR: kiln run: error: the cuda back end cannot run here: no CUDA driver (libcuda.so.1: {{.*}})
// RUNERR-NOT: [1
// TEST: kiln test: error: the cuda back end cannot run here: no CUDA driver (libcuda.so.1: {{.*}})
// TEST-NOT: PASS
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
