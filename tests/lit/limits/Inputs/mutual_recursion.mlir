func.func @main(%x: tensor<i32>) -> tensor<i32> {
  %0 = func.call @f(%x) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}
func.func private @f(%x: tensor<i32>) -> tensor<i32> {
  %0 = func.call @g(%x) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}
func.func private @g(%x: tensor<i32>) -> tensor<i32> {
  %0 = func.call @f(%x) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}
