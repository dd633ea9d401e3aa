// The interpreter's evaluation loop, control flow, elementwise edge cases and
// collectives, on modules built directly with OperationState (no parser).
// Every expected value is worked out by hand in the comment next to it.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <fstream>
#include <limits>
#include <string>

#include "kiln/interp/interpreter.h"

namespace kiln::interp {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Type scalar(Type element) { return Type::tensor({}, element); }
Type vec(int64_t n, Type element) { return Type::tensor({n}, element); }
Type i32() { return Type::si32(); }
Type i64() { return Type::si64(); }
Type u32() { return Type::integer(32, /*isUnsigned=*/true); }
Type f32() { return Type::f32(); }
Type pred() { return Type::i1(); }

Tensor ints(Type element, std::vector<int64_t> values) {
  Tensor t(vec(int64_t(values.size()), element));
  for (size_t i = 0; i < values.size(); ++i) t.setInt(int64_t(i), values[i]);
  return t;
}
Tensor floats(Type element, std::vector<double> values) {
  Tensor t(vec(int64_t(values.size()), element));
  for (size_t i = 0; i < values.size(); ++i) t.setFloat(int64_t(i), values[i]);
  return t;
}
Tensor scalarInt(Type element, int64_t v) {
  Tensor t(scalar(element));
  if (element.isBool())
    t.setBool(0, v != 0);
  else
    t.setInt(0, v);
  return t;
}

std::vector<int64_t> intsOf(const Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.numElements(); ++i) out.push_back(t.getInt(i));
  return out;
}
std::vector<bool> boolsOf(const Tensor& t) {
  std::vector<bool> out;
  for (int64_t i = 0; i < t.numElements(); ++i) out.push_back(t.getBool(i));
  return out;
}
std::vector<uint64_t> bitsOf(const Tensor& t) {
  std::vector<uint64_t> out;
  for (int64_t i = 0; i < t.numElements(); ++i) out.push_back(t.getUInt(i));
  return out;
}

Location loc(unsigned line) { return {internFileName("core.mlir"), line, 3}; }

// Appends ops to a block.
class Builder {
 public:
  explicit Builder(Block& block) : block_(&block) {}

  Operation* create(std::string name, std::vector<Value*> operands, std::vector<Type> results,
                    std::vector<NamedAttribute> attrs = {}, unsigned numRegions = 0,
                    Location at = {}) {
    OperationState st(std::move(name), at);
    st.operands = std::move(operands);
    st.resultTypes = std::move(results);
    st.attributes = AttrDict(std::move(attrs));
    for (unsigned i = 0; i < numRegions; ++i) st.addRegion()->addBlock();
    return block_->push_back(Operation::create(std::move(st)));
  }
  Value* op(std::string name, std::vector<Value*> operands, Type result,
            std::vector<NamedAttribute> attrs = {}) {
    return create(std::move(name), std::move(operands), {result}, std::move(attrs))->result();
  }
  Value* constant(const Tensor& t) {
    return op("stablehlo.constant", {}, t.type(), {{"value", t.toDense()}});
  }
  Value* compare(Value* a, Value* b, const char* direction, const char* type = nullptr) {
    std::vector<NamedAttribute> attrs = {
        {"comparison_direction", Attribute::enumAttr("comparison_direction", direction)}};
    if (type) attrs.push_back({"compare_type", Attribute::enumAttr("comparison_type", type)});
    Type result = a->type().withElementType(pred());
    return op("stablehlo.compare", {a, b}, result, std::move(attrs));
  }
  void ret(std::vector<Value*> values, const char* name = "stablehlo.return") {
    create(name, std::move(values), {});
  }

 private:
  Block* block_;
};

// Adds `func.func @name(inputs) -> results` to `m`; returns its entry block.
Block& addFunction(Module& m, const char* name, std::vector<Type> inputs,
                   std::vector<Type> results) {
  OperationState st("func.func");
  st.attributes.set("sym_name", Attribute::string(name));
  st.attributes.set("function_type", Attribute::type(Type::function(inputs, results)));
  Block* body = st.addRegion()->addBlock();
  for (Type t : inputs) body->addArgument(t);
  m.body().push_back(Operation::create(std::move(st)));
  return *body;
}

// A function applying one elementwise op to its arguments.
Expected<std::vector<Tensor>> runOp(const char* opName, std::vector<Tensor> args, Type result,
                                    std::vector<NamedAttribute> attrs = {}) {
  Module m;
  std::vector<Type> inputs;
  for (const Tensor& a : args) inputs.push_back(a.type());
  Block& body = addFunction(m, "main", inputs, {result});
  Builder b(body);
  b.ret({b.op(opName, body.arguments(), result, std::move(attrs))}, "func.return");
  return runFunction(m, "main", std::move(args));
}

Tensor runOk(const char* opName, std::vector<Tensor> args, Type result,
             std::vector<NamedAttribute> attrs = {}) {
  auto r = runOp(opName, std::move(args), result, std::move(attrs));
  EXPECT_TRUE(r.isOk()) << (r.isOk() ? "" : r.status().message());
  return r.isOk() ? (*r)[0] : Tensor();
}

// Anonymous memory resident in this process, in KiB (Linux), or -1.
long residentAnonKiB() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("RssAnon:", 0) == 0) return std::stol(line.substr(8));
  return -1;
}

