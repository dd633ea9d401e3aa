// The type rules of the ops: result inference (checked against the
// examples of the StableHLO specification) and rejection of ops that break a
// numbered constraint, through the builder entry point inferOrCheckResultTypes.
#include <gtest/gtest.h>

#include <cstring>

#include "kiln/ir/ir.h"
#include "kiln/ir/op_registry.h"

namespace kiln {
namespace {

Type f32() { return Type::f32(); }
Type i64() { return Type::si64(); }
Type tensor(std::initializer_list<int64_t> shape, Type e) { return Type::tensor(shape, e); }

// `[0, 1]` inside a #stablehlo.* struct.
Attribute intArray(std::vector<int64_t> v) {
  std::vector<Attribute> elements;
  for (int64_t x : v) elements.push_back(Attribute::integer(x));
  return Attribute::array(std::move(elements));
}

// `dense<...> : tensor<...xi64>`.
Attribute denseI64(std::initializer_list<int64_t> shape, std::vector<int64_t> values) {
  std::vector<uint8_t> bytes(values.size() * 8);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return Attribute::dense(Type::tensor(shape, i64()), std::move(bytes));
}

// Builds ops on values of given types and runs their type rule.
class TypeRules : public ::testing::Test {
 protected:
  Block block_;

  Value* value(Type t) { return block_.addArgument(t); }

  OperationState state(const char* name, std::vector<Type> operandTypes, std::vector<NamedAttribute> attrs = {}) {
    OperationState st(name);
    for (Type t : operandTypes) st.operands.push_back(value(t));
    st.attributes = AttrDict(std::move(attrs));
    return st;
  }

  // A region `^bb0(args): <op>(args...) ; return` where the body applies
  // `bodyOp` to the block arguments (pairwise for reductions) and returns it;
  // with a null bodyOp it returns `returned` block arguments as they are.
  static void addRegion(OperationState& st, std::vector<Type> args, const char* bodyOp,
                        std::vector<NamedAttribute> bodyAttrs = {}, std::vector<unsigned> returned = {}) {
    Block* b = st.addRegion()->addBlock();
    for (Type t : args) b->addArgument(t);
    std::vector<Value*> results;
    if (bodyOp) {
      OperationState op(bodyOp);
      op.operands = {b->argument(0), b->argument(1)};
      op.attributes = AttrDict(std::move(bodyAttrs));
      EXPECT_TRUE(inferOrCheckResultTypes(op).isOk());
      results.push_back(b->push_back(Operation::create(std::move(op)))->result());
    }
    for (unsigned i : returned) results.push_back(b->argument(i));
    OperationState ret("stablehlo.return");
    ret.operands = results;
    b->push_back(Operation::create(std::move(ret)));
  }

