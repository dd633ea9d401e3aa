// Tests of the interpreter kernels for data movement, reductions, linear
// algebra, random numbers, quantization and custom_call.
//
// Programs are built with OperationState (independent of the parser). Where
// an expected value is not obvious by hand, it was computed with JAX 0.10 /
// NumPy 2.4 on the CPU; the comment above it gives the Python expression
// (x64 enabled, `from jax import lax`).
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <functional>

#include <gtest/gtest.h>

#include <limits>

#include "kiln/interp/interpreter.h"
#include "kiln/ir/ir.h"

namespace kiln::interp {
namespace {

// ---- Building programs ------------------------------------------------------------

Type f32Tensor(std::initializer_list<int64_t> shape) { return Type::tensor(shape, Type::f32()); }
Type scalarOf(Type elementType) { return Type::tensor({}, elementType); }

Attribute i64s(std::vector<int64_t> v) { return Attribute::denseI64Array(std::move(v)); }
Attribute intArray(std::vector<int64_t> v) {
  std::vector<Attribute> elements;
  for (int64_t x : v) elements.push_back(Attribute::integer(x));
  return Attribute::array(std::move(elements));
}
Attribute i64Matrix(std::vector<int64_t> v, int64_t rows, int64_t cols) {
  std::vector<uint8_t> bytes(v.size() * 8);
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return Attribute::dense(Type::tensor({rows, cols}, Type::si64()), std::move(bytes));
}

// Builds the ops of one block.
class BlockBuilder {
 public:
  explicit BlockBuilder(Block& block) : block_(block) {}
  Value* arg(unsigned i) const { return block_.argument(i); }

  // Appends an op; returns the op so callers can take several results.
  Operation* op(std::string name, std::vector<Value*> operands, std::vector<Type> resultTypes,
                std::vector<NamedAttribute> attrs = {},
                std::vector<std::function<void(Region&)>> regions = {}) {
    OperationState st(std::move(name));
    st.operands = std::move(operands);
    st.resultTypes = std::move(resultTypes);
    st.attributes = AttrDict(std::move(attrs));
    for (auto& build : regions) build(*st.addRegion());
    return block_.push_back(Operation::create(std::move(st)));
  }
  Value* value(std::string name, std::vector<Value*> operands, Type resultType,
               std::vector<NamedAttribute> attrs = {},
               std::vector<std::function<void(Region&)>> regions = {}) {
    return op(std::move(name), std::move(operands), {resultType}, std::move(attrs), std::move(regions))->result(0);
  }

 private:
  Block& block_;
};

// A region of one block with `argTypes` arguments whose body `build` fills
// and whose returned values are those `build` returns.
std::function<void(Region&)> regionOf(std::vector<Type> argTypes,
                                      std::function<std::vector<Value*>(BlockBuilder&)> build) {
  return [argTypes, build](Region& region) {
    Block* block = region.addBlock();
    for (Type t : argTypes) block->addArgument(t);
    BlockBuilder b(*block);
    std::vector<Value*> results = build(b);
    b.op("stablehlo.return", results, {});
  };
}

// A body `return opName(arg0, arg1)` on scalars of `elementType`.
std::function<void(Region&)> binaryBody(std::string opName, Type elementType) {
  Type s = scalarOf(elementType);
  return regionOf({s, s}, [=](BlockBuilder& b) {
    return std::vector<Value*>{b.value(opName, {b.arg(0), b.arg(1)}, s)};
  });
}

// A comparator `return compare(arg0, arg1, direction)` for sort / select.
std::function<void(Region&)> compareBody(std::string direction, Type elementType, unsigned numPairs = 1) {
  std::vector<Type> args(2 * numPairs, scalarOf(elementType));
  std::string type = elementType.isFloat() ? "FLOAT" : "SIGNED";
  return regionOf(args, [=](BlockBuilder& b) {
    return std::vector<Value*>{b.value("stablehlo.compare", {b.arg(0), b.arg(1)}, scalarOf(Type::i1()),
                                       {{"comparison_direction", Attribute::enumAttr("comparison_direction", direction)},
                                        {"compare_type", Attribute::enumAttr("comparison_type", type)}})};
  });
}

// A module with one function @main(params...) whose body `build` fills.
class Program {
 public:
  explicit Program(std::vector<Type> params) {
    OperationState st("func.func");
    st.attributes.set("sym_name", Attribute::string("main"));
    Block* block = st.addRegion()->addBlock();
    for (Type t : params) block->addArgument(t);
    params_ = std::move(params);
    fn_ = module_.body().push_back(Operation::create(std::move(st)));
  }
  BlockBuilder body() { return BlockBuilder(func::body(*fn_)); }
  Value* param(unsigned i) { return func::body(*fn_).argument(i); }

  Expected<std::vector<Tensor>> run(std::vector<Value*> results, std::vector<Tensor> args) {
    std::vector<Type> resultTypes;
    for (Value* v : results) resultTypes.push_back(v->type());
    fn_->setAttr("function_type", Attribute::type(Type::function(params_, resultTypes)));
    body().op("func.return", results, {});
    return runFunction(module_, "main", std::move(args));
  }

 private:
  Module module_;
  Operation* fn_;
  std::vector<Type> params_;
};

// ---- Making and reading tensors ---------------------------------------------------

Tensor floats(Type type, std::vector<double> values) {
  Tensor t(type);
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.numElements());
  for (size_t i = 0; i < values.size(); ++i) t.setFloat(i, values[i]);
  return t;
}
Tensor ints(Type type, std::vector<int64_t> values) {
  Tensor t(type);
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.numElements());
  for (size_t i = 0; i < values.size(); ++i) t.setInt(i, values[i]);
  return t;
}
Tensor iotaF32(std::initializer_list<int64_t> shape) {
  Tensor t(f32Tensor(shape));
  for (int64_t i = 0; i < t.numElements(); ++i) t.setFloat(i, static_cast<double>(i));
  return t;
}