// A splat constant reads as its element everywhere. A large all-zero one
// (the zeros a gradient's scatter-add starts from) takes no memory until
// written: 64 MiB of zeros add far less than 64 MiB to the process.
TEST(TensorStorage, SplatConstantsExpandAndLargeZerosTakeNoMemoryUntilWritten) {
  Type small = Type::tensor({3, 5}, Type::element(TypeKind::BF16));
  Tensor sevens = Tensor::fromDense(Attribute::dense(small, {0xe0, 0x40}, /*splat=*/true));
  for (int64_t i = 0; i < sevens.numElements(); ++i) EXPECT_EQ(sevens.getFloat(i), 7.0);

  Type large = Type::tensor({1 << 14, 1 << 10}, Type::f32());  // 64 MiB
  long before = residentAnonKiB();
  Tensor zeros = Tensor::fromDense(Attribute::dense(large, {0, 0, 0, 0}, /*splat=*/true));
  EXPECT_EQ(zeros.getFloat(0), 0.0);
  EXPECT_EQ(zeros.getFloat(zeros.numElements() - 1), 0.0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(zeros.bytes()) % 64, 0u);
  if (before >= 0) EXPECT_LT(residentAnonKiB() - before, 16 << 10);
  Tensor copy(large);  // the same contents, the ordinary way
  EXPECT_TRUE(zeros == copy);
}

// --- Control flow ----------------------------------------------------------------

// Large buffers are recycled (a fresh block page-faults on first touch); a
// recycled one must still come back zero-filled.
TEST(TensorStorage, LargeBuffersAreRecycledAndZeroed) {
  Type type = Type::tensor({1 << 18}, Type::f32());  // 1 MiB
  const uint8_t* first;
  {
    Tensor t(type);
    first = t.bytes();
    t.setFloat(12345, 7.0);
  }
  Tensor again(type);
  EXPECT_EQ(again.bytes(), first);
  EXPECT_EQ(again.getFloat(12345), 0.0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(again.bytes()) % 64, 0u);
}

TEST(InterpControlFlow, WhileSumsZeroToNine) {
  Module m;
  Block& body = addFunction(m, "main", {}, {scalar(i64())});
  Builder b(body);
  Value* zero = b.constant(scalarInt(i64(), 0));
  Operation* loop =
      b.create("stablehlo.while", {zero, zero}, {scalar(i64()), scalar(i64())}, {}, 2);
  {  // cond: i < 10
    Block& cond = loop->region(0).front();
    Value* i = cond.addArgument(scalar(i64()));
    cond.addArgument(scalar(i64()));
    Builder c(cond);
    c.ret({c.compare(i, c.constant(scalarInt(i64(), 10)), "LT")});
  }
  {  // body: (i + 1, sum + i)
    Block& step = loop->region(1).front();
    Value* i = step.addArgument(scalar(i64()));
    Value* sum = step.addArgument(scalar(i64()));
    Builder s(step);
    Value* one = s.constant(scalarInt(i64(), 1));
    s.ret({s.op("stablehlo.add", {i, one}, scalar(i64())),
           s.op("stablehlo.add", {sum, i}, scalar(i64()))});
  }
  b.ret({loop->result(1)}, "func.return");

  auto r = runFunction(m, "main", {});
  ASSERT_TRUE(r.isOk()) << r.status().message();
  EXPECT_EQ((*r)[0].getInt(0), 45);  // 0 + 1 + ... + 9
}

// if returns 1 or 2; the branches read a value defined outside them.
TEST(InterpControlFlow, IfRunsTheChosenBranch) {
  Module m;
  Block& body = addFunction(m, "main", {scalar(pred())}, {scalar(i32())});
  Builder b(body);
  Value* one = b.constant(scalarInt(i32(), 1));
  Operation* ifOp = b.create("stablehlo.if", {body.argument(0)}, {scalar(i32())}, {}, 2);
  Builder(ifOp->region(0).front()).ret({one});
  Builder onFalse(ifOp->region(1).front());
  onFalse.ret({onFalse.op("stablehlo.add", {one, one}, scalar(i32()))});
  b.ret({ifOp->result()}, "func.return");

  auto yes = runFunction(m, "main", {scalarInt(pred(), 1)});
  auto no = runFunction(m, "main", {scalarInt(pred(), 0)});
  ASSERT_TRUE(yes.isOk() && no.isOk());
  EXPECT_EQ((*yes)[0].getInt(0), 1);
  EXPECT_EQ((*no)[0].getInt(0), 2);
}

// Branch k returns 10 * (k + 1); an index out of range takes the last branch.
TEST(InterpControlFlow, CaseOutOfRangeTakesTheLastBranch) {
  Module m;
  Block& body = addFunction(m, "main", {scalar(i32())}, {scalar(i32())});
  Builder b(body);
  Operation* caseOp = b.create("stablehlo.case", {body.argument(0)}, {scalar(i32())}, {}, 3);
  for (unsigned k = 0; k < 3; ++k) {
    Builder branch(caseOp->region(k).front());
    branch.ret({branch.constant(scalarInt(i32(), 10 * (k + 1)))});
  }
  b.ret({caseOp->result()}, "func.return");

  for (auto [index, expected] :
       std::vector<std::pair<int64_t, int64_t>>{{0, 10}, {1, 20}, {2, 30}, {3, 30}, {-1, 30}}) {
    auto r = runFunction(m, "main", {scalarInt(i32(), index)});
    ASSERT_TRUE(r.isOk()) << r.status().message();
    EXPECT_EQ((*r)[0].getInt(0), expected) << "index " << index;
  }
}

