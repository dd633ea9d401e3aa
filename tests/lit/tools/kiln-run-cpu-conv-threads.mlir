// A oneDNN convolution runs on every thread only from 1M multiply-adds, as a
// dot does (planner.h, kParallelLibraryWork), split into tiles that the
// pool's threads claim (onednn_conv.h): below, on the calling thread alone.
// The profile's kind says which ("oneDNN (4 tiles)" or "oneDNN").

// 32x8x8x16 outputs of 3x3x1 windows: 295k multiply-adds, one thread.
// RUN: kiln run %s --backend cpu --threads 2 --entry small --profile 1 --input-literal 'dense<0.5> : tensor<32x8x8x1xf32>' --input-literal 'dense<0.25> : tensor<3x3x1x16xf32>' 2>&1 >/dev/null | FileCheck %s --check-prefix=SMALL
// SMALL: oneDNN  convolution
// SMALL-NOT: oneDNN (

// 8x16x16x64 outputs of 3x3x64 windows: 75M multiply-adds, every thread:
// two tiles of two images each per thread (from 16M multiply-adds).
// RUN: kiln run %s --backend cpu --threads 2 --entry big --profile 1 --input-literal 'dense<0.5> : tensor<8x16x16x64xf32>' --input-literal 'dense<0.25> : tensor<3x3x64x64xf32>' 2>&1 >/dev/null | FileCheck %s --check-prefix=BIG
// BIG: oneDNN (4 tiles)  convolution

func.func @small(%x: tensor<32x8x8x1xf32>, %w: tensor<3x3x1x16xf32>) -> tensor<32x8x8x16xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<32x8x8x1xf32>, tensor<3x3x1x16xf32>) -> tensor<32x8x8x16xf32>
  return %0 : tensor<32x8x8x16xf32>
}

func.func @big(%x: tensor<8x16x16x64xf32>, %w: tensor<3x3x64x64xf32>) -> tensor<8x16x16x64xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<8x16x16x64xf32>, tensor<3x3x64x64xf32>) -> tensor<8x16x16x64xf32>
  return %0 : tensor<8x16x16x64xf32>
}