  // Inferred result types, or the error message.
  static Expected<std::vector<Type>> infer(OperationState& st) {
    Status s = inferOrCheckResultTypes(st);
    if (!s.isOk()) return s;
    return st.resultTypes;
  }
  static std::string errorOf(OperationState& st) {
    Status s = inferOrCheckResultTypes(st);
    return s.isOk() ? "<no error>" : s.diag().message;
  }
};

::testing::AssertionResult infers(Expected<std::vector<Type>> got, std::vector<Type> want) {
  if (!got) return ::testing::AssertionFailure() << got.status().message();
  if (*got == want) return ::testing::AssertionSuccess();
  std::string s;
  for (Type t : *got) s += t.str() + " ";
  return ::testing::AssertionFailure() << "inferred " << s;
}

TEST_F(TypeRules, EveryOpOfTheSpecIsRegistered) {
  for (const char* name : {"stablehlo.abs", "stablehlo.dot_general", "stablehlo.while", "stablehlo.xor",
                           "stablehlo.collective_broadcast", "stablehlo.uniform_quantize", "stablehlo.return",
                           "check.expect_eq", "check.expect_serialized_eq"})
    EXPECT_NE(lookupOpDef(name), nullptr) << name;
  size_t stablehlo = 0;
  for (const OpDef* d : allOpDefs()) stablehlo += d->name.starts_with("stablehlo.") && !d->has(kLegalized);
  // 108 ops of the spec, stablehlo.return, and the dialect's dynamism ops
  // outside the spec (real_dynamic_slice, set_dimension_size); the
  // deprecated ops (kLegalized) are counted apart.
  EXPECT_EQ(stablehlo, 111u);
  EXPECT_TRUE(lookupOpDef("stablehlo.add")->has(kCommutative));
  EXPECT_TRUE(lookupOpDef("stablehlo.return")->has(kTerminator));
}

TEST_F(TypeRules, ElementwiseBinaryKeepsTheOperandType) {
  OperationState add = state("stablehlo.add", {tensor({2, 2}, f32()), tensor({2, 2}, f32())});
  EXPECT_TRUE(infers(infer(add), {tensor({2, 2}, f32())}));

  OperationState mismatch = state("stablehlo.add", {tensor({2, 2}, f32()), tensor({2, 3}, f32())});
  EXPECT_EQ(errorOf(mismatch),
            "'stablehlo.add' op expects lhs and rhs to have the same type, got tensor<2x2xf32> and tensor<2x3xf32>");

  OperationState shiftFloat = state("stablehlo.shift_left", {tensor({2}, f32()), tensor({2}, f32())});
  EXPECT_EQ(errorOf(shiftFloat),
            "'stablehlo.shift_left' op expects lhs to be a tensor of integer type, got tensor<2xf32>");
}

TEST_F(TypeRules, DeclaredResultsAreCheckedAgainstTheInference) {
  OperationState add = state("stablehlo.add", {tensor({2}, f32()), tensor({2}, f32())});
  add.resultTypes = {tensor({2}, Type::f64())};
  EXPECT_EQ(errorOf(add),
            "'stablehlo.add' op result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>");
}

TEST_F(TypeRules, UnaryOpsFollowTheSpecTables) {
  OperationState absComplex = state("stablehlo.abs", {tensor({3}, Type::complex(f32()))});
  EXPECT_TRUE(infers(infer(absComplex), {tensor({3}, f32())}));

  OperationState sqrtInt = state("stablehlo.sqrt", {tensor({3}, i64())});
  EXPECT_EQ(errorOf(sqrtInt),
            "'stablehlo.sqrt' op expects operand to be a tensor of floating-point or complex type or per-tensor "
            "quantized tensor, got tensor<3xi64>");

  OperationState isFinite = state("stablehlo.is_finite", {tensor({7}, Type::f64())});
  EXPECT_TRUE(infers(infer(isFinite), {tensor({7}, Type::i1())}));

  OperationState precision = state("stablehlo.reduce_precision", {tensor({6}, Type::f64())},
                                   {{"exponent_bits", Attribute::integer(0, Type::si32())},
                                    {"mantissa_bits", Attribute::integer(10, Type::si32())}});
  EXPECT_EQ(errorOf(precision), "'stablehlo.reduce_precision' op expects exponent_bits >= 1, got 0");
}

TEST_F(TypeRules, QuantizedResultsMayChangeScale) {
  QuantParams q{Type::integer(8), f32(), -128, 127, std::nullopt, {0.5}, {0}};
  QuantParams q2 = q;
  q2.scales = {0.25};
  Type a = tensor({2}, Type::quantized(q)), b = tensor({2}, Type::quantized(q2));
  OperationState add = state("stablehlo.add", {a, a});
  add.resultTypes = {b};  // baseline_type(lhs) = baseline_type(result)
  EXPECT_TRUE(infers(infer(add), {b}));

  OperationState dequantize = state("stablehlo.uniform_dequantize", {a});
  EXPECT_TRUE(infers(infer(dequantize), {tensor({2}, f32())}));
}

TEST_F(TypeRules, AddTakesPerAxisQuantizedOperands) {
  QuantParams perTensor{Type::integer(8), f32(), -128, 127, std::nullopt, {0.5}, {0}};
  QuantParams perAxis{Type::integer(8), f32(), -128, 127, 0, {0.5, 0.25}, {0, 0}};
  Type t = tensor({2}, Type::quantized(perTensor)), a = tensor({2}, Type::quantized(perAxis));
  OperationState ok = state("stablehlo.add", {a, t});
  ok.resultTypes = {a};  // (C5), (C6): per-axis along dimension 0 like lhs
  EXPECT_TRUE(inferOrCheckResultTypes(ok).isOk());
  OperationState perTensorResult = state("stablehlo.add", {a, t});
  perTensorResult.resultTypes = {t};
  EXPECT_EQ(errorOf(perTensorResult),
            "'stablehlo.add' op expects the result to be per-axis quantized exactly when an operand is");
  // Other binary ops take per-tensor quantization only.
  OperationState multiply = state("stablehlo.multiply", {a, a});
  EXPECT_NE(errorOf(multiply).find("per-tensor quantized tensor"), std::string::npos);
}

TEST_F(TypeRules, ReductionBodiesMayWidenTheElementType) {
  // is_promotable(ui8, i32): integers promote across signedness to a wider type.
  OperationState reduce = state("stablehlo.reduce", {tensor({4}, Type::integer(8, true)), tensor({}, Type::integer(8, true))},
                                {{"dimensions", Attribute::denseI64Array({0})}});
  addRegion(reduce, {tensor({}, Type::si32()), tensor({}, Type::si32())}, "stablehlo.add");
  EXPECT_TRUE(infers(infer(reduce), {tensor({}, Type::si32())}));
}

TEST_F(TypeRules, CompareGivesBooleansAndChecksCompareType) {
  auto dir = Attribute::enumAttr("comparison_direction", "LT");
  OperationState cmp = state("stablehlo.compare", {tensor({2}, f32()), tensor({2}, f32())},
                             {{"comparison_direction", dir}});
  EXPECT_TRUE(infers(infer(cmp), {tensor({2}, Type::i1())}));

  OperationState wrongType = state("stablehlo.compare", {tensor({2}, f32()), tensor({2}, f32())},
                                   {{"comparison_direction", dir},
                                    {"compare_type", Attribute::enumAttr("comparison_type", "SIGNED")}});
  EXPECT_EQ(errorOf(wrongType), "'stablehlo.compare' op expects compare_type SIGNED to suit element type f32");
}

TEST_F(TypeRules, SelectAndClampAcceptScalarsOrMatchingShapes) {
  OperationState select = state("stablehlo.select", {tensor({}, Type::i1()), tensor({2}, f32()), tensor({2}, f32())});
  EXPECT_TRUE(infers(infer(select), {tensor({2}, f32())}));
  OperationState badPred = state("stablehlo.select", {tensor({3}, Type::i1()), tensor({2}, f32()), tensor({2}, f32())});
  EXPECT_NE(errorOf(badPred).find("expects pred to be 0-dimensional"), std::string::npos);

  OperationState clamp = state("stablehlo.clamp", {tensor({}, f32()), tensor({3}, f32()), tensor({3}, f32())});
  EXPECT_TRUE(infers(infer(clamp), {tensor({3}, f32())}));
}

TEST_F(TypeRules, ResultsThatCannotBeInferredMustBeDeclared) {
  OperationState iota = state("stablehlo.iota", {}, {{"iota_dimension", Attribute::integer(0)}});
  EXPECT_EQ(errorOf(iota), "'stablehlo.iota' op requires explicit result types (they cannot be inferred)");
  iota.resultTypes = {tensor({4, 5}, Type::si32())};
  EXPECT_TRUE(inferOrCheckResultTypes(iota).isOk());

  OperationState iotaOutOfRange = state("stablehlo.iota", {}, {{"iota_dimension", Attribute::integer(2)}});
  iotaOutOfRange.resultTypes = {tensor({4, 5}, Type::si32())};
  EXPECT_EQ(errorOf(iotaOutOfRange), "'stablehlo.iota' op expects iota_dimension to be in [0, 2), got 2");

  OperationState reshape = state("stablehlo.reshape", {tensor({2, 3}, f32())});
  reshape.resultTypes = {tensor({4}, f32())};
  EXPECT_NE(errorOf(reshape).find("same number of elements"), std::string::npos);
}

TEST_F(TypeRules, BroadcastInDim) {
  // The spec's example: [1, 3] -> [2, 3, 2] with broadcast_dimensions [2, 1].
  OperationState ok = state("stablehlo.broadcast_in_dim", {tensor({1, 3}, f32())},
                            {{"broadcast_dimensions", Attribute::denseI64Array({2, 1})}});
  ok.resultTypes = {tensor({2, 3, 2}, f32())};
  EXPECT_TRUE(inferOrCheckResultTypes(ok).isOk());

  OperationState bad = state("stablehlo.broadcast_in_dim", {tensor({3}, f32())},
                             {{"broadcast_dimensions", Attribute::denseI64Array({0})}});
  bad.resultTypes = {tensor({2, 3}, f32())};
  EXPECT_EQ(errorOf(bad),
            "'stablehlo.broadcast_in_dim' op expects operand dimension 0 (size 3) to be 1 or to match result "
            "dimension 0 (size 2)");
}

TEST_F(TypeRules, ShapeOpsInferTheirResults) {
  OperationState transpose = state("stablehlo.transpose", {tensor({2, 3, 4}, f32())},
                                   {{"permutation", Attribute::denseI64Array({2, 0, 1})}});
  EXPECT_TRUE(infers(infer(transpose), {tensor({4, 2, 3}, f32())}));
  OperationState notPermutation = state("stablehlo.transpose", {tensor({2, 3}, f32())},
                                        {{"permutation", Attribute::denseI64Array({0, 0})}});
  EXPECT_EQ(errorOf(notPermutation),
            "'stablehlo.transpose' op expects permutation to be a permutation of [0, 2), got [0, 0]");

  // slice: [3, 4][1:3, 2:4:3] -> [2, 1] (ceil(2 / 3) = 1).
  OperationState slice = state("stablehlo.slice", {tensor({3, 4}, i64())},
                               {{"start_indices", Attribute::denseI64Array({1, 2})},
                                {"limit_indices", Attribute::denseI64Array({3, 4})},
                                {"strides", Attribute::denseI64Array({1, 3})}});
  EXPECT_TRUE(infers(infer(slice), {tensor({2, 1}, i64())}));

  OperationState concat = state("stablehlo.concatenate", {tensor({3, 2}, i64()), tensor({1, 2}, i64())},
                                {{"dimension", Attribute::integer(0)}});
  EXPECT_TRUE(infers(infer(concat), {tensor({4, 2}, i64())}));

  // The spec's pad example: [2, 3] -> [5, 9].
  OperationState pad = state("stablehlo.pad", {tensor({2, 3}, Type::si32()), tensor({}, Type::si32())},
                             {{"edge_padding_low", Attribute::denseI64Array({0, 1})},
                              {"edge_padding_high", Attribute::denseI64Array({2, 1})},
                              {"interior_padding", Attribute::denseI64Array({1, 2})}});
  EXPECT_TRUE(infers(infer(pad), {tensor({5, 9}, Type::si32())}));

  OperationState dynamicSlice = state("stablehlo.dynamic_slice", {tensor({4, 4}, Type::si32()), tensor({}, i64()),
                                                                  tensor({}, i64())},
                                      {{"slice_sizes", Attribute::denseI64Array({2, 2})}});
  EXPECT_TRUE(infers(infer(dynamicSlice), {tensor({2, 2}, Type::si32())}));
  OperationState tooBig = state("stablehlo.dynamic_slice", {tensor({4, 4}, Type::si32()), tensor({}, i64()),
                                                            tensor({}, i64())},
                                {{"slice_sizes", Attribute::denseI64Array({2, 5})}});
  EXPECT_NE(errorOf(tooBig).find("0 <= slice_sizes <= shape(operand)"), std::string::npos);
}

TEST_F(TypeRules, DotGeneral) {
  auto dims = [](std::vector<int64_t> lb, std::vector<int64_t> rb, std::vector<int64_t> lc, std::vector<int64_t> rc) {
    return Attribute::structAttr("dot", {{"lhs_batching_dimensions", intArray(lb)},
                                         {"rhs_batching_dimensions", intArray(rb)},
                                         {"lhs_contracting_dimensions", intArray(lc)},
                                         {"rhs_contracting_dimensions", intArray(rc)}});
  };
  OperationState batched = state("stablehlo.dot_general", {tensor({2, 3, 4}, f32()), tensor({2, 4, 5}, f32())},
                                 {{"dot_dimension_numbers", dims({0}, {0}, {2}, {1})}});
  EXPECT_TRUE(infers(infer(batched), {tensor({2, 3, 5}, f32())}));

  OperationState sizes = state("stablehlo.dot_general", {tensor({3, 4}, f32()), tensor({4, 4}, f32())},
                               {{"dot_dimension_numbers", dims({}, {}, {1}, {0, 1})}});
  EXPECT_EQ(errorOf(sizes),
            "'stablehlo.dot_general' op expects lhs_contracting_dimensions and rhs_contracting_dimensions to have "
            "the same size, got 1 and 2");

  OperationState mismatch = state("stablehlo.dot_general", {tensor({3, 4}, f32()), tensor({5, 6}, f32())},
                                  {{"dot_dimension_numbers", dims({}, {}, {1}, {0})}});
  EXPECT_NE(errorOf(mismatch).find("expects contracting dimensions to have the same sizes"), std::string::npos);

  // A wider declared element type (preferred_element_type) is accepted.
  OperationState wider = state("stablehlo.dot_general", {tensor({3, 4}, Type::element(TypeKind::BF16)),
                                                         tensor({4, 5}, Type::element(TypeKind::BF16))},
                               {{"dot_dimension_numbers", dims({}, {}, {1}, {0})}});
  wider.resultTypes = {tensor({3, 5}, f32())};
  EXPECT_TRUE(inferOrCheckResultTypes(wider).isOk());
}

TEST_F(TypeRules, ConvolutionOfTheSpecExample) {
  auto dn = Attribute::structAttr("conv", {{"input_batch_dimension", Attribute::integer(0)},
                                           {"input_feature_dimension", Attribute::integer(3)},
                                           {"input_spatial_dimensions", intArray({1, 2})},
                                           {"kernel_input_feature_dimension", Attribute::integer(2)},
                                           {"kernel_output_feature_dimension", Attribute::integer(3)},
                                           {"kernel_spatial_dimensions", intArray({0, 1})},
                                           {"output_batch_dimension", Attribute::integer(0)},
                                           {"output_feature_dimension", Attribute::integer(3)},
                                           {"output_spatial_dimensions", intArray({1, 2})}});
  std::vector<NamedAttribute> attrs = {{"window_strides", Attribute::denseI64Array({4, 4})},
                                       {"padding", denseI64({2, 2}, {0, 0, 0, 0})},
                                       {"lhs_dilation", Attribute::denseI64Array({2, 2})},
                                       {"rhs_dilation", Attribute::denseI64Array({1, 1})},
                                       {"dimension_numbers", dn},
                                       {"feature_group_count", Attribute::integer(1)},
                                       {"batch_group_count", Attribute::integer(1)}};
  OperationState conv = state("stablehlo.convolution", {tensor({1, 4, 4, 1}, i64()), tensor({3, 3, 1, 1}, i64())}, attrs);
  EXPECT_TRUE(infers(infer(conv), {tensor({1, 2, 2, 1}, i64())}));

  OperationState features = state("stablehlo.convolution", {tensor({1, 4, 4, 2}, i64()), tensor({3, 3, 1, 1}, i64())},
                                  attrs);
  EXPECT_NE(errorOf(features).find("expects the kernel input feature size 1 to be the input feature size 2"),
            std::string::npos);
}

TEST_F(TypeRules, ReduceInfersFromItsBody) {
  OperationState reduce = state("stablehlo.reduce", {tensor({1, 6}, i64()), tensor({}, i64())},
                                {{"dimensions", Attribute::denseI64Array({1})}});
  addRegion(reduce, {tensor({}, i64()), tensor({}, i64())}, "stablehlo.add");
  EXPECT_TRUE(infers(infer(reduce), {tensor({1}, i64())}));

  OperationState badBody = state("stablehlo.reduce", {tensor({1, 6}, i64()), tensor({}, i64())},
                                 {{"dimensions", Attribute::denseI64Array({1})}});
  addRegion(badBody, {tensor({}, f32()), tensor({}, f32())}, "stablehlo.add");
  EXPECT_NE(errorOf(badBody).find("i64 is not promotable to f32"), std::string::npos);

  OperationState repeated = state("stablehlo.reduce", {tensor({1, 6}, i64()), tensor({}, i64())},
                                  {{"dimensions", Attribute::denseI64Array({1, 1})}});
  addRegion(repeated, {tensor({}, i64()), tensor({}, i64())}, "stablehlo.add");
  EXPECT_EQ(errorOf(repeated), "'stablehlo.reduce' op expects dimensions to be unique, got [1, 1]");
}

TEST_F(TypeRules, ReduceWindowOfTheSpecExample) {
  OperationState rw = state("stablehlo.reduce_window", {tensor({3, 2}, i64()), tensor({}, i64())},
                            {{"window_dimensions", Attribute::denseI64Array({2, 1})},
                             {"window_strides", Attribute::denseI64Array({4, 1})},
                             {"base_dilations", Attribute::denseI64Array({2, 1})},
                             {"window_dilations", Attribute::denseI64Array({3, 1})},
                             {"padding", denseI64({2, 2}, {2, 1, 0, 0})}});
  addRegion(rw, {tensor({}, i64()), tensor({}, i64())}, "stablehlo.add");
  EXPECT_TRUE(infers(infer(rw), {tensor({2, 2}, i64())}));
}

TEST_F(TypeRules, GatherAndScatterOfTheSpecExamples) {
  auto gdn = Attribute::structAttr("gather", {{"offset_dims", intArray({3, 4})},
                                              {"collapsed_slice_dims", intArray({1})},
                                              {"operand_batching_dims", intArray({0})},
                                              {"start_indices_batching_dims", intArray({1})},
                                              {"start_index_map", intArray({2, 1})},
                                              {"index_vector_dim", Attribute::integer(3)}});
  OperationState gather = state("stablehlo.gather", {tensor({2, 3, 4, 2}, Type::si32()), tensor({2, 2, 3, 2}, i64())},
                                {{"dimension_numbers", gdn},
                                 {"slice_sizes", Attribute::denseI64Array({1, 1, 2, 2})}});
  EXPECT_TRUE(infers(infer(gather), {tensor({2, 2, 3, 2, 2}, Type::si32())}));

  OperationState wideSlice = state("stablehlo.gather", {tensor({2, 3, 4, 2}, Type::si32()), tensor({2, 2, 3, 2}, i64())},
                                   {{"dimension_numbers", gdn},
                                    {"slice_sizes", Attribute::denseI64Array({1, 2, 2, 2})}});
  EXPECT_NE(errorOf(wideSlice).find("slice_sizes of collapsed and batching dimensions to be at most 1"),
            std::string::npos);

  auto sdn = Attribute::structAttr("scatter", {{"update_window_dims", intArray({3, 4})},
                                               {"inserted_window_dims", intArray({1})},
                                               {"input_batching_dims", intArray({0})},
                                               {"scatter_indices_batching_dims", intArray({1})},
                                               {"scatter_dims_to_operand_dims", intArray({2, 1})},
                                               {"index_vector_dim", Attribute::integer(3)}});
  OperationState scatter = state("stablehlo.scatter", {tensor({2, 3, 4, 2}, i64()), tensor({2, 2, 3, 2}, i64()),
                                                       tensor({2, 2, 3, 2, 2}, i64())},
                                 {{"scatter_dimension_numbers", sdn}});
  addRegion(scatter, {tensor({}, i64()), tensor({}, i64())}, "stablehlo.add");
  EXPECT_TRUE(infers(infer(scatter), {tensor({2, 3, 4, 2}, i64())}));
}

TEST_F(TypeRules, SortNeedsABooleanComparator) {
  auto gt = Attribute::enumAttr("comparison_direction", "GT");
  OperationState sort = state("stablehlo.sort", {tensor({2, 3}, i64()), tensor({2, 3}, f32())},
                              {{"dimension", Attribute::integer(0)}});
  // The comparator compares the first pair only.
  Block* b = sort.addRegion()->addBlock();
  for (Type e : {i64(), i64(), f32(), f32()}) b->addArgument(tensor({}, e));
  OperationState cmp("stablehlo.compare");
  cmp.operands = {b->argument(0), b->argument(1)};
  cmp.attributes.set("comparison_direction", gt);
  ASSERT_TRUE(inferOrCheckResultTypes(cmp).isOk());
  Value* pred = b->push_back(Operation::create(std::move(cmp)))->result();
  OperationState ret("stablehlo.return");
  ret.operands = {pred};
  b->push_back(Operation::create(std::move(ret)));
  EXPECT_TRUE(infers(infer(sort), {tensor({2, 3}, i64()), tensor({2, 3}, f32())}));

  OperationState nonBool = state("stablehlo.sort", {tensor({3}, i64())}, {{"dimension", Attribute::integer(0)}});
  addRegion(nonBool, {tensor({}, i64()), tensor({}, i64())}, "stablehlo.add");
  EXPECT_NE(errorOf(nonBool).find("expects comparator to have type (tensor<i64>, tensor<i64>) -> (tensor<i1>)"),
            std::string::npos);
}

TEST_F(TypeRules, ControlFlowRegionsMustAgree) {
  Type t = tensor({}, i64());
  OperationState whileOp = state("stablehlo.while", {t, t});
  addRegion(whileOp, {t, t}, "stablehlo.compare", {{"comparison_direction", Attribute::enumAttr("comparison_direction", "LT")}});
  addRegion(whileOp, {t, t}, nullptr, {}, {0, 1});
  EXPECT_TRUE(infers(infer(whileOp), {t, t}));

  OperationState ifOp = state("stablehlo.if", {tensor({}, Type::i1())});
  addRegion(ifOp, {}, nullptr);
  addRegion(ifOp, {}, nullptr);
  EXPECT_TRUE(infers(infer(ifOp), {}));

  // Branches returning different types: the second branch returns its argument.
  OperationState mismatched = state("stablehlo.if", {tensor({}, Type::i1())});
  addRegion(mismatched, {}, nullptr);
  addRegion(mismatched, {t}, nullptr, {}, {0});
  EXPECT_EQ(errorOf(mismatched), "'stablehlo.if' op expects branch 1 to have no arguments, got (tensor<i64>)");
}

TEST_F(TypeRules, TuplesAndTokens) {
  OperationState tuple = state("stablehlo.tuple", {tensor({2}, f32()), Type::token()});
  Type tupleType = Type::tuple(std::vector<Type>{tensor({2}, f32()), Type::token()});
  EXPECT_TRUE(infers(infer(tuple), {tupleType}));

  OperationState gte = state("stablehlo.get_tuple_element", {tupleType}, {{"index", Attribute::integer(2, Type::si32())}});
  EXPECT_EQ(errorOf(gte), "'stablehlo.get_tuple_element' op expects index to be in [0, 2), got 2");

  OperationState afterAll = state("stablehlo.after_all", {Type::token(), Type::token()});
  EXPECT_TRUE(infers(infer(afterAll), {Type::token()}));
}

TEST_F(TypeRules, FftAndCollectives) {
  OperationState rfft = state("stablehlo.fft", {tensor({4}, f32())},
                              {{"fft_type", Attribute::enumAttr("fft_type", "RFFT")},
                               {"fft_length", Attribute::denseI64Array({4})}});
  EXPECT_TRUE(infers(infer(rfft), {tensor({3}, Type::complex(f32()))}));

  OperationState allGather = state("stablehlo.all_gather", {tensor({2, 2}, f32())},
                                   {{"all_gather_dim", Attribute::integer(1)},
                                    {"replica_groups", denseI64({1, 2}, {0, 1})}});
  EXPECT_TRUE(infers(infer(allGather), {tensor({2, 4}, f32())}));

  OperationState repeatedGroup = state("stablehlo.all_gather", {tensor({2, 2}, f32())},
                                       {{"all_gather_dim", Attribute::integer(1)},
                                        {"replica_groups", denseI64({1, 2}, {1, 1})}});
  EXPECT_EQ(errorOf(repeatedGroup), "'stablehlo.all_gather' op expects replica_groups to be unique, got 1 twice");

  OperationState replicaId = state("stablehlo.replica_id", {});
  EXPECT_TRUE(infers(infer(replicaId), {tensor({}, Type::integer(32, true))}));
}

TEST_F(TypeRules, BatchNormTraining) {
  OperationState bn = state("stablehlo.batch_norm_training", {tensor({2, 2, 3}, f32()), tensor({3}, f32()),
                                                             tensor({3}, f32())},
                            {{"epsilon", Attribute::floating(0.0)}, {"feature_index", Attribute::integer(2)}});
  EXPECT_TRUE(infers(infer(bn), {tensor({2, 2, 3}, f32()), tensor({3}, f32()), tensor({3}, f32())}));

  OperationState wrongScale = state("stablehlo.batch_norm_training", {tensor({2, 2, 3}, f32()), tensor({2}, f32()),
                                                                     tensor({3}, f32())},
                                    {{"epsilon", Attribute::floating(0.0)}, {"feature_index", Attribute::integer(2)}});
  EXPECT_NE(errorOf(wrongScale).find("expects scale to be a 1-dimensional tensor of 3 elements"), std::string::npos);
}

TEST_F(TypeRules, CheckOps) {
  OperationState eq = state("check.expect_eq", {tensor({2}, f32()), tensor({2}, f32())});
  EXPECT_TRUE(infers(infer(eq), {}));
  OperationState mismatch = state("check.expect_eq", {tensor({2}, f32()), tensor({3}, f32())});
  EXPECT_NE(errorOf(mismatch).find("same type"), std::string::npos);
  OperationState eqConst = state("check.expect_eq_const", {tensor({2}, i64())}, {{"value", denseI64({2}, {1, 2})}});
  EXPECT_TRUE(infers(infer(eqConst), {}));
}

}  // namespace
}  // namespace kiln