// func.call and composite both run @double (x + x); tuples pass through.
TEST(InterpControlFlow, CallCompositeAndTuples) {
  Module m;
  {
    Block& dbl = addFunction(m, "double", {scalar(i32())}, {scalar(i32())});
    Builder d(dbl);
    d.ret({d.op("stablehlo.add", {dbl.argument(0), dbl.argument(0)}, scalar(i32()))},
          "func.return");
  }
  Block& body = addFunction(m, "main", {scalar(i32())}, {scalar(i32()), scalar(i32())});
  Builder b(body);
  Value* called = b.op("func.call", {body.argument(0)}, scalar(i32()),
                       {{"callee", Attribute::symbolRef({"double"})}});
  Value* composed = b.op("stablehlo.composite", {called}, scalar(i32()),
                         {{"name", Attribute::string("my.double")},
                          {"decomposition", Attribute::symbolRef({"double"})}});
  Type pairType[] = {scalar(i32()), scalar(i32())};
  Value* tuple = b.op("stablehlo.tuple", {called, composed}, Type::tuple(pairType));
  Value* second = b.op("stablehlo.get_tuple_element", {tuple}, scalar(i32()),
                       {{"index", Attribute::integer(1, Type::integer(32))}});
  Operation* barrier =
      b.create("stablehlo.optimization_barrier", {called, second}, {scalar(i32()), scalar(i32())});
  b.ret(barrier->results(), "func.return");

  auto r = runFunction(m, "main", {scalarInt(i32(), 5)});
  ASSERT_TRUE(r.isOk()) << r.status().message();
  EXPECT_EQ((*r)[0].getInt(0), 10);  // 5 + 5
  EXPECT_EQ((*r)[1].getInt(0), 20);  // 10 + 10
}

TEST(InterpErrors, UnknownOpIsNamedWithItsLocation) {
  Module m;
  Block& body = addFunction(m, "main", {}, {});
  Builder b(body);
  b.create("stablehlo.frobnicate", {}, {}, {}, 0, loc(7));
  b.ret({}, "func.return");
  auto r = runFunction(m, "main", {});
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.status().message().find("core.mlir:7:3"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("stablehlo.frobnicate"), std::string::npos);
}

TEST(InterpErrors, WrongArgumentsAndMissingFunctionsAreErrors) {
  Module m;
  Block& body = addFunction(m, "main", {scalar(i32())}, {scalar(i32())});
  Builder(body).ret({body.argument(0)}, "func.return");
  EXPECT_FALSE(runFunction(m, "main", {}).isOk());
  EXPECT_FALSE(runFunction(m, "main", {scalarInt(i64(), 1)}).isOk());
  EXPECT_FALSE(runFunction(m, "nope", {}).isOk());
}

TEST(InterpErrors, UnboundedRecursionIsAnErrorNotACrash) {
  Module m;
  Block& body = addFunction(m, "main", {}, {});
  Builder b(body);
  b.create("func.call", {}, {}, {{"callee", Attribute::symbolRef({"main"})}});
  b.ret({}, "func.return");
  auto r = runFunction(m, "main", {});
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.status().message().find("recursion"), std::string::npos) << r.status().message();
}

// --- Elementwise edge cases --------------------------------------------------------

TEST(InterpElementwise, IntegerDivisionAndRemainderByZeroAndOverflow) {
  const int64_t kMin = std::numeric_limits<int32_t>::min();
  Tensor lhs = ints(i32(), {7, -7, kMin, 7, -7});
  Tensor rhs = ints(i32(), {0, 0, -1, 2, 2});
  // XLA: x / 0 = -1, INT_MIN / -1 = INT_MIN; division truncates toward zero.
  EXPECT_EQ(intsOf(runOk("stablehlo.divide", {lhs, rhs}, lhs.type())),
            (std::vector<int64_t>{-1, -1, kMin, 3, -3}));
  // x % 0 = x, INT_MIN % -1 = 0; the sign follows the dividend.
  EXPECT_EQ(intsOf(runOk("stablehlo.remainder", {lhs, rhs}, lhs.type())),
            (std::vector<int64_t>{7, -7, 0, 1, -1}));
  // Unsigned: 7 / 0 is all ones.
  Tensor u = runOk("stablehlo.divide", {ints(u32(), {7}), ints(u32(), {0})}, vec(1, u32()));
  EXPECT_EQ(u.getUInt(0), 0xFFFFFFFFu);
}

TEST(InterpElementwise, ShiftsByAtLeastTheWidth) {
  Tensor x = ints(i32(), {1, 1, -8, -8, 8, -8});
  Tensor by = ints(i32(), {31, 32, 32, -1, 40, 1});
  // 1 << 31 = INT_MIN; shifting by >= 32 (and -1, read as unsigned) leaves 0.
  EXPECT_EQ(intsOf(runOk("stablehlo.shift_left", {x, by}, x.type())),
            (std::vector<int64_t>{INT32_MIN, 0, 0, 0, 0, -16}));
  // Arithmetic shifts fill with the sign: -8 >> 32 = -1, 8 >> 40 = 0.
  EXPECT_EQ(intsOf(runOk("stablehlo.shift_right_arithmetic", {x, by}, x.type())),
            (std::vector<int64_t>{0, 0, -1, -1, 0, -4}));
  // Logical: -8 = 0xFFFFFFF8, >> 1 = 0x7FFFFFFC.
  EXPECT_EQ(intsOf(runOk("stablehlo.shift_right_logical", {x, by}, x.type())),
            (std::vector<int64_t>{0, 0, 0, 0, 0, 0x7FFFFFFC}));
}

