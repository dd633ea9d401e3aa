// RUN: kiln-opt --split-input-file --verify-diagnostics %s
// The type rules of random numbers, channels, tokens, asynchronous
// computations and quantization.

func.func @random(%a: tensor<i32>, %b: tensor<i32>, %shape: tensor<2xi64>, %state: tensor<2xui64>) -> tensor<3x3xi32> {
  %0 = "stablehlo.rng"(%a, %b, %shape) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<i32>, tensor<i32>, tensor<2xi64>) -> tensor<3x3xi32>
  %1:2 = "stablehlo.rng_bit_generator"(%state) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui64>)
  return %0 : tensor<3x3xi32>
}

// -----

// rng (C2) NORMAL needs floats
func.func @rng_normal_int(%a: tensor<i32>, %shape: tensor<2xi64>) -> tensor<3x3xi32> {
  // expected-error @+1 {{expects a floating-point type for the NORMAL distribution, got tensor<i32>}}
  %0 = "stablehlo.rng"(%a, %a, %shape) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<i32>, tensor<i32>, tensor<2xi64>) -> tensor<3x3xi32>
  return %0 : tensor<3x3xi32>
}

// -----

// rng_bit_generator (C2) state size
func.func @rng_bit_generator_state(%state: tensor<3xui64>) -> tensor<2x2xui64> {
  // expected-error @+1 {{expects an initial_state of 2 elements for THREE_FRY, got tensor<3xui64>}}
  %0:2 = "stablehlo.rng_bit_generator"(%state) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<3xui64>) -> (tensor<3xui64>, tensor<2x2xui64>)
  return %0#1 : tensor<2x2xui64>
}

// -----

func.func @channels_and_tokens(%a: tensor<2x2xi64>, %t: !stablehlo.token) -> !stablehlo.token {
  %0 = "stablehlo.send"(%a, %t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true} : (tensor<2x2xi64>, !stablehlo.token) -> !stablehlo.token
  %1:2 = "stablehlo.recv"(%0) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<2x2xi64>, !stablehlo.token)
  %2:2 = "stablehlo.infeed"(%1#1) {infeed_config = ""} : (!stablehlo.token) -> (tensor<2x2xi64>, !stablehlo.token)
  %3 = "stablehlo.outfeed"(%2#0, %2#1) {outfeed_config = ""} : (tensor<2x2xi64>, !stablehlo.token) -> !stablehlo.token
  %4 = "stablehlo.after_all"(%0, %3) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
  return %4 : !stablehlo.token
}

// -----

func.func @send_without_token(%a: tensor<2xi64>) -> !stablehlo.token {
  // expected-error @+1 {{expects the last operand to be a !stablehlo.token}}
  %0 = "stablehlo.send"(%a) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>} : (tensor<2xi64>) -> !stablehlo.token
  return %0 : !stablehlo.token
}

// -----

// recv (C4) last result is a token
func.func @recv_last_result(%t: !stablehlo.token) -> tensor<2xi64> {
  // expected-error @+1 {{expects the last result to be a !stablehlo.token}}
  %0:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>} : (!stablehlo.token) -> (!stablehlo.token, tensor<2xi64>)
  return %0#1 : tensor<2xi64>
}

// -----

func.func @infeed_operand(%a: tensor<2xi64>) -> !stablehlo.token {
  // expected-error @+1 {{expects token to be a !stablehlo.token}}
  %0 = "stablehlo.infeed"(%a) {infeed_config = ""} : (tensor<2xi64>) -> !stablehlo.token
  return %0 : !stablehlo.token
}

// -----

func.func @outfeed_result(%a: tensor<2xi64>, %t: !stablehlo.token) -> tensor<2xi64> {
  // expected-error @+1 {{result #0 has type tensor<2xi64> but its operands and attributes give !stablehlo.token}}
  %0 = "stablehlo.outfeed"(%a, %t) {outfeed_config = ""} : (tensor<2xi64>, !stablehlo.token) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @after_all_tensor(%a: tensor<2xi64>, %t: !stablehlo.token) -> !stablehlo.token {
  // expected-error @+1 {{expects inputs to be a !stablehlo.token}}
  %0 = "stablehlo.after_all"(%t, %a) : (!stablehlo.token, tensor<2xi64>) -> !stablehlo.token
  return %0 : !stablehlo.token
}

// -----

func.func @work(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func @async(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.async_start"(%a) {called_computation = @work, execution_thread = "main"} : (tensor<4xf32>) -> !stablehlo.token
  %1 = "stablehlo.async_done"(%0) : (!stablehlo.token) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

func.func @async_start_callee(%a: tensor<4xf32>) -> !stablehlo.token {
  // expected-error @+1 {{requires a symbol attribute 'called_computation'}}
  %0 = "stablehlo.async_start"(%a) {execution_thread = "main"} : (tensor<4xf32>) -> !stablehlo.token
  return %0 : !stablehlo.token
}

// -----

func.func @async_done_operands(%a: !stablehlo.token, %b: !stablehlo.token) -> tensor<4xf32> {
  // expected-error @+1 {{expects 1 operands, got 2}}
  %0 = "stablehlo.async_done"(%a, %b) : (!stablehlo.token, !stablehlo.token) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @quantization(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.uniform_quantize"(%a) : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5:3>>
  %1 = "stablehlo.add"(%0, %0) : (tensor<2x!quant.uniform<i8:f32, 0.5:3>>, tensor<2x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<2x!quant.uniform<i8:f32, 0.25:1>>
  %2 = "stablehlo.uniform_dequantize"(%1) : (tensor<2x!quant.uniform<i8:f32, 0.25:1>>) -> tensor<2xf32>
  return %2 : tensor<2xf32>
}

// -----

func.func @uniform_quantize_expressed(%a: tensor<2xf64>) -> tensor<2x!quant.uniform<i8:f32, 0.5:3>> {
  // expected-error @+1 {{expects the expressed type of the result to be f64}}
  %0 = "stablehlo.uniform_quantize"(%a) : (tensor<2xf64>) -> tensor<2x!quant.uniform<i8:f32, 0.5:3>>
  return %0 : tensor<2x!quant.uniform<i8:f32, 0.5:3>>
}

// -----

func.func @uniform_dequantize_float(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects operand to be a quantized tensor, got tensor<2xf32>}}
  %0 = "stablehlo.uniform_dequantize"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