void expectFloats(const Tensor& t, std::vector<double> want, double tolerance = 0) {
  ASSERT_EQ(t.numElements(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(t.getFloat(i), want[i], tolerance * std::max(1.0, std::abs(want[i]))) << "at element " << i;
}
void expectInts(const Tensor& t, std::vector<int64_t> want) {
  ASSERT_EQ(t.numElements(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(t.getInt(i), want[i]) << "at element " << i;
}

// Runs a program and returns its results, failing the test on error.
std::vector<Tensor> mustRun(Program& p, std::vector<Value*> results, std::vector<Tensor> args) {
  auto r = p.run(std::move(results), std::move(args));
  EXPECT_TRUE(r.isOk()) << (r.isOk() ? "" : r.status().message());
  return r.isOk() ? *r : std::vector<Tensor>{};
}

// ---- Data movement ------------------------------------------------------------------

TEST(InterpDataMovement, TransposeBroadcastReshape) {
  Program p({f32Tensor({2, 3}), f32Tensor({3})});
  BlockBuilder b = p.body();
  Value* t = b.value("stablehlo.transpose", {p.param(0)}, f32Tensor({3, 2}), {{"permutation", i64s({1, 0})}});
  Value* bc = b.value("stablehlo.broadcast_in_dim", {p.param(1)}, f32Tensor({2, 3}),
                      {{"broadcast_dimensions", i64s({1})}});
  Value* r = b.value("stablehlo.reshape", {p.param(0)}, f32Tensor({3, 2}));
  auto out = mustRun(p, {t, bc, r}, {iotaF32({2, 3}), floats(f32Tensor({3}), {7, 8, 9})});
  ASSERT_EQ(out.size(), 3u);
  expectFloats(out[0], {0, 3, 1, 4, 2, 5});
  expectFloats(out[1], {7, 8, 9, 7, 8, 9});
  expectFloats(out[2], {0, 1, 2, 3, 4, 5});
}

TEST(InterpDataMovement, PadWithNegativeAndInteriorPadding) {
  // dim 0: low 1, interior 1 -> rows [pad, r0, pad, r1]; dim 1: low -1,
  // high 1 -> columns [c1, c2, pad].
  Program p({f32Tensor({2, 3}), f32Tensor({})});
  Value* padded = p.body().value("stablehlo.pad", {p.param(0), p.param(1)}, f32Tensor({4, 3}),
                                 {{"edge_padding_low", i64s({1, -1})},
                                  {"edge_padding_high", i64s({0, 1})},
                                  {"interior_padding", i64s({1, 0})}});
  auto out = mustRun(p, {padded}, {floats(f32Tensor({2, 3}), {1, 2, 3, 4, 5, 6}), floats(f32Tensor({}), {-1})});
  ASSERT_EQ(out.size(), 1u);
  expectFloats(out[0], {-1, -1, -1, 2, 3, -1, -1, -1, -1, 5, 6, -1});
}

TEST(InterpDataMovement, SliceConcatenateReverseIota) {
  Program p({f32Tensor({4, 4})});
  BlockBuilder b = p.body();
  Value* s = b.value("stablehlo.slice", {p.param(0)}, f32Tensor({2, 2}),
                     {{"start_indices", i64s({1, 0})}, {"limit_indices", i64s({4, 3})}, {"strides", i64s({2, 2})}});
  Value* c = b.value("stablehlo.concatenate", {s, s}, f32Tensor({2, 4}), {{"dimension", Attribute::integer(1)}});
  Value* r = b.value("stablehlo.reverse", {c}, f32Tensor({2, 4}), {{"dimensions", i64s({0, 1})}});
  Value* io = b.value("stablehlo.iota", {}, Type::tensor({2, 3}, Type::si32()),
                      {{"iota_dimension", Attribute::integer(1)}});
  auto out = mustRun(p, {c, r, io}, {iotaF32({4, 4})});
  ASSERT_EQ(out.size(), 3u);
  expectFloats(out[0], {4, 6, 4, 6, 12, 14, 12, 14});
  expectFloats(out[1], {14, 12, 14, 12, 6, 4, 6, 4});
  expectInts(out[2], {0, 1, 2, 0, 1, 2});
}

TEST(InterpDataMovement, DynamicSliceAndUpdateClampStartIndices) {
  Type i32 = scalarOf(Type::si32());
  Program p({f32Tensor({4, 4}), i32, i32, f32Tensor({2, 2})});
  BlockBuilder b = p.body();
  // Start (3, -1) for a 2x2 slice clamps to (2, 0).
  Value* s = b.value("stablehlo.dynamic_slice", {p.param(0), p.param(1), p.param(2)}, f32Tensor({2, 2}),
                     {{"slice_sizes", i64s({2, 2})}});
  // Start (-1, 3) for a 2x2 update clamps to (0, 2).
  Value* u = b.value("stablehlo.dynamic_update_slice", {p.param(0), p.param(3), p.param(2), p.param(1)},
                     f32Tensor({4, 4}));
  auto out = mustRun(p, {s, u}, {iotaF32({4, 4}), ints(i32, {3}), ints(i32, {-1}),
                                 floats(f32Tensor({2, 2}), {-1, -2, -3, -4})});
  ASSERT_EQ(out.size(), 2u);
  expectFloats(out[0], {8, 9, 12, 13});
  expectFloats(out[1], {0, 1, -1, -2, 4, 5, -3, -4, 8, 9, 10, 11, 12, 13, 14, 15});
}

// Operand iota [2,3,4]; indices [[[0,1],[2,3]],[[1,0],[2,2]]] (s32).
Tensor batchedIndices() {
  return ints(Type::tensor({2, 2, 2}, Type::si32()), {0, 1, 2, 3, 1, 0, 2, 2});
}

TEST(InterpDataMovement, GatherWithBatchingDims) {
  // lax.gather(op, idx, GatherDimensionNumbers(offset_dims=(2,),
  //   collapsed_slice_dims=(1,), start_index_map=(1,2), operand_batching_dims=(0,),
  //   start_indices_batching_dims=(0,)), slice_sizes=(1,1,2))
  // The index (2, 3) clamps to (2, 2) so that the 2-wide slice fits.
  Program p({f32Tensor({2, 3, 4}), Type::tensor({2, 2, 2}, Type::si32())});
  Attribute dn = Attribute::structAttr(
      "gather", {{"offset_dims", intArray({2})},
                 {"collapsed_slice_dims", intArray({1})},
                 {"operand_batching_dims", intArray({0})},
                 {"start_indices_batching_dims", intArray({0})},
                 {"start_index_map", intArray({1, 2})},
                 {"index_vector_dim", Attribute::integer(2)}});
  Value* g = p.body().value("stablehlo.gather", {p.param(0), p.param(1)}, f32Tensor({2, 2, 2}),
                            {{"dimension_numbers", dn}, {"slice_sizes", i64s({1, 1, 2})}});
  auto out = mustRun(p, {g}, {iotaF32({2, 3, 4}), batchedIndices()});
  ASSERT_EQ(out.size(), 1u);
  expectFloats(out[0], {1, 2, 10, 11, 16, 17, 22, 23});
}

Attribute batchedScatterDims() {
  return Attribute::structAttr("scatter", {{"update_window_dims", intArray({2})},
                                           {"inserted_window_dims", intArray({1})},
                                           {"input_batching_dims", intArray({0})},
                                           {"scatter_indices_batching_dims", intArray({0})},
                                           {"scatter_dims_to_operand_dims", intArray({1, 2})},
                                           {"index_vector_dim", Attribute::integer(2)}});
}

TEST(InterpDataMovement, ScatterAddWithBatchingDimsSkipsOutOfBounds) {
  // lax.scatter_add(op, idx, upd, ScatterDimensionNumbers(update_window_dims=(2,),
  //   inserted_window_dims=(1,), scatter_dims_to_operand_dims=(1,2),
  //   operand_batching_dims=(0,), scatter_indices_batching_dims=(0,)))
  // with upd = [[[10,20],[30,40]],[[50,60],[70,80]]]. The window at (0, 2, 3)
  // sticks out: its in-bounds element gets 30, the other is skipped. (XLA
  // drops the whole window, JAX printed 11 there; the spec skips per element.)
  Program p({f32Tensor({2, 3, 4}), Type::tensor({2, 2, 2}, Type::si32()), f32Tensor({2, 2, 2})});
  Value* s = p.body().value("stablehlo.scatter", {p.param(0), p.param(1), p.param(2)}, f32Tensor({2, 3, 4}),
                            {{"scatter_dimension_numbers", batchedScatterDims()}},
                            {binaryBody("stablehlo.add", Type::f32())});
  auto out = mustRun(p, {s}, {iotaF32({2, 3, 4}), batchedIndices(),
                              floats(f32Tensor({2, 2, 2}), {10, 20, 30, 40, 50, 60, 70, 80})});
  ASSERT_EQ(out.size(), 1u);
  expectFloats(out[0], {0,  11, 22, 3,  4,  5,  6,  7,  8,  9,  10, 41,  //
                        12, 13, 14, 15, 66, 77, 18, 19, 20, 21, 92, 103});
}

TEST(InterpDataMovement, ScatterMultiOperandRunsTheBody) {
  // Two inputs updated together by a body returning (b0, a1 * b1): the first
  // is overwritten, the second multiplied; index 1 is hit twice, in order.
  Type vec = f32Tensor({3});
  Type s = scalarOf(Type::f32());
  Program p({vec, vec, Type::tensor({3, 1}, Type::si32()), vec, vec});
  auto body = regionOf({s, s, s, s}, [&](BlockBuilder& b) {
    return std::vector<Value*>{b.arg(2), b.value("stablehlo.multiply", {b.arg(1), b.arg(3)}, s)};
  });
  Attribute dn = Attribute::structAttr("scatter", {{"update_window_dims", intArray({})},
                                                   {"inserted_window_dims", intArray({0})},
                                                   {"scatter_dims_to_operand_dims", intArray({0})},
                                                   {"index_vector_dim", Attribute::integer(1)}});
  Operation* op = p.body().op("stablehlo.scatter", {p.param(0), p.param(1), p.param(2), p.param(3), p.param(4)},
                              {vec, vec}, {{"scatter_dimension_numbers", dn}}, {body});
  auto out = mustRun(p, {op->result(0), op->result(1)},
                     {floats(vec, {1, 2, 3}), floats(vec, {1, 2, 3}), ints(Type::tensor({3, 1}, Type::si32()), {1, 1, 7}),
                      floats(vec, {10, 20, 30}), floats(vec, {10, 20, 30})});
  ASSERT_EQ(out.size(), 2u);
  expectFloats(out[0], {1, 20, 3});
  expectFloats(out[1], {1, 400, 3});
}

TEST(InterpDataMovement, SortIsStableAndMovesAllOperands) {
  // Keys compared with LT only; equal keys keep their input order.
  Type keys = Type::tensor({2, 5}, Type::si32());
  Program p({keys, keys});
  Operation* op = p.body().op("stablehlo.sort", {p.param(0), p.param(1)}, {keys, keys},
                              {{"dimension", Attribute::integer(1)}, {"is_stable", Attribute::boolean(true)}},
                              {compareBody("LT", Type::si32(), 2)});
  auto out = mustRun(p, {op->result(0), op->result(1)},
                     {ints(keys, {3, 1, 3, 2, 1, 0, 0, 0, -1, 0}), ints(keys, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9})});
  ASSERT_EQ(out.size(), 2u);
  expectInts(out[0], {1, 1, 2, 3, 3, -1, 0, 0, 0, 0});
  expectInts(out[1], {1, 4, 3, 0, 2, 8, 5, 6, 7, 9});
}

TEST(InterpDataMovement, DynamicOpsBehaveAsTheirStaticTwins) {
  Type vec1 = Type::tensor({1}, Type::si64()), vec2 = Type::tensor({2}, Type::si64());
  Type indices = Type::tensor({2, 1}, Type::si32());
  Program p({f32Tensor({2}), f32Tensor({}), vec1, vec1, f32Tensor({5}), indices, vec2});
  BlockBuilder b = p.body();
  // [1, 2] padded with low 1, high 0, interior 1 -> [0, 1, 0, 2].
  Value* padded = b.value("stablehlo.dynamic_pad", {p.param(0), p.param(1), p.param(2), p.param(3), p.param(2)},
                          f32Tensor({4}));
  // Slices of size dim(x, 0) = 2 at 3 and at 9 (clamped to 3).
  Attribute dn = Attribute::structAttr("gather", {{"offset_dims", intArray({1})},
                                                  {"collapsed_slice_dims", intArray({})},
                                                  {"start_index_map", intArray({0})},
                                                  {"index_vector_dim", Attribute::integer(1)}});
  Value* size = b.value("stablehlo.get_dimension_size", {p.param(0)}, scalarOf(Type::si32()),
                        {{"dimension", Attribute::integer(0)}});
  Value* sliceSizes = b.value("stablehlo.reshape", {size}, Type::tensor({1}, Type::si32()));
  Value* gathered = b.value("stablehlo.dynamic_gather", {p.param(4), p.param(5), sliceSizes}, f32Tensor({2, 2}),
                            {{"dimension_numbers", dn}});
  Value* iota = b.value("stablehlo.dynamic_iota", {p.param(6)}, Type::tensor({2, 3}, Type::si32()),
                        {{"iota_dimension", Attribute::integer(0)}});
  Value* bcast = b.value("stablehlo.dynamic_broadcast_in_dim", {p.param(0), p.param(6)}, f32Tensor({2, 3}),
                         {{"broadcast_dimensions", i64s({0})}});
  Value* reshaped = b.value("stablehlo.dynamic_reshape", {bcast, p.param(6)}, f32Tensor({3, 2}));
  auto out = mustRun(p, {padded, gathered, iota, reshaped},
                     {floats(f32Tensor({2}), {1, 2}), floats(f32Tensor({}), {0}), ints(vec1, {1}), ints(vec1, {0}),
                      iotaF32({5}), ints(indices, {3, 9}), ints(vec2, {2, 3})});
  ASSERT_EQ(out.size(), 4u);
  expectFloats(out[0], {0, 1, 0, 2});
  expectFloats(out[1], {3, 4, 3, 4});
  expectInts(out[2], {0, 0, 0, 1, 1, 1});
  expectFloats(out[3], {1, 1, 1, 2, 2, 2});
}

TEST(InterpDataMovement, MalformedDimensionListsAreErrorsNotCrashes) {
  Program p({f32Tensor({2, 3})});
  Value* t = p.body().value("stablehlo.transpose", {p.param(0)}, f32Tensor({3, 2}), {{"permutation", i64s({1, 7})}});
  auto r = p.run({t}, {iotaF32({2, 3})});
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.status().message().find("permutation"), std::string::npos) << r.status().message();
}

// ---- Reductions -------------------------------------------------------------------

TEST(InterpReduction, ReduceSumAndMultiInputBody) {
  Type i32 = Type::si32();
  Type mat = Type::tensor({2, 3}, i32), vec = Type::tensor({2}, i32), s = scalarOf(i32);
  Program p({mat, s, s});
  BlockBuilder b = p.body();
  Value* sum = b.value("stablehlo.reduce", {p.param(0), p.param(1)}, vec, {{"dimensions", i64s({1})}},
                       {binaryBody("stablehlo.add", i32)});
  // (sum, product) in one reduce over dimension 0.
  auto body = regionOf({s, s, s, s}, [&](BlockBuilder& r) {
    return std::vector<Value*>{r.value("stablehlo.add", {r.arg(0), r.arg(2)}, s),
                               r.value("stablehlo.multiply", {r.arg(1), r.arg(3)}, s)};
  });
  Type cols = Type::tensor({3}, i32);
  Operation* both = b.op("stablehlo.reduce", {p.param(0), p.param(0), p.param(1), p.param(2)}, {cols, cols},
                         {{"dimensions", i64s({0})}}, {body});
  auto out = mustRun(p, {sum, both->result(0), both->result(1)},
                     {ints(mat, {1, 2, 3, 4, 5, 6}), ints(s, {10}), ints(s, {1})});
  ASSERT_EQ(out.size(), 3u);
  expectInts(out[0], {16, 25});
  expectInts(out[1], {15, 17, 19});
  expectInts(out[2], {4, 10, 18});
}

TEST(InterpReduction, ReduceWindowWithPaddingAndDilations) {
  // x = np.arange(12.).reshape(3,4)
  // lax.reduce_window(x, 0., lax.add, (2,2), (2,1), ((1,0),(0,1)),
  //                   base_dilation=(1,2), window_dilation=(1,2))
  // lax.reduce_window(x, -np.inf, lax.max, (2,3), (1,2), ((0,1),(1,1)))
  Program p({f32Tensor({3, 4}), f32Tensor({}), f32Tensor({})});
  BlockBuilder b = p.body();
  Value* sum = b.value("stablehlo.reduce_window", {p.param(0), p.param(1)}, f32Tensor({2, 6}),
                       {{"window_dimensions", i64s({2, 2})},
                        {"window_strides", i64s({2, 1})},
                        {"base_dilations", i64s({1, 2})},
                        {"window_dilations", i64s({1, 2})},
                        {"padding", i64Matrix({1, 0, 0, 1}, 2, 2)}},
                       {binaryBody("stablehlo.add", Type::f32())});
  Value* max = b.value("stablehlo.reduce_window", {p.param(0), p.param(2)}, f32Tensor({3, 2}),
                       {{"window_dimensions", i64s({2, 3})},
                        {"window_strides", i64s({1, 2})},
                        {"padding", i64Matrix({0, 1, 1, 1}, 2, 2)}},
                       {binaryBody("stablehlo.maximum", Type::f32())});
  auto out = mustRun(p, {sum, max}, {iotaF32({3, 4}), floats(f32Tensor({}), {0}),
                                     floats(f32Tensor({}), {-INFINITY})});
  ASSERT_EQ(out.size(), 2u);
  expectFloats(out[0], {1, 0, 3, 0, 5, 0, 26, 0, 30, 0, 34, 0});
  expectFloats(out[1], {5, 7, 9, 11, 9, 11});
}

TEST(InterpReduction, SelectAndScatterWithPadding) {
  // Windows of 2, stride 2, over [pad, 1, 5, 2, 7, pad]: the maxima are 1
  // (padding is never selected), 5 and 7, so the sources land at 0, 1, 3.
  Type vec = f32Tensor({4});
  Program p({vec, f32Tensor({3}), f32Tensor({})});
  Value* r = p.body().value("stablehlo.select_and_scatter", {p.param(0), p.param(1), p.param(2)}, vec,
                            {{"window_dimensions", i64s({2})},
                             {"window_strides", i64s({2})},
                             {"padding", i64Matrix({1, 1}, 1, 2)}},
                            {compareBody("GE", Type::f32()), binaryBody("stablehlo.add", Type::f32())});
  auto out = mustRun(p, {r}, {floats(vec, {1, 5, 2, 7}), floats(f32Tensor({3}), {10, 20, 30}),
                              floats(f32Tensor({}), {0.5})});
  ASSERT_EQ(out.size(), 1u);
  expectFloats(out[0], {10.5, 20.5, 0.5, 30.5});
}

// ---- Linear algebra ---------------------------------------------------------------

TEST(InterpLinalg, DotGeneralWithBatchingAndContractingDims) {
  // a = np.arange(24.).reshape(2,3,4)/7; b = np.arange(40.).reshape(4,2,5)/3
  // lax.dot_general(a, b, (((2,),(0,)),((0,),(1,))))   (in f32)
  Program p({f32Tensor({2, 3, 4}), f32Tensor({4, 2, 5})});
  Attribute dn = Attribute::structAttr("dot", {{"lhs_batching_dimensions", intArray({0})},
                                               {"rhs_batching_dimensions", intArray({1})},
                                               {"lhs_contracting_dimensions", intArray({2})},
                                               {"rhs_contracting_dimensions", intArray({0})}});
  Value* d = p.body().value("stablehlo.dot_general", {p.param(0), p.param(1)}, f32Tensor({2, 3, 5}),
                            {{"dot_dimension_numbers", dn}});
  Tensor a(f32Tensor({2, 3, 4})), bt(f32Tensor({4, 2, 5}));
  for (int64_t i = 0; i < 24; ++i) a.setFloat(i, static_cast<float>(i) / 7.0f);
  for (int64_t i = 0; i < 40; ++i) bt.setFloat(i, static_cast<float>(i) / 3.0f);
  auto out = mustRun(p, {d}, {a, bt});
  ASSERT_EQ(out.size(), 1u);
  expectFloats(out[0],
               {6.666666507720947,  6.952381134033203,  7.238095283508301,  7.523809432983398,  7.809524059295654,
                18.095237731933594, 19.14285659790039,  20.190475463867188, 21.238094329833984, 22.28571319580078,
                29.5238094329834,   31.33333396911621,  33.14285659790039,  34.9523811340332,   36.761905670166016,
                53.80952072143555,  56.380950927734375, 58.95237731933594,  61.523807525634766, 64.0952377319336,
                69.04761505126953,  72.38095092773438,  75.71427917480469,  79.04762268066406,  82.38095092773438,
                84.28571319580078,  88.38095092773438,  92.47618865966797,  96.5714340209961,   100.66667175292969},
               1e-6);
}

TEST(InterpLinalg, DotOfMixedIntegerTypes) {
  // i8 x i8 accumulating into i32: 100*100 + 100*100 = 20000 does not wrap.
  Type i8 = Type::integer(8);
  Program p({Type::tensor({1, 2}, i8), Type::tensor({2, 1}, i8)});
  Attribute dn = Attribute::structAttr("dot", {{"lhs_batching_dimensions", intArray({})},
                                               {"rhs_batching_dimensions", intArray({})},
                                               {"lhs_contracting_dimensions", intArray({1})},
                                               {"rhs_contracting_dimensions", intArray({0})}});
  Value* d = p.body().value("stablehlo.dot_general", {p.param(0), p.param(1)}, Type::tensor({1, 1}, Type::si32()),
                            {{"dot_dimension_numbers", dn}});
  auto out = mustRun(p, {d}, {ints(Type::tensor({1, 2}, i8), {100, 100}), ints(Type::tensor({2, 1}, i8), {100, 100})});
  ASSERT_EQ(out.size(), 1u);
  expectInts(out[0], {20000});
}

TEST(InterpLinalg, DeprecatedOpsAskForTheLegalizePass) {
  // stablehlo.dot has no kernel of its own: legalize makes it a dot_general.
  Program p({f32Tensor({1, 2}), f32Tensor({2, 1})});
  Value* d = p.body().value("stablehlo.dot", {p.param(0), p.param(1)}, f32Tensor({1, 1}));
  Tensor a(f32Tensor({1, 2})), b(f32Tensor({2, 1}));
  auto out = p.run({d}, {a, b});
  ASSERT_FALSE(out);
  EXPECT_NE(out.status().message().find("'stablehlo.dot' op is deprecated: run the legalize pass first"),
            std::string::npos)
      << out.status().message();
}

Attribute convDims(int64_t ib, int64_t if_, std::vector<int64_t> is, int64_t ki, int64_t ko, std::vector<int64_t> ks,
                   int64_t ob, int64_t of, std::vector<int64_t> os) {
  return Attribute::structAttr("conv", {{"input_batch_dimension", Attribute::integer(ib)},
                                        {"input_feature_dimension", Attribute::integer(if_)},
                                        {"input_spatial_dimensions", intArray(is)},
                                        {"kernel_input_feature_dimension", Attribute::integer(ki)},
                                        {"kernel_output_feature_dimension", Attribute::integer(ko)},
                                        {"kernel_spatial_dimensions", intArray(ks)},
                                        {"output_batch_dimension", Attribute::integer(ob)},
                                        {"output_feature_dimension", Attribute::integer(of)},
                                        {"output_spatial_dimensions", intArray(os)}});
}

Tensor modPattern(Type type, int64_t mod, int64_t shift) {
  Tensor t(type);
  for (int64_t i = 0; i < t.numElements(); ++i) t.setFloat(i, static_cast<double>(i % mod - shift));
  return t;
}

TEST(InterpLinalg, ConvolutionWithDilationsPaddingStridesAndFeatureGroups) {
  // lhs = np.arange(100.).reshape(1,4,5,5) % 7 - 3; rhs = np.arange(72.).reshape(6,2,2,3) % 5 - 2
  // lax.conv_general_dilated(lhs, rhs, window_strides=(2,1), padding=((1,0),(2,1)),
  //   lhs_dilation=(1,2), rhs_dilation=(2,1), dimension_numbers=('NCHW','OIHW','NCHW'),
  //   feature_group_count=2)
  Program p({f32Tensor({1, 4, 5, 5}), f32Tensor({6, 2, 2, 3})});
  Value* c = p.body().value("stablehlo.convolution", {p.param(0), p.param(1)}, f32Tensor({1, 6, 2, 10}),
                            {{"window_strides", i64s({2, 1})},
                             {"padding", i64Matrix({1, 0, 2, 1}, 2, 2)},
                             {"lhs_dilation", i64s({1, 2})},
                             {"rhs_dilation", i64s({2, 1})},
                             {"dimension_numbers", convDims(0, 1, {2, 3}, 1, 0, {2, 3}, 0, 1, {2, 3})},
                             {"feature_group_count", Attribute::integer(2)},
                             {"batch_group_count", Attribute::integer(1)}});
  auto out = mustRun(p, {c}, {modPattern(f32Tensor({1, 4, 5, 5}), 7, 3), modPattern(f32Tensor({6, 2, 2, 3}), 5, 2)});
  ASSERT_EQ(out.size(), 1u);
  expectFloats(out[0], {-3, 6,  -6, 6,  8,   -8, 1,  -8, 1,  -8, 1,   -10, -2, -11, 3,  9,  1,  8,  -1, 7,
                        -1, -2, -3, -3, -5,  3,  7,  2,  5,  1,  8,   2,   10, 4,   -12, -1, -6, 1,  -7, 3,
                        6,  0,  5,  3,  -8,  -1, -7, 2,  -6, 5,  -10, -1,  -3, -1,  18, -1, -3, -1, -3, -1,
                        -3, -6, 9,  5,  -6,  2,  -7, -1, -8, 3,  4,   -1,  -12, 4,  10, 2,  11, 0,  -2, -9,
                        3,  0,  -4, 1,  5,   2,  7,  3,  -5, -3, -1,  9,   3,  -11, -2, -10, 0, -9, 9,  6,
                        -6, 6,  8,  -8, 1,   -8, 1,  -8, 8,  6,  -1,  -11, 3,  9,   1,  8,  -1, 7,  -10, 6});
}

TEST(InterpLinalg, ConvolutionWithBatchGroupsAndOtherLayout) {
  // lhs2 = np.arange(18.).reshape(2,3,3) % 5; rhs2 = np.arange(24.).reshape(2,3,4) % 3 - 1
  // lax.conv_general_dilated(lhs2, rhs2, (1,), 'VALID',
  //   dimension_numbers=('NWC','WIO','NWC'), batch_group_count=2)
  Program p({f32Tensor({2, 3, 3}), f32Tensor({2, 3, 4})});
  Value* c = p.body().value("stablehlo.convolution", {p.param(0), p.param(1)}, f32Tensor({1, 2, 4}),
                            {{"dimension_numbers", convDims(0, 2, {1}, 1, 2, {0}, 0, 2, {1})},
                             {"feature_group_count", Attribute::integer(1)},
                             {"batch_group_count", Attribute::integer(2)}});
  auto out = mustRun(p, {c}, {modPattern(f32Tensor({2, 3, 3}), 5, 0), modPattern(f32Tensor({2, 3, 4}), 3, 1)});
  ASSERT_EQ(out.size(), 1u);
  expectFloats(out[0], {-1, 3, 3, -1, -1, 3, -2, 4});
}

TEST(InterpLinalg, ConvolutionWindowReversal) {
  // [1,2,3,4] with kernel [1,10]: 1*x[i] + 10*x[i+1]; reversed, 10*x[i] + x[i+1].
  Program p({f32Tensor({1, 1, 4}), f32Tensor({1, 1, 2})});
  BlockBuilder b = p.body();
  auto conv = [&](bool reversed) {
    return b.value("stablehlo.convolution", {p.param(0), p.param(1)}, f32Tensor({1, 1, 3}),
                   {{"window_reversal", Attribute::denseBoolArray({reversed})},
                    {"dimension_numbers", convDims(0, 1, {2}, 1, 0, {2}, 0, 1, {2})},
                    {"feature_group_count", Attribute::integer(1)},
                    {"batch_group_count", Attribute::integer(1)}});
  };
  Value* plain = conv(false);
  Value* reversed = conv(true);
  auto out = mustRun(p, {plain, reversed}, {floats(f32Tensor({1, 1, 4}), {1, 2, 3, 4}),
                                            floats(f32Tensor({1, 1, 2}), {1, 10})});
  ASSERT_EQ(out.size(), 2u);
  expectFloats(out[0], {21, 32, 43});
  expectFloats(out[1], {12, 23, 34});
}

TEST(InterpLinalg, FftForwardRealAndInverseReal) {
  // z = (np.arange(12).reshape(3,4) % 5 - 2) + 1j*(np.arange(12).reshape(3,4) % 3)
  // np.fft.fft2(z); r = np.arange(12).reshape(3,4) % 5 - 2.; np.fft.rfft2(r)
  Type c64 = Type::tensor({3, 4}, Type::complex(Type::f32()));
  Type rfftOut = Type::tensor({3, 3}, Type::complex(Type::f64()));
  Type real = Type::tensor({3, 4}, Type::f64());
  Program p({c64, real});
  BlockBuilder b = p.body();
  auto fftAttrs = [](const char* kind) {
    return std::vector<NamedAttribute>{{"fft_type", Attribute::enumAttr("fft_type", kind)},
                                       {"fft_length", i64s({3, 4})}};
  };
  Value* f = b.value("stablehlo.fft", {p.param(0)}, c64, fftAttrs("FFT"));
  Value* back = b.value("stablehlo.fft", {f}, c64, fftAttrs("IFFT"));
  Value* rf = b.value("stablehlo.fft", {p.param(1)}, rfftOut, fftAttrs("RFFT"));
  Value* irf = b.value("stablehlo.fft", {rf}, real, fftAttrs("IRFFT"));
  Tensor z(c64), r(real);
  for (int64_t i = 0; i < 12; ++i) {
    z.setComplex(i, {static_cast<double>(i % 5 - 2), static_cast<double>(i % 3)});
    r.setFloat(i, static_cast<double>(i % 5 - 2));
  }
  auto out = mustRun(p, {f, back, rf, irf}, {z, r});
  ASSERT_EQ(out.size(), 4u);
  std::vector<double> wantRe = {-3.0, 4.0, -1.0, 4.0, -2.3660254037844384, 0.8301270189221928, -5.098076211353316,
                                -10.830127018922193, -0.6339745962155614, -7.830127018922193, 0.09807621135331601,
                                -2.1698729810778072};
  std::vector<double> wantIm = {12.0, 1.0, 0.0, -1.0, -0.6339745962155614, -3.098076211353316, -2.8301270189221928,
                                -2.901923788646684, -2.3660254037844384, 2.098076211353316, 5.830127018922193,
                                -8.098076211353316};
  for (int64_t i = 0; i < 12; ++i) {
    EXPECT_NEAR(out[0].getComplex(i).real(), wantRe[i], 1e-5) << i;
    EXPECT_NEAR(out[0].getComplex(i).imag(), wantIm[i], 1e-5) << i;
    EXPECT_NEAR(out[1].getComplex(i).real(), z.getComplex(i).real(), 1e-5) << i;
    EXPECT_NEAR(out[1].getComplex(i).imag(), z.getComplex(i).imag(), 1e-5) << i;
  }
  std::vector<double> rRe = {-3.0, 4.0, -1.0, -1.5, -0.6698729810778072, -2.5, -1.5, -9.330127018922193, -2.5};
  std::vector<double> rIm = {0.0, 1.0, 0.0, 0.8660254037844386, 2.5, -4.330127018922193, -0.8660254037844386, 2.5,
                             4.330127018922193};
  for (int64_t i = 0; i < 9; ++i) {
    EXPECT_NEAR(out[2].getComplex(i).real(), rRe[i], 1e-12) << i;
    EXPECT_NEAR(out[2].getComplex(i).imag(), rIm[i], 1e-12) << i;
  }
  for (int64_t i = 0; i < 12; ++i) EXPECT_NEAR(out[3].getFloat(i), r.getFloat(i), 1e-12) << i;
}

// A = [[2,1,3],[0.5,4,1],[1,2,5]], B = [[1,2],[3,4],[5,6]]; for the right
// side B.T. Only the triangle named by `lower` is read.
std::vector<double> solve(bool leftSide, bool lower, const char* transpose, bool unitDiagonal = false) {
  Type a = Type::tensor({3, 3}, Type::f64());
  Type b = Type::tensor(leftSide ? std::initializer_list<int64_t>{3, 2} : std::initializer_list<int64_t>{2, 3},
                        Type::f64());
  Program p({a, b});
  Value* x = p.body().value("stablehlo.triangular_solve", {p.param(0), p.param(1)}, b,
                            {{"left_side", Attribute::boolean(leftSide)},
                             {"lower", Attribute::boolean(lower)},
                             {"unit_diagonal", Attribute::boolean(unitDiagonal)},
                             {"transpose_a", Attribute::enumAttr("transpose", transpose)}});
  std::vector<double> bValues = leftSide ? std::vector<double>{1, 2, 3, 4, 5, 6} : std::vector<double>{1, 3, 5, 2, 4, 6};
  auto out = mustRun(p, {x}, {floats(a, {2, 1, 3, 0.5, 4, 1, 1, 2, 5}), floats(b, bValues)});
  if (out.size() != 1) return {};
  std::vector<double> values;
  for (int64_t i = 0; i < out[0].numElements(); ++i) values.push_back(out[0].getFloat(i));
  return values;
}

void expectNear(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << "at element " << i;
}

TEST(InterpLinalg, TriangularSolveAllVariants) {
  // jax.lax.linalg.triangular_solve(A, B or B.T, left_side=..., lower=..., transpose_a=...)
  expectNear(solve(true, true, "NO_TRANSPOSE"), {0.5, 1.0, 0.6875, 0.875, 0.625, 0.65});
  expectNear(solve(true, true, "TRANSPOSE"), {-0.0625, 0.3, 0.25, 0.4, 1.0, 1.2});
  expectNear(solve(true, false, "NO_TRANSPOSE"), {-1.25, -1.15, 0.5, 0.7, 1.0, 1.2});
  expectNear(solve(true, false, "TRANSPOSE"), {0.5, 1.0, 0.625, 0.75, 0.575, 0.45});
  expectNear(solve(false, true, "NO_TRANSPOSE"), {-0.0625, 0.25, 1.0, 0.3, 0.4, 1.2});
  expectNear(solve(false, true, "TRANSPOSE"), {0.5, 0.6875, 0.625, 1.0, 0.875, 0.65});
  expectNear(solve(false, false, "NO_TRANSPOSE"), {0.5, 0.625, 0.575, 1.0, 0.75, 0.45});
  expectNear(solve(false, false, "TRANSPOSE"), {-1.25, 0.5, 1.0, -1.15, 0.7, 1.2});
  // ADJOINT of a real matrix is its transpose.
  expectNear(solve(true, true, "ADJOINT"), {-0.0625, 0.3, 0.25, 0.4, 1.0, 1.2});
  expectNear(solve(true, true, "NO_TRANSPOSE", /*unitDiagonal=*/true), {1.0, 2.0, 2.5, 3.0, -1.0, -2.0});
}

// Real matrices are solved in real arithmetic: an infinity stays one (in
// complex arithmetic, inf * (1 + 0i) has a NaN imaginary part that the next
// division spreads into the real one).
TEST(InterpLinalg, RealTriangularSolveKeepsInfinities) {
  Type a = Type::tensor({2, 2}, Type::f64()), b = Type::tensor({2, 1}, Type::f64());
  Program p({a, b});
  Value* x = p.body().value("stablehlo.triangular_solve", {p.param(0), p.param(1)}, b,
                            {{"left_side", Attribute::boolean(true)},
                             {"lower", Attribute::boolean(true)},
                             {"unit_diagonal", Attribute::boolean(false)},
                             {"transpose_a", Attribute::enumAttr("transpose", "NO_TRANSPOSE")}});
  double inf = std::numeric_limits<double>::infinity();
  auto out = mustRun(p, {x}, {floats(a, {1, 0, inf, 2}), floats(b, {1, 1})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].getFloat(0), 1.0);
  EXPECT_EQ(out[0].getFloat(1), -inf);  // (1 - inf * 1) / 2
}

TEST(InterpLinalg, CholeskyLowerAndUpper) {
  // np.linalg.cholesky([[4,2,-2],[2,10,2],[-2,2,5]]); the upper factor is its transpose.
  Type m = Type::tensor({3, 3}, Type::f64());
  Program p({m});
  BlockBuilder b = p.body();
  Value* lower = b.value("stablehlo.cholesky", {p.param(0)}, m, {{"lower", Attribute::boolean(true)}});
  Value* upper = b.value("stablehlo.cholesky", {p.param(0)}, m, {{"lower", Attribute::boolean(false)}});
  auto out = mustRun(p, {lower, upper}, {floats(m, {4, 2, -2, 2, 10, 2, -2, 2, 5})});
  ASSERT_EQ(out.size(), 2u);
  double r3 = std::sqrt(3.0);
  expectFloats(out[0], {2, 0, 0, 1, 3, 0, -1, 1, r3}, 1e-15);
  expectFloats(out[1], {2, 1, -1, 0, 3, 1, 0, 0, r3}, 1e-15);
}

TEST(InterpLinalg, BatchNormTrainingInferenceAndGrad) {
  // x = [[1,2],[2,6],[6,1]], scale = [1.5,-2], offset = [0.25,1], eps = 0.1,
  // feature_index = 1; expected values from jax.vjp of the training-mode
  // normalization with dy = [[1,.5],[-2,3],[.5,1]].
  Type x = Type::tensor({3, 2}, Type::f64()), v = Type::tensor({2}, Type::f64());
  Program p({x, v, v, x});
  BlockBuilder b = p.body();
  std::vector<NamedAttribute> attrs = {{"epsilon", Attribute::floating(0.1, Type::f32())},
                                       {"feature_index", Attribute::integer(1)}};
  Operation* train = b.op("stablehlo.batch_norm_training", {p.param(0), p.param(1), p.param(2)}, {x, v, v}, attrs);
  Value* infer = b.value("stablehlo.batch_norm_inference",
                         {p.param(0), p.param(1), p.param(2), train->result(1), train->result(2)}, x, attrs);
  Operation* grad = b.op("stablehlo.batch_norm_grad",
                         {p.param(0), p.param(1), train->result(1), train->result(2), p.param(3)}, {x, v, v}, attrs);
  auto out = mustRun(p,
                     {train->result(0), train->result(1), train->result(2), infer, grad->result(0), grad->result(1),
                      grad->result(2)},
                     {floats(x, {1, 2, 2, 6, 6, 1}), floats(v, {1.5, -2}), floats(v, {0.25, 1}),
                      floats(x, {1, 0.5, -2, 3, 0.5, 1})});
  ASSERT_EQ(out.size(), 7u);
  // epsilon is an f32 attribute: 0.1f differs from 0.1, hence the tolerance.
  std::vector<double> normalized = {-1.1240858372430336, 1.916057224828689,   -0.4370429186215168,
                                    -1.7481716744860671, 2.3111287558645506, 2.832114449657378};
  expectFloats(out[0], normalized, 1e-7);
  expectFloats(out[1], {3, 3}, 1e-15);
  expectFloats(out[2], {14.0 / 3, 14.0 / 3}, 1e-15);
  expectFloats(out[3], normalized, 1e-7);
  expectFloats(out[4], {0.945684949757589, 0.4996675771792849, -1.1875112451232044, -0.12491689429482111,
                        0.24182629536561545, -0.3747506828844638},
               1e-7);
  expectFloats(out[5], {0.6870429186215168, 2.97718598069324}, 1e-7);
  expectFloats(out[6], {-0.5, 4.5}, 1e-15);
}

TEST(InterpLinalg, DotGeneral256CubedIsFast) {
  // A benchmark-style sanity check: 256x256x256 f32 must take well under a
  // second or two (it takes ~0.1 s in a RelWithDebInfo build).
  Type m = f32Tensor({256, 256});
  Program p({m, m});
  Attribute dn = Attribute::structAttr("dot", {{"lhs_batching_dimensions", intArray({})},
                                               {"rhs_batching_dimensions", intArray({})},
                                               {"lhs_contracting_dimensions", intArray({1})},
                                               {"rhs_contracting_dimensions", intArray({0})}});
  Value* d = p.body().value("stablehlo.dot_general", {p.param(0), p.param(1)}, m, {{"dot_dimension_numbers", dn}});
  Tensor a(m), b(m);
  for (int64_t i = 0; i < a.numElements(); ++i) {
    a.setFloat(i, static_cast<double>(i % 3));  // row r: pattern (256 r + c) % 3
    b.setFloat(i, 0.5);
  }
  auto start = std::chrono::steady_clock::now();
  auto out = mustRun(p, {d}, {a, b});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(out.size(), 1u);
  // Row 0 holds 0,1,2,0,... : 85 ones and 85 twos (and 86 zeros) -> 0.5 * 255.
  EXPECT_EQ(out[0].getFloat(0), 127.5);
  RecordProperty("seconds", std::to_string(seconds));
  EXPECT_LT(seconds, 5.0);
}

// ---- Random numbers ------------------------------------------------------------------

// Runs rng_bit_generator(state) -> (new state, bits of `outType`).
std::vector<Tensor> rngBits(const char* algorithm, std::vector<int64_t> state, Type outType) {
  Type stateType = Type::tensor({static_cast<int64_t>(state.size())}, Type::integer(64, true));
  Program p({stateType});
  Operation* op = p.body().op("stablehlo.rng_bit_generator", {p.param(0)}, {stateType, outType},
                              {{"rng_algorithm", Attribute::enumAttr("rng_algorithm", algorithm)}});
  return mustRun(p, {op->result(0), op->result(1)}, {ints(stateType, state)});
}

void expectBits(const Tensor& t, std::vector<uint64_t> want) {
  ASSERT_EQ(t.numElements(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(t.getUInt(i), want[i]) << "at element " << i;
}

constexpr int64_t kKey = 0x1234567890abcdef;

TEST(InterpRandom, RngBitGeneratorMatchesXlaThreefry) {
  // jax.jit(lambda k: lax.rng_bit_generator(k, shape, dtype=dt,
  //   algorithm=lax.RandomAlgorithm.RNG_THREE_FRY))(np.array([0x1234567890abcdef, 42], np.uint64))
  Type u32 = Type::integer(32, true), u64 = Type::integer(64, true);
  auto out = rngBits("THREE_FRY", {kKey, 42}, Type::tensor({5}, u32));
  ASSERT_EQ(out.size(), 2u);
  expectBits(out[0], {kKey, 45});
  expectBits(out[1], {0xdf4a4776, 0x60c91278, 0x1239028a, 0x64f57cb1, 0x3eee80df});
  out = rngBits("THREE_FRY", {kKey, 42}, Type::tensor({3}, u64));
  expectBits(out[0], {kKey, 45});
  expectBits(out[1], {0x60c91278df4a4776, 0x64f57cb11239028a, 0x2cbe65f13eee80df});
  out = rngBits("THREE_FRY", {kKey, 42}, Type::tensor({3, 3}, u32));
  expectBits(out[0], {kKey, 48});
  expectBits(out[1], {0xdf4a4776, 0x1239028a, 0x3eee80df, 0x60c91278, 0x64f57cb1, 0x2cbe65f1, 0xf8c8909b,
                      0xa9ee0eb7, 0x2f688b7a});
  out = rngBits("THREE_FRY", {kKey, 42}, Type::tensor({3, 1, 2}, u32));
  expectBits(out[0], {kKey, 45});
  expectBits(out[1], {0xdf4a4776, 0x60c91278, 0x1239028a, 0x64f57cb1, 0x3eee80df, 0x2cbe65f1});
  out = rngBits("THREE_FRY", {kKey, 42}, Type::tensor({2}, Type::integer(8, true)));
  expectBits(out[0], {kKey, 43});
  expectBits(out[1], {0x76, 0x78});
  out = rngBits("THREE_FRY", {kKey, 42}, Type::tensor({}, u32));
  expectBits(out[0], {kKey, 43});
  expectBits(out[1], {0xdf4a4776});
}

TEST(InterpRandom, RngBitGeneratorMatchesXlaPhiloxAndDefault) {
  // As above with RNG_PHILOX; RNG_DEFAULT gives the same bits on XLA:CPU.
  Type u32 = Type::integer(32, true), u64 = Type::integer(64, true);
  for (const char* algorithm : {"PHILOX", "DEFAULT"}) {
    auto out = rngBits(algorithm, {kKey, 42}, Type::tensor({5}, u32));
    ASSERT_EQ(out.size(), 2u);
    expectBits(out[0], {kKey, 44});
    expectBits(out[1], {0xa2c66f65, 0xced573ba, 0x9ecd3c02, 0xc82233b6, 0x82832b65});
  }
  auto out = rngBits("PHILOX", {kKey, 42}, Type::tensor({3}, u64));
  expectBits(out[0], {kKey, 44});
  expectBits(out[1], {0xced573baa2c66f65, 0xc82233b69ecd3c02, 0x722c018d82832b65});
  out = rngBits("PHILOX", {kKey, 42}, Type::tensor({3, 3}, u32));
  expectBits(out[0], {kKey, 45});
  expectBits(out[1], {0xa2c66f65, 0xced573ba, 0x9ecd3c02, 0xc82233b6, 0x82832b65, 0x722c018d, 0x888f02c5,
                      0x6c2986b5, 0x9993aba6});
  out = rngBits("PHILOX", {kKey, 42}, Type::tensor({2}, Type::integer(8, true)));
  expectBits(out[0], {kKey, 43});
  expectBits(out[1], {0x65, 0xba});
}

TEST(InterpRandom, RngUniformStaysInRange) {
  Type s = scalarOf(Type::f32()), shape = Type::tensor({1}, Type::si64());
  Program p({s, s, shape});
  Value* r = p.body().value("stablehlo.rng", {p.param(0), p.param(1), p.param(2)}, f32Tensor({1000}),
                            {{"rng_distribution", Attribute::enumAttr("rng_distribution", "UNIFORM")}});
  auto out = mustRun(p, {r}, {floats(s, {2}), floats(s, {3}), ints(shape, {1000})});
  ASSERT_EQ(out.size(), 1u);
  double sum = 0;
  for (int64_t i = 0; i < 1000; ++i) {
    EXPECT_GE(out[0].getFloat(i), 2.0);
    EXPECT_LE(out[0].getFloat(i), 3.0);
    sum += out[0].getFloat(i);
  }
  EXPECT_NEAR(sum / 1000, 2.5, 0.05);
}

TEST(InterpRandom, RngNormalHasTheRequestedMoments) {
  Type s = scalarOf(Type::f64()), shape = Type::tensor({1}, Type::si64());
  Program p({s, s, shape});
  Value* r = p.body().value("stablehlo.rng", {p.param(0), p.param(1), p.param(2)},
                            Type::tensor({4000}, Type::f64()),
                            {{"rng_distribution", Attribute::enumAttr("rng_distribution", "NORMAL")}});
  auto out = mustRun(p, {r}, {floats(s, {5}), floats(s, {2}), ints(shape, {4000})});
  ASSERT_EQ(out.size(), 1u);
  double sum = 0, sumSquares = 0;
  for (int64_t i = 0; i < 4000; ++i) {
    sum += out[0].getFloat(i);
    sumSquares += out[0].getFloat(i) * out[0].getFloat(i);
  }
  double mean = sum / 4000, variance = sumSquares / 4000 - mean * mean;
  EXPECT_NEAR(mean, 5.0, 0.15);
  EXPECT_NEAR(std::sqrt(variance), 2.0, 0.15);
}

// ---- Quantization ----------------------------------------------------------------------

Type quantized(std::vector<double> scales, std::vector<int64_t> zeroPoints, std::optional<int32_t> axis = {}) {
  QuantParams q;
  q.storageType = Type::integer(8);
  q.expressedType = Type::f32();
  q.storageMin = -128;
  q.storageMax = 127;
  q.quantizedDimension = axis;
  q.scales = std::move(scales);
  q.zeroPoints = std::move(zeroPoints);
  return Type::quantized(q);
}

TEST(InterpQuantization, PerTensorQuantizeRoundsToEvenAndClamps) {
  // x / 0.5 - 1 = [1, -1.6, 199, 0.5] -> clamp, round half to even -> [1, -2, 127, 0];
  // dequantized: (q + 1) * 0.5.
  Type qt = Type::tensor({4}, quantized({0.5}, {-1}));
  Program p({f32Tensor({4})});
  BlockBuilder b = p.body();
  Value* q = b.value("stablehlo.uniform_quantize", {p.param(0)}, qt);
  Value* d = b.value("stablehlo.uniform_dequantize", {q}, f32Tensor({4}));
  auto out = mustRun(p, {q, d}, {floats(f32Tensor({4}), {1.0, -0.3, 100.0, 0.75})});
  ASSERT_EQ(out.size(), 2u);
  expectInts(out[0], {1, -2, 127, 0});
  expectFloats(out[1], {1.0, -0.5, 64.0, 0.5});
}

TEST(InterpQuantization, PerAxisQuantize) {
  // Column 0: scale 0.5, zero point 0; column 1: scale 2, zero point 1.
  Type qt = Type::tensor({2, 2}, quantized({0.5, 2.0}, {0, 1}, 1));
  Program p({f32Tensor({2, 2})});
  Value* q = p.body().value("stablehlo.uniform_quantize", {p.param(0)}, qt);
  auto out = mustRun(p, {q}, {floats(f32Tensor({2, 2}), {1, 4, -1, 5})});
  ASSERT_EQ(out.size(), 1u);
  expectInts(out[0], {2, 3, -2, 4});
}

TEST(InterpQuantization, RequantizeGoesThroughTheExpressedValue) {
  // [4, -3] at scale 0.5 are [2, -1.5]; at scale 0.25, zero point 1: [9, -5].
  Type from = Type::tensor({2}, quantized({0.5}, {0})), to = Type::tensor({2}, quantized({0.25}, {1}));
  Program p({from});
  Value* q = p.body().value("stablehlo.uniform_quantize", {p.param(0)}, to);
  auto out = mustRun(p, {q}, {ints(from, {4, -3})});
  ASSERT_EQ(out.size(), 1u);
  expectInts(out[0], {9, -5});
}

// ---- custom_call ---------------------------------------------------------------------------

TEST(InterpCustomCall, ShardingIsIdentityAndUnknownTargetsAreNamed) {
  Program p({f32Tensor({2})});
  BlockBuilder b = p.body();
  Value* same = b.value("stablehlo.custom_call", {p.param(0)}, f32Tensor({2}),
                        {{"call_target_name", Attribute::string("Sharding")}});
  auto out = mustRun(p, {same}, {floats(f32Tensor({2}), {1, 2})});
  ASSERT_EQ(out.size(), 1u);
  expectFloats(out[0], {1, 2});

  Program q({f32Tensor({2})});
  Value* unknown = q.body().value("stablehlo.custom_call", {q.param(0)}, f32Tensor({2}),
                                  {{"call_target_name", Attribute::string("my_kernel")}});
  auto r = q.run({unknown}, {floats(f32Tensor({2}), {1, 2})});
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.status().message().find("@my_kernel"), std::string::npos) << r.status().message();
}

TEST(InterpCustomCall, LapackLuFactorization) {
  // [[1,2],[3,4]]: row 2 has the larger pivot, so P swaps the rows;
  // L = [[1,0],[1/3,1]], U = [[3,4],[0,2/3]]; LAPACK pivots are 1-based.
  Type m = Type::tensor({2, 2}, Type::f64());
  Program p({m});
  Operation* lu = p.body().op("stablehlo.custom_call", {p.param(0)},
                              {m, Type::tensor({2}, Type::si32()), scalarOf(Type::si32())},
                              {{"call_target_name", Attribute::string("lapack_dgetrf_ffi")}});
  auto out = mustRun(p, {lu->result(0), lu->result(1), lu->result(2)}, {floats(m, {1, 2, 3, 4})});
  ASSERT_EQ(out.size(), 3u);
  expectFloats(out[0], {3, 4, 1.0 / 3, 2.0 / 3}, 1e-15);
  expectInts(out[1], {2, 2});
  expectInts(out[2], {0});
}

// geqrf then orgqr follow LAPACK's conventions, so Q and R are LAPACK's:
// the expected values are NumPy's np.linalg.qr (LAPACK dgeqrf + dorgqr).
TEST(InterpCustomCall, LapackQrMatchesLapacksConventions) {
  Type m = Type::tensor({4, 3}, Type::f64()), tau = Type::tensor({3}, Type::f64());
  Program p({m});
  Operation* qr = p.body().op("stablehlo.custom_call", {p.param(0)}, {m, tau},
                              {{"call_target_name", Attribute::string("lapack_dgeqrf_ffi")}});
  Value* q = p.body().value("stablehlo.custom_call", {qr->result(0), qr->result(1)}, m,
                            {{"call_target_name", Attribute::string("lapack_dorgqr_ffi")}});
  auto out = mustRun(p, {qr->result(0), q}, {floats(m, {2, -1, 0, 1, 3, 1, 0, 1, 4, 1, 0, -2})});
  ASSERT_EQ(out.size(), 2u);
  // R is the upper triangle of geqrf's result.
  std::vector<double> r = {-2.44948974, -0.40824829, 0.40824829, -3.29140294, -2.17738964, -4.01152187};
  std::vector<double> upper;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = i; j < 3; ++j) upper.push_back(out[0].getFloat(i * 3 + j));
  for (size_t k = 0; k < r.size(); ++k) EXPECT_NEAR(upper[k], r[k], 1e-8) << "R entry " << k;
  expectFloats(out[1], {-0.81649658, 0.40509575, -0.30297345, -0.40824829, -0.86082846, 0.17641492, 0.0, -0.30382181,
                        -0.83221821, -0.40824829, 0.05063697, 0.42953198},
               1e-8);
}

// syevd: eigenvalues ascending, orthonormal eigenvectors in the columns
// (A v = w v), each with its largest entry positive; read from one triangle.
TEST(InterpCustomCall, LapackSymmetricEigen) {
  Type m = Type::tensor({3, 3}, Type::f64());
  for (char uplo : {'L', 'U'}) {
    Program p({m});
    Attribute config = Attribute::dictionary({{"uplo", Attribute::integer(uplo, Type::integer(8, true))}, {"mode", Attribute::integer('V', Type::integer(8, true))}});
    Operation* eig = p.body().op("stablehlo.custom_call", {p.param(0)},
                                 {m, Type::tensor({3}, Type::f64()), scalarOf(Type::si32())},
                                 {{"call_target_name", Attribute::string("lapack_dsyevd_ffi")}, {"mhlo.backend_config", config}});
    // [[2,1,0],[1,2,0],[0,0,5]] (the other triangle garbage): eigenvalues 1, 3, 5.
    std::vector<double> a = uplo == 'L' ? std::vector<double>{2, 9, 9, 1, 2, 9, 0, 0, 5} : std::vector<double>{2, 1, 0, 9, 2, 0, 9, 9, 5};
    auto out = mustRun(p, {eig->result(0), eig->result(1), eig->result(2)}, {floats(m, a)});
    ASSERT_EQ(out.size(), 3u);
    expectFloats(out[1], {1, 3, 5}, 1e-14);
    double h = std::sqrt(0.5);
    // v1 = (1, -1, 0)/sqrt2 (largest entry positive: the first), v3 = (1, 1, 0)/sqrt2, v5 = e3.
    expectFloats(out[0], {h, h, 0, -h, h, 0, 0, 0, 1}, 1e-14);
    expectInts(out[2], {0});
  }
}

// gesdd: singular values descending, U and V^T orthonormal and full
// (mode 'A') or thin (mode 'S'), U diag(s) V^T = a, for tall and wide a.
TEST(InterpCustomCall, LapackSingularValueDecomposition) {
  for (auto [rows, cols, full] : {std::tuple{4, 3, true}, std::tuple{4, 3, false}, std::tuple{2, 5, true}, std::tuple{2, 5, false}}) {
    int64_t k = std::min(rows, cols);
    Type m = Type::tensor({rows, cols}, Type::f64());
    Type u = Type::tensor({rows, full ? rows : k}, Type::f64()), vt = Type::tensor({full ? cols : k, cols}, Type::f64());
    Program p({m});
    Attribute config = Attribute::dictionary({{"mode", Attribute::integer(full ? 'A' : 'S', Type::integer(8, true))}});
    Operation* svd = p.body().op("stablehlo.custom_call", {p.param(0)},
                                 {m, Type::tensor({k}, Type::f64()), u, vt, scalarOf(Type::si32())},
                                 {{"call_target_name", Attribute::string("lapack_dgesdd_ffi")}, {"mhlo.backend_config", config}});
    std::vector<double> a;
    for (int64_t i = 0; i < rows * cols; ++i) a.push_back(std::sin(1.0 + 3.0 * double(i)));
    auto out = mustRun(p, {svd->result(1), svd->result(2), svd->result(3), svd->result(4)}, {floats(m, a)});
    ASSERT_EQ(out.size(), 4u);
    const Tensor &s = out[0], &U = out[1], &VT = out[2];
    for (int64_t i = 0; i + 1 < k; ++i) EXPECT_GE(s.getFloat(i), s.getFloat(i + 1));
    int64_t uCols = u.shape()[1], vtRows = vt.shape()[0];
    for (int64_t i = 0; i < uCols; ++i)
      for (int64_t j = 0; j < uCols; ++j) {
        double dot = 0;
        for (int64_t r = 0; r < rows; ++r) dot += U.getFloat(r * uCols + i) * U.getFloat(r * uCols + j);
        EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, 1e-13) << "U columns " << i << ", " << j;
      }
    for (int64_t i = 0; i < vtRows; ++i)
      for (int64_t j = 0; j < vtRows; ++j) {
        double dot = 0;
        for (int64_t c = 0; c < cols; ++c) dot += VT.getFloat(i * cols + c) * VT.getFloat(j * cols + c);
        EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, 1e-13) << "V^T rows " << i << ", " << j;
      }
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        double sum = 0;
        for (int64_t t = 0; t < k; ++t) sum += U.getFloat(i * uCols + t) * s.getFloat(t) * VT.getFloat(t * cols + j);
        EXPECT_NEAR(sum, a[i * cols + j], 1e-13) << "element " << i << ", " << j;
      }
    expectInts(out[3], {0});
  }
}