TEST(InterpElementwise, CompareTotalOrderSeparatesNegativeZeroAndNaN) {
  Tensor a = floats(f32(), {-0.0, kNaN, -kNaN, 1.0, 0.0});
  Tensor b = floats(f32(), {0.0, kNaN, -kInf, kNaN, -0.0});
  auto cmp = [&](const char* dir, const char* type) {
    Module m;
    Block& body = addFunction(m, "main", {a.type(), b.type()}, {a.type().withElementType(pred())});
    Builder bld(body);
    bld.ret({bld.compare(body.argument(0), body.argument(1), dir, type)}, "func.return");
    auto r = runFunction(m, "main", {a, b});
    EXPECT_TRUE(r.isOk());
    return r.isOk() ? boolsOf((*r)[0]) : std::vector<bool>{};
  };
  // IEEE: -0 == 0, NaN is unordered with everything.
  EXPECT_EQ(cmp("LT", "FLOAT"), (std::vector<bool>{false, false, false, false, false}));
  EXPECT_EQ(cmp("EQ", "FLOAT"), (std::vector<bool>{true, false, false, false, true}));
  EXPECT_EQ(cmp("NE", "FLOAT"), (std::vector<bool>{false, true, true, true, false}));
  // Total order: -NaN < -Inf < -0 < +0 < 1 < +NaN, and NaN equals itself.
  EXPECT_EQ(cmp("LT", "TOTALORDER"), (std::vector<bool>{true, false, true, true, false}));
  EXPECT_EQ(cmp("EQ", "TOTALORDER"), (std::vector<bool>{false, true, false, false, false}));
  EXPECT_EQ(cmp("GT", "TOTALORDER"), (std::vector<bool>{false, false, false, false, true}));
}

TEST(InterpElementwise, CompareSignedAndUnsigned) {
  Tensor a = ints(i32(), {-1, 1});
  Tensor b = ints(i32(), {1, 1});
  auto lt = [&](const char* type) {
    return boolsOf(
        runOk("stablehlo.compare", {a, b}, vec(2, pred()),
              {{"comparison_direction", Attribute::enumAttr("comparison_direction", "LT")},
               {"compare_type", Attribute::enumAttr("comparison_type", type)}}));
  };
  EXPECT_EQ(lt("SIGNED"), (std::vector<bool>{true, false}));
  EXPECT_EQ(lt("UNSIGNED"), (std::vector<bool>{false, false}));  // 0xFFFFFFFF > 1
}

TEST(InterpElementwise, ConvertFloatToIntTruncatesAndSaturates) {
  Tensor x = floats(f32(), {3e9, -3e9, kNaN, kInf, -kInf, -1.5, 2.9});
  EXPECT_EQ(intsOf(runOk("stablehlo.convert", {x}, vec(7, i32()))),
            (std::vector<int64_t>{INT32_MAX, INT32_MIN, 0, INT32_MAX, INT32_MIN, -1, 2}));
  Type u8 = Type::integer(8, /*isUnsigned=*/true);
  EXPECT_EQ(intsOf(runOk("stablehlo.convert", {x}, vec(7, u8))),
            (std::vector<int64_t>{255, 0, 0, 255, 0, 0, 2}));
  // To and from i1: nonzero (NaN included) is true.
  EXPECT_EQ(boolsOf(runOk("stablehlo.convert", {x}, vec(7, pred()))),
            (std::vector<bool>{true, true, true, true, true, true, true}));
  Tensor flags = ints(pred(), {1, 0});
  EXPECT_EQ(intsOf(runOk("stablehlo.convert", {flags}, vec(2, i32()))),
            (std::vector<int64_t>{1, 0}));
}

TEST(InterpElementwise, ConvertRoundsToNearestEvenIncludingBf16Ties) {
  Type bf16 = Type::element(TypeKind::BF16);
  // bf16 keeps 7 fraction bits: 1 + 2^-8 is halfway between 1 (0x3F80, even)
  // and 1 + 2^-7 (0x3F81); 1 + 3 * 2^-8 is halfway between 0x3F81 and 0x3F82
  // (even); a hair above the first tie rounds up.
  Tensor x = floats(f32(), {1 + std::ldexp(1, -8), 1 + 3 * std::ldexp(1, -8),
                            1 + std::ldexp(1, -8) + std::ldexp(1, -20), 1e39 /* f32 Inf */});
  EXPECT_EQ(bitsOf(runOk("stablehlo.convert", {x}, vec(4, bf16))),
            (std::vector<uint64_t>{0x3F80, 0x3F82, 0x3F81, 0x7F80}));
  // int64 -> f32: near 2^60 the f32 spacing is 2^37, so 2^60 + 2^36 + 1 lies
  // just above the midpoint of 2^60 and 2^60 + 2^37 and rounds up. Rounding
  // through double first would land exactly on the midpoint and go down.
  Tensor big = ints(i64(), {(int64_t(1) << 60) + (int64_t(1) << 36) + 1});
  Tensor f = runOk("stablehlo.convert", {big}, vec(1, f32()));
  EXPECT_EQ(f.getFloat(0), std::ldexp(1.0, 60) + std::ldexp(1.0, 37));
}

TEST(InterpElementwise, RoundingModesAndNaNPropagatingMinMax) {
  Tensor x = floats(f32(), {2.5, -2.5, 0.5, 3.5});
  EXPECT_EQ(runOk("stablehlo.round_nearest_afz", {x}, x.type()), floats(f32(), {3, -3, 1, 4}));
  EXPECT_EQ(runOk("stablehlo.round_nearest_even", {x}, x.type()), floats(f32(), {2, -2, 0, 4}));
  Tensor a = floats(f32(), {kNaN, 1.0, -0.0, 0.0});
  Tensor b = floats(f32(), {1.0, kNaN, 0.0, -0.0});
  Tensor mx = runOk("stablehlo.maximum", {a, b}, a.type());
  Tensor mn = runOk("stablehlo.minimum", {a, b}, a.type());
  EXPECT_TRUE(std::isnan(mx.getFloat(0)) && std::isnan(mx.getFloat(1)));
  EXPECT_TRUE(std::isnan(mn.getFloat(0)) && std::isnan(mn.getFloat(1)));
  // -0 < +0 for maximum/minimum.
  EXPECT_FALSE(std::signbit(mx.getFloat(2)) || std::signbit(mx.getFloat(3)));
  EXPECT_TRUE(std::signbit(mn.getFloat(2)) && std::signbit(mn.getFloat(3)));
}

TEST(InterpElementwise, IntegerPowerAbsAndBitCounts) {
  Tensor base = ints(i32(), {2, 1, -1, -1, 3, 2, 3});
  Tensor exponent = ints(i32(), {-1, -5, -3, -2, 0, 10, 21});
  // Negative exponents: 0 except for bases +-1; 3^21 = 10460353203 wraps to
  // 10460353203 - 2 * 2^32 = 1870418611.
  EXPECT_EQ(intsOf(runOk("stablehlo.power", {base, exponent}, base.type())),
            (std::vector<int64_t>{0, 1, -1, 1, 1, 1024, 1870418611}));
  Tensor v = ints(i32(), {INT32_MIN, -5, 0, 1});
  EXPECT_EQ(intsOf(runOk("stablehlo.abs", {v}, v.type())),
            (std::vector<int64_t>{INT32_MIN, 5, 0, 1}));
  EXPECT_EQ(intsOf(runOk("stablehlo.count_leading_zeros", {v}, v.type())),
            (std::vector<int64_t>{0, 0, 32, 31}));
  EXPECT_EQ(intsOf(runOk("stablehlo.popcnt", {v}, v.type())), (std::vector<int64_t>{1, 31, 0, 1}));
}

TEST(InterpElementwise, BitcastConvertAcrossWidths) {
  Tensor word = ints(u32(), {0x04030201});
  Type u8 = Type::integer(8, /*isUnsigned=*/true);
  Tensor bytes = runOk("stablehlo.bitcast_convert", {word}, Type::tensor({1, 4}, u8));
  EXPECT_EQ(intsOf(bytes), (std::vector<int64_t>{1, 2, 3, 4}));  // least significant first
  Tensor back = runOk("stablehlo.bitcast_convert", {bytes}, vec(1, u32()));
  EXPECT_EQ(back.getUInt(0), 0x04030201u);
  Tensor one = floats(f32(), {1.0});
  EXPECT_EQ(intsOf(runOk("stablehlo.bitcast_convert", {one}, vec(1, i32()))),
            (std::vector<int64_t>{0x3F800000}));
}

TEST(InterpElementwise, ReducePrecisionRoundsMantissaAndClampsExponent) {
  // To 5 exponent and 2 mantissa bits (f8E5M2's shape): 1.125 is halfway
  // between 1 and 1.25 (ties to 1), 1.2 rounds to 1.25, 1e6 overflows to
  // Inf, 1e-10 underflows to 0, NaN stays NaN.
  Tensor x = floats(f32(), {1.125, 1.2, 1e6, 1e-10, kNaN});
  Tensor r = runOk("stablehlo.reduce_precision", {x}, x.type(),
                   {{"exponent_bits", Attribute::integer(5, Type::integer(32))},
                    {"mantissa_bits", Attribute::integer(2, Type::integer(32))}});
  EXPECT_EQ(r.getFloat(0), 1.0);
  EXPECT_EQ(r.getFloat(1), 1.25);
  EXPECT_EQ(r.getFloat(2), kInf);
  EXPECT_EQ(r.getFloat(3), 0.0);
  EXPECT_TRUE(std::isnan(r.getFloat(4)));
}