// ---- chlo special functions ------------------------------------------------------------------

// Runs unary or binary chlo op `name` on f64 operands.
std::vector<double> runSpecial(const std::string& name, const std::vector<std::vector<double>>& operands) {
  Type t = Type::tensor({int64_t(operands[0].size())}, Type::f64());
  Program p(std::vector<Type>(operands.size(), t));
  std::vector<Value*> args;
  for (size_t i = 0; i < operands.size(); ++i) args.push_back(p.param(i));
  Value* r = p.body().value(name, args, t);
  std::vector<Tensor> inputs;
  for (const auto& values : operands) inputs.push_back(floats(t, values));
  auto out = mustRun(p, {r}, inputs);
  std::vector<double> values;
  for (int64_t i = 0; i < out[0].numElements(); ++i) values.push_back(out[0].getFloat(i));
  return values;
}

// Expected values from SciPy (scipy.special.digamma, i1e, zeta, polygamma in
// double); poles and domain errors as XLA:CPU returns them.
TEST(InterpChlo, SpecialFunctions) {
  const double nan = std::nan(""), inf = INFINITY;
  auto near = [](const std::vector<double>& got, const std::vector<double>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      if (std::isnan(want[i]) || std::isinf(want[i])) {
        EXPECT_TRUE(std::isnan(want[i]) ? std::isnan(got[i]) : got[i] == want[i]) << "element " << i << ": " << got[i];
        continue;
      }
      EXPECT_NEAR(got[i], want[i], 4e-15 * std::max(1.0, std::abs(want[i]))) << "element " << i;
    }
  };
  // digamma(x) = d/dx ln Gamma(x): -gamma at 1, the reflection below 1/2, NaN at the poles.
  near(runSpecial("chlo.digamma", {{1, 0.5, -2.5, 7.3, 1e-8, 0, -0.0, -3, inf, -inf}}),
       {-0.5772156649015329, -1.9635100260214235, 1.1031566406452433, 1.917820335637986, -100000000.57721564, nan,
        nan, nan, inf, nan});
  // e^-|x| I1(x), odd: both sides of the series/asymptotic switch at 30.
  near(runSpecial("chlo.bessel_i1e", {{1, 40, -3, 29.9, 30.1, 0, inf}}),
       {0.2079104153497085, 0.06248222907444206, -0.19682671329730084, 0.0720333749118688, 0.07179985435101434, 0, 0});
  // Hurwitz zeta: pi^2/6, 7 zeta(3) at q = 1/2, a pole term at q = -1 (+inf for
  // even x, NaN for odd), x = 1, x < 1, a fractional power of a negative q.
  near(runSpecial("chlo.zeta", {{2, 3, 3.5, 50, 2, 3, 1, 0.5, 2.5}, {1, 0.5, 0.25, 2, -1, -1, 1, 1, -1.5}}),
       {1.6449340668482264, 8.41439832211716, 128.54695896428433, 8.881784210930816e-16, inf, nan, inf, nan, nan});
  // polygamma(n, x): digamma at n = 0, -14 zeta(3) at (2, 1/2), NaN for a
  // fractional or negative n.
  near(runSpecial("chlo.polygamma", {{0, 1, 2, 4, 1.5, -1}, {1, 1, 0.5, 3.3, 2, 2}}),
       {-0.5772156649015329, 1.6449340668482264, -16.828796644234316, -0.08856528474121479, nan, nan});
}

}  // namespace
}  // namespace kiln::interp