// Complex ops follow XLA's formulas, not C's Annex G (complex_math.h).
TEST(InterpElementwise, ComplexArithmeticFollowsXla) {
  Type c64 = Type::complex(f32());
  auto complexes = [&](std::vector<std::complex<double>> values) {
    Tensor t(vec(int64_t(values.size()), c64));
    for (size_t i = 0; i < values.size(); ++i) t.setComplex(int64_t(i), values[i]);
    return t;
  };
  // (1 + 2i)(3 + 4i) = -5 + 10i; (1 + i) / 0 = Inf + Inf i (the zero-divisor case).
  Tensor product =
      runOk("stablehlo.multiply", {complexes({{1, 2}}), complexes({{3, 4}})}, vec(1, c64));
  EXPECT_EQ(product.getComplex(0), std::complex<double>(-5, 10));
  Tensor quotient =
      runOk("stablehlo.divide", {complexes({{1, 1}}), complexes({{0, 0}})}, vec(1, c64));
  EXPECT_EQ(quotient.getComplex(0), std::complex<double>(kInf, kInf));
  // |3 + 4i| = 4 sqrt(1 + 0.75^2) = 5 exactly; a NaN part makes |z| NaN even
  // when the other is infinite (C's hypot would say Inf).
  Tensor magnitude = runOk("stablehlo.abs", {complexes({{3, 4}, {kInf, kNaN}})}, vec(2, f32()));
  EXPECT_EQ(magnitude.getFloat(0), 5.0);
  EXPECT_TRUE(std::isnan(magnitude.getFloat(1)));
  // e^(Inf + 0i) = Inf + 0i (the naive formula would give Inf * sin 0 = NaN).
  Tensor e = runOk("stablehlo.exponential", {complexes({{kInf, 0}})}, vec(1, c64));
  EXPECT_EQ(e.getComplex(0), std::complex<double>(kInf, 0));
}

TEST(InterpElementwise, SelectAndClampBroadcastScalars) {
  Tensor x = ints(i32(), {-5, 3, 9});
  Tensor lo = scalarInt(i32(), 0), hi = scalarInt(i32(), 5);
  EXPECT_EQ(intsOf(runOk("stablehlo.clamp", {lo, x, hi}, x.type())),
            (std::vector<int64_t>{0, 3, 5}));
  Tensor y = ints(i32(), {1, 2, 3});
  EXPECT_EQ(intsOf(runOk("stablehlo.select", {scalarInt(pred(), 0), x, y}, x.type())),
            (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(intsOf(runOk("stablehlo.select", {ints(pred(), {1, 0, 1}), x, y}, x.type())),
            (std::vector<int64_t>{-5, 2, 9}));
}

TEST(InterpElementwise, MapRunsItsComputationPerElement) {
  Module m;
  Block& body = addFunction(m, "main", {vec(3, i32()), vec(3, i32())}, {vec(3, i32())});
  Builder b(body);
  Operation* map = b.create("stablehlo.map", body.arguments(), {vec(3, i32())},
                            {{"dimensions", Attribute::denseI64Array({0})}}, 1);
  Block& fn = map->region(0).front();
  Value* p = fn.addArgument(scalar(i32()));
  Value* q = fn.addArgument(scalar(i32()));
  Builder f(fn);
  f.ret({f.op("stablehlo.multiply", {p, q}, scalar(i32()))});
  b.ret({map->result()}, "func.return");
  auto r = runFunction(m, "main", {ints(i32(), {1, 2, 3}), ints(i32(), {4, 5, 6})});
  ASSERT_TRUE(r.isOk()) << r.status().message();
  EXPECT_EQ(intsOf((*r)[0]), (std::vector<int64_t>{4, 10, 18}));
}

// --- Collectives -----------------------------------------------------------------

Attribute groups(std::vector<std::vector<int64_t>> rows) {
  int64_t cols = rows.empty() ? 0 : int64_t(rows[0].size());
  Tensor t(Type::tensor({int64_t(rows.size()), cols}, i64()));
  for (size_t r = 0; r < rows.size(); ++r)
    for (int64_t c = 0; c < cols; ++c) t.setInt(int64_t(r) * cols + c, rows[r][c]);
  return t.toDense();
}

// Each replica contributes [id + 1, 10 * (id + 1)]; the sum over two is [3, 30].
TEST(InterpCollectives, AllReduceSumsAcrossTwoReplicas) {
  Module m;
  Block& body = addFunction(m, "main", {}, {vec(2, i32())});
  Builder b(body);
  Value* id = b.op("stablehlo.replica_id", {}, scalar(u32()));
  Value* idI32 = b.op("stablehlo.convert", {id}, scalar(i32()));
  Value* plusOne = b.op("stablehlo.add", {idI32, b.constant(scalarInt(i32(), 1))}, scalar(i32()));
  Value* both = b.op("stablehlo.broadcast_in_dim", {plusOne}, vec(2, i32()),
                     {{"broadcast_dimensions", Attribute::denseI64Array({})}});
  Value* scaled =
      b.op("stablehlo.multiply", {both, b.constant(ints(i32(), {1, 10}))}, vec(2, i32()));
  Operation* reduce = b.create("stablehlo.all_reduce", {scaled}, {vec(2, i32())},
                               {{"replica_groups", groups({{0, 1}})}}, 1);
  Block& sum = reduce->region(0).front();
  Value* x = sum.addArgument(scalar(i32()));
  Value* y = sum.addArgument(scalar(i32()));
  Builder s(sum);
  s.ret({s.op("stablehlo.add", {x, y}, scalar(i32()))});
  b.ret({reduce->result()}, "func.return");

  auto r = runFunctionOnAllInstances(m, "main", {}, {.numReplicas = 2, .numPartitions = 1});
  ASSERT_TRUE(r.isOk()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ(intsOf((*r)[0][0]), (std::vector<int64_t>{3, 30}));
  EXPECT_EQ(intsOf((*r)[1][0]), (std::vector<int64_t>{3, 30}));
}

// A one-op function over the replica id (as i32, shape [1]) run on `n` replicas.
Expected<std::vector<std::vector<Tensor>>> runOnReplicaIds(int n, const char* opName, Type result,
                                                           std::vector<NamedAttribute> attrs) {
  Module m;
  Block& body = addFunction(m, "main", {}, {result});
  Builder b(body);
  Value* id = b.op("stablehlo.replica_id", {}, scalar(u32()));
  Value* asVec =
      b.op("stablehlo.reshape", {b.op("stablehlo.convert", {id}, scalar(i32()))}, vec(1, i32()));
  b.ret({b.op(opName, {asVec}, result, std::move(attrs))}, "func.return");
  return runFunctionOnAllInstances(m, "main", {}, {.numReplicas = n, .numPartitions = 1});
}

TEST(InterpCollectives, AllGatherConcatenatesInGroupOrder) {
  // Group [2, 0, 1]: every replica sees [2, 0, 1].
  auto r = runOnReplicaIds(
      3, "stablehlo.all_gather", vec(3, i32()),
      {{"all_gather_dim", Attribute::integer(0)}, {"replica_groups", groups({{2, 0, 1}})}});
  ASSERT_TRUE(r.isOk()) << r.status().message();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(intsOf((*r)[i][0]), (std::vector<int64_t>{2, 0, 1}));
}

TEST(InterpCollectives, CollectivePermuteSendsAlongPairsAndZeroFillsTheRest) {
  // 0 -> 1, 1 -> 2: replica 0 receives nothing (zeros).
  auto r = runOnReplicaIds(3, "stablehlo.collective_permute", vec(1, i32()),
                           {{"source_target_pairs", groups({{0, 1}, {1, 2}})}});
  ASSERT_TRUE(r.isOk()) << r.status().message();
  EXPECT_EQ(intsOf((*r)[0][0]), (std::vector<int64_t>{0}));
  EXPECT_EQ(intsOf((*r)[1][0]), (std::vector<int64_t>{0}));
  EXPECT_EQ(intsOf((*r)[2][0]), (std::vector<int64_t>{1}));
}

// Builds @main computing `ids`: [instance] as tensor<1xi32>, where instance =
// replica * numPartitions + partition; `body` turns it into the result.
template <typename Body>
Expected<std::vector<std::vector<Tensor>>> runOnInstanceIds(int numReplicas, int numPartitions,
                                                            Type result, Body body) {
  Module m;
  Block& fn = addFunction(m, "main", {}, {result});
  Builder b(fn);
  auto asI32 = [&](const char* idOp) {
    return b.op("stablehlo.convert", {b.op(idOp, {}, scalar(u32()))}, scalar(i32()));
  };
  Value* replicaTimesN = b.op(
      "stablehlo.multiply",
      {asI32("stablehlo.replica_id"), b.constant(scalarInt(i32(), numPartitions))}, scalar(i32()));
  Value* instance =
      b.op("stablehlo.add", {replicaTimesN, asI32("stablehlo.partition_id")}, scalar(i32()));
  Value* ids = b.op("stablehlo.reshape", {instance}, vec(1, i32()));
  b.ret({body(b, ids)}, "func.return");
  return runFunctionOnAllInstances(m, "main", {},
                                   {.numReplicas = numReplicas, .numPartitions = numPartitions});
}

// Adds a sum computation to `op`'s region 0.
void addSumRegion(Operation* op, Type element) {
  Block& sum = op->region(0).front();
  Value* x = sum.addArgument(scalar(element));
  Value* y = sum.addArgument(scalar(element));
  Builder s(sum);
  s.ret({s.op("stablehlo.add", {x, y}, scalar(element))});
}

Attribute channel(int64_t handle) {
  return Attribute::structAttr(
      "channel_handle", {{"handle", Attribute::integer(handle)}, {"type", Attribute::integer(1)}});
}

TEST(InterpCollectives, ReduceScatterSplitsTheSum) {
  // Both replicas gather [0, 1], then reduce-scatter the sum [0, 2]: replica r
  // keeps element r.
  auto r = runOnInstanceIds(2, 1, vec(1, i32()), [](Builder& b, Value* ids) {
    Value* gathered =
        b.op("stablehlo.all_gather", {ids}, vec(2, i32()),
             {{"all_gather_dim", Attribute::integer(0)}, {"replica_groups", groups({{0, 1}})}});
    Operation* scatter = b.create(
        "stablehlo.reduce_scatter", {gathered}, {vec(1, i32())},
        {{"scatter_dimension", Attribute::integer(0)}, {"replica_groups", groups({{0, 1}})}}, 1);
    addSumRegion(scatter, i32());
    return scatter->result();
  });
  ASSERT_TRUE(r.isOk()) << r.status().message();
  EXPECT_EQ(intsOf((*r)[0][0]), (std::vector<int64_t>{0}));
  EXPECT_EQ(intsOf((*r)[1][0]), (std::vector<int64_t>{2}));
}

TEST(InterpCollectives, AllToAllTransposesPartsAcrossReplicas) {
  // x@r = [10r, 10r + 1]; replica r receives part r of everyone: [r, 10 + r].
  auto r = runOnInstanceIds(2, 1, vec(2, i32()), [](Builder& b, Value* ids) {
    Value* tens = b.op("stablehlo.multiply", {ids, b.constant(ints(i32(), {10}))}, vec(1, i32()));
    Value* x = b.op("stablehlo.add",
                    {b.op("stablehlo.broadcast_in_dim", {tens}, vec(2, i32()),
                          {{"broadcast_dimensions", Attribute::denseI64Array({0})}}),
                     b.constant(ints(i32(), {0, 1}))},
                    vec(2, i32()));
    return b.op("stablehlo.all_to_all", {x}, vec(2, i32()),
                {{"split_dimension", Attribute::integer(0)},
                 {"concat_dimension", Attribute::integer(0)},
                 {"split_count", Attribute::integer(2)},
                 {"replica_groups", groups({{0, 1}})}});
  });
  ASSERT_TRUE(r.isOk()) << r.status().message();
  EXPECT_EQ(intsOf((*r)[0][0]), (std::vector<int64_t>{0, 10}));
  EXPECT_EQ(intsOf((*r)[1][0]), (std::vector<int64_t>{1, 11}));
}

TEST(InterpCollectives, ChannelIdSelectsCrossPartitionPermutes) {
  // One replica, two partitions, channel 1: the pairs name partitions.
  auto r = runOnInstanceIds(1, 2, vec(1, i32()), [](Builder& b, Value* ids) {
    return b.op(
        "stablehlo.collective_permute", {ids}, vec(1, i32()),
        {{"source_target_pairs", groups({{0, 1}, {1, 0}})}, {"channel_handle", channel(1)}});
  });
  ASSERT_TRUE(r.isOk()) << r.status().message();
  EXPECT_EQ(intsOf((*r)[0][0]), (std::vector<int64_t>{1}));
  EXPECT_EQ(intsOf((*r)[1][0]), (std::vector<int64_t>{0}));
}

TEST(InterpCollectives, FlattenedIdsGroupAcrossReplicasAndPartitions) {
  // 2 replicas x 2 partitions, groups of flattened ids {0, 3} and {1, 2}:
  // sums of squares 0 + 9 = 9 and 1 + 4 = 5.
  auto r = runOnInstanceIds(2, 2, vec(1, i32()), [](Builder& b, Value* ids) {
    Value* squares = b.op("stablehlo.multiply", {ids, ids}, vec(1, i32()));
    Operation* reduce = b.create("stablehlo.all_reduce", {squares}, {vec(1, i32())},
                                 {{"replica_groups", groups({{0, 3}, {1, 2}})},
                                  {"channel_handle", channel(1)},
                                  {"use_global_device_ids", Attribute::unit()}},
                                 1);
    addSumRegion(reduce, i32());
    return reduce->result();
  });
  ASSERT_TRUE(r.isOk()) << r.status().message();
  std::vector<int64_t> sums;
  for (const auto& instance : *r) sums.push_back(instance[0].getInt(0));
  EXPECT_EQ(sums, (std::vector<int64_t>{9, 5, 5, 9}));
}

TEST(InterpCollectives, CollectiveBroadcastSendsTheFirstMembersValue) {
  // Group [2, 1] of 4 replicas: 1 and 2 get replica 2's value; 0 and 3,
  // outside every group, get zeros.
  auto r = runOnInstanceIds(4, 1, vec(1, i32()), [](Builder& b, Value* ids) {
    Value* plus5 = b.op("stablehlo.add", {ids, b.constant(ints(i32(), {5}))}, vec(1, i32()));
    return b.op("stablehlo.collective_broadcast", {plus5}, vec(1, i32()),
                {{"replica_groups", groups({{2, 1}})}});
  });
  ASSERT_TRUE(r.isOk()) << r.status().message();
  std::vector<int64_t> got;
  for (const auto& instance : *r) got.push_back(instance[0].getInt(0));
  EXPECT_EQ(got, (std::vector<int64_t>{0, 7, 7, 0}));
}

// Only replica 0 reaches the all_reduce: the others must report an error,
// not wait forever.
TEST(InterpCollectives, DivergingInstancesFailInsteadOfHanging) {
  Module m;
  Block& body = addFunction(m, "main", {}, {});
  Builder b(body);
  Value* id = b.op("stablehlo.replica_id", {}, scalar(u32()));
  Value* isZero = b.compare(id, b.constant(scalarInt(u32(), 0)), "EQ");
  Operation* ifOp = b.create("stablehlo.if", {isZero}, {}, {}, 2);
  {
    Builder then(ifOp->region(0).front());
    Value* one = then.constant(scalarInt(i32(), 1));
    Operation* reduce = then.create("stablehlo.all_reduce", {one}, {scalar(i32())},
                                    {{"replica_groups", groups({{0, 1}})}}, 1, loc(12));
    Block& sum = reduce->region(0).front();
    Value* x = sum.addArgument(scalar(i32()));
    Value* y = sum.addArgument(scalar(i32()));
    Builder s(sum);
    s.ret({s.op("stablehlo.add", {x, y}, scalar(i32()))});
    then.ret({});
  }
  Builder(ifOp->region(1).front()).ret({});
  b.ret({}, "func.return");
  auto r = runFunction(m, "main", {}, {.numReplicas = 2, .numPartitions = 1});
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.status().message().find("core.mlir:12:3"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace kiln::interp
