#include "tests/fuzz/random_program.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "kiln/ir/float_formats.h"
#include "kiln/ir/op_registry.h"
#include "kiln/ir/printer.h"

namespace kiln::fuzz {
namespace {

using Shape = std::vector<int64_t>;

constexpr int kMaxOps = 16;
constexpr int kMaxRank = 4;
constexpr int64_t kMaxDim = 5;
constexpr size_t kMaxResults = 4;

Attribute i64s(std::vector<int64_t> v) { return Attribute::denseI64Array(std::move(v)); }
Attribute intArray(const std::vector<int64_t>& v) {
  std::vector<Attribute> elements;
  for (int64_t x : v) elements.push_back(Attribute::integer(x));
  return Attribute::array(std::move(elements));
}
Type scalarOf(Type element) { return Type::tensor({}, element); }
Shape shapeOf(Value* v) { return Shape(v->type().shape().begin(), v->type().shape().end()); }

class Generator {
 public:
  explicit Generator(Choices& c) : c_(c) {}

  std::unique_ptr<Module> build() {
    auto module = std::make_unique<Module>();
    OperationState fn("func.func");
    fn.attributes.set("sym_name", Attribute::string("main"));
    body_ = fn.addRegion()->addBlock();
    std::vector<Type> params;
    for (uint32_t n = 1 + c_.below(3); n > 0; --n) {
      params.push_back(Type::tensor(randomShape(), randomElement()));
      add(body_->addArgument(params.back()), true);
    }
    for (int n = 1 + c_.below(kMaxOps); n > 0; --n) step();
    // The results: the last few values no op uses (so that no op is dead
    // code the pipeline drops unseen), else the last value.
    std::vector<Value*> results;
    for (auto v = pool_.rbegin(); v != pool_.rend() && results.size() < kMaxResults; ++v)
      if ((*v)->useEmpty() && !(*v)->isBlockArgument()) results.push_back(*v);
    if (results.empty()) results.push_back(pool_.back());
    std::vector<Type> resultTypes;
    for (Value* v : results) resultTypes.push_back(v->type());
    fn.attributes.set("function_type", Attribute::type(Type::function(params, resultTypes)));
    Operation* fnOp = module->body().push_back(Operation::create(std::move(fn)));
    OperationState ret("func.return");
    ret.operands = results;
    func::body(*fnOp).push_back(Operation::create(std::move(ret)));
    return module;
  }

 private:
  // f32, si32 and i1 most often; f64, bf16 and si64 sometimes.
  Type randomElement() {
    static const Type kinds[] = {Type::f32(),  Type::f32(), Type::si32(), Type::si32(),
                                 Type::i1(),   Type::f64(), Type::element(TypeKind::BF16), Type::si64()};
    return kinds[c_.below(8)];
  }
  Shape randomShape() {
    Shape s(c_.below(kMaxRank + 1));
    for (int64_t& d : s) d = 1 + c_.below(kMaxDim);
    return s;
  }
  void add(Value* v, bool exact) {
    pool_.push_back(v);
    if (exact) exact_.insert(v);
  }
  bool isExact(Value* v) const { return exact_.count(v) != 0; }
  // A pool value, often the newest: chains of ops, not a heap of one-op trees.
  Value* any() { return c_.coin() ? pool_.back() : pool_[c_.below(pool_.size())]; }
  // A pool value of `type` if there is one, else a new constant of it.
  Value* ofType(Type type) {
    std::vector<Value*> same;
    for (Value* v : pool_)
      if (v->type() == type) same.push_back(v);
    return same.empty() || c_.below(4) == 0 ? constant(type) : same[c_.below(same.size())];
  }

  // Appends an op; the result types are checked against the op's type rule
  // here, so a generator bug shows at the op that has it.
  Value* emit(std::string name, std::vector<Value*> operands, Type result, AttrDict attrs = {},
              std::unique_ptr<Region> region = nullptr) {
    OperationState st(std::move(name));
    st.operands = std::move(operands);
    st.resultTypes = {result};
    st.attributes = std::move(attrs);
    if (region) st.regions.push_back(std::move(region));
    Status s = inferOrCheckResultTypes(st);
    if (!s.isOk()) {
      std::fprintf(stderr, "differential fuzzer: generator built an invalid %s: %s\n", st.name.c_str(),
                   s.diag().str().c_str());
      std::abort();
    }
    return body_->push_back(Operation::create(std::move(st)))->result();
  }

  // Shapes grow through pad, concatenate and broadcast; a constant of more
  // than kMaxListedElements is a splat, so that no input spends seconds
  // printing and reading back megabytes of one literal.
  static constexpr int64_t kMaxListedElements = 4096;

  Value* constant(Type type) {
    Type element = type.elementType();
    size_t width = element.storageBytes();
    bool splat = type.numElements() > kMaxListedElements;
    int64_t listed = splat ? 1 : type.numElements();
    std::vector<uint8_t> bytes(width * listed);
    for (int64_t i = 0; i < listed; ++i) {
      int64_t small = int64_t(c_.below(17)) - 8;
      uint64_t raw = element.isFloat() ? encodeFloat(element.kind(), double(small) / 4)
                     : element.isBool() ? uint64_t(small & 1)
                                        : uint64_t(small);
      for (size_t b = 0; b < width; ++b) bytes[i * width + b] = uint8_t(raw >> (8 * b));
    }
    Value* v =
        emit("stablehlo.constant", {}, type, AttrDict({{"value", Attribute::dense(type, std::move(bytes), splat)}}));
    add(v, true);
    return v;
  }

  void step() {
    switch (c_.below(15)) {
      case 0: unary(); break;
      case 1: case 2: binary(); break;
      case 3: compare(); break;
      case 4: select(); break;
      case 5: convert(); break;
      case 6: broadcast(); break;
      case 7: transpose(); break;
      case 8: reshape(); break;
      case 9: slice(); break;
      case 10: concatenate(); break;
      case 11: pad(); break;
      case 12: reduce(); break;
      case 13: dot(); break;
      case 14: c_.coin() ? iota() : (void)constant(Type::tensor(randomShape(), randomElement())); break;
    }
  }

  void unary() {
    Value* a = any();
    Type e = a->type().elementType();
    if (e.isBool()) return add(emit("stablehlo.not", {a}, a->type()), isExact(a));
    if (e.isInteger()) {
      static const char* ops[] = {"negate", "abs", "not"};
      return add(emit(std::string("stablehlo.") + ops[c_.below(3)], {a}, a->type()), true);
    }
    static const char* exactOps[] = {"negate", "abs"};
    static const char* approxOps[] = {"exponential", "tanh", "logistic", "sine", "cosine", "sqrt"};
    // Transcendentals only of exact values: an argument that differs in its
    // last bit would hide the function's own error behind its condition.
    if (!isExact(a) || c_.coin())
      return add(emit(std::string("stablehlo.") + exactOps[c_.below(2)], {a}, a->type()), isExact(a));
    if (c_.coin()) a = emit("stablehlo.abs", {a}, a->type());  // sqrt of a negative is NaN on both, but dull
    add(emit(std::string("stablehlo.") + approxOps[c_.below(6)], {a}, a->type()), false);
  }

  void binary() {
    Value* a = any();
    Value* b = ofType(a->type());
    Type e = a->type().elementType();
    if (c_.below(5) == 0) {  // clamp(min, a, b): a maximum and a minimum, so exact of exact values
      Value* low = ofType(a->type());
      return add(emit("stablehlo.clamp", {low, a, b}, a->type()),
                 !e.isFloat() || (isExact(low) && isExact(a) && isExact(b)));
    }
    static const char* floatOps[] = {"add", "subtract", "multiply", "maximum", "minimum"};
    static const char* intOps[] = {"add", "subtract", "multiply", "maximum", "minimum", "and", "or", "xor"};
    static const char* boolOps[] = {"and", "or", "xor"};
    std::string op = e.isFloat() ? floatOps[c_.below(5)] : e.isBool() ? boolOps[c_.below(3)] : intOps[c_.below(8)];
    bool exact = !e.isFloat() || ((op == "maximum" || op == "minimum") && isExact(a) && isExact(b));
    add(emit("stablehlo." + op, {a, b}, a->type()), exact);
  }

  void compare() {
    Value* a = any();
    Type e = a->type().elementType();
    if (e.isBool() || (e.isFloat() && !isExact(a))) return;
    Value* b = ofType(a->type());
    if (e.isFloat() && !isExact(b)) return;
    static const char* dirs[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
    AttrDict attrs({{"comparison_direction", Attribute::enumAttr("comparison_direction", dirs[c_.below(6)])},
                    {"compare_type", Attribute::enumAttr("comparison_type", e.isFloat() ? "FLOAT" : "SIGNED")}});
    add(emit("stablehlo.compare", {a, b}, a->type().withElementType(Type::i1()), std::move(attrs)), true);
  }

  void select() {
    Value* a = any();
    Value* pred = ofType(a->type().withElementType(Type::i1()));
    Value* b = ofType(a->type());
    add(emit("stablehlo.select", {pred, a, b}, a->type()), isExact(a) && isExact(b) && isExact(pred));
  }

  void convert() {
    Value* a = any();
    Type from = a->type().elementType();
    Type to = randomElement();
    // Float to integer truncates: only exact floats, whose truncation both agree on.
    if (from.isFloat() && !to.isFloat() && !isExact(a)) return;
    add(emit("stablehlo.convert", {a}, a->type().withElementType(to)), isExact(a) || !to.isFloat());
  }

  void broadcast() {
    Value* a = any();
    Shape in = shapeOf(a);
    if (in.size() >= kMaxRank) return;
    size_t rank = in.size() + 1 + c_.below(kMaxRank - in.size());
    // The operand's dims go, in order, to a random increasing set of result dims.
    std::vector<int64_t> positions(rank);
    std::iota(positions.begin(), positions.end(), 0);
    while (positions.size() > in.size()) positions.erase(positions.begin() + c_.below(positions.size()));
    Shape out(rank);
    for (int64_t& d : out) d = 1 + c_.below(kMaxDim);
    for (size_t i = 0; i < in.size(); ++i) out[positions[i]] = in[i] == 1 && c_.coin() ? out[positions[i]] : in[i];
    add(emit("stablehlo.broadcast_in_dim", {a}, Type::tensor(out, a->type().elementType()),
             AttrDict({{"broadcast_dimensions", i64s(positions)}})),
        isExact(a));
  }

  void transpose() {
    Value* a = any();
    Shape in = shapeOf(a);
    std::vector<int64_t> perm(in.size());
    std::iota(perm.begin(), perm.end(), 0);
    for (size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[c_.below(i)]);
    Shape out;
    for (int64_t p : perm) out.push_back(in[p]);
    add(emit("stablehlo.transpose", {a}, Type::tensor(out, a->type().elementType()),
             AttrDict({{"permutation", i64s(perm)}})),
        isExact(a));
  }

  void reshape() {
    Value* a = any();
    int64_t n = a->type().numElements();
    // n's prime factors dealt out to up to kMaxRank dims (padded with 1s).
    Shape out(1 + c_.below(kMaxRank), 1);
    for (int64_t p = 2, m = n; m > 1; ++p)
      for (; m % p == 0; m /= p) out[c_.below(out.size())] *= p;
    if (n == 1 && c_.coin()) out.clear();
    add(emit("stablehlo.reshape", {a}, Type::tensor(out, a->type().elementType())), isExact(a));
  }

  void slice() {
    Value* a = any();
    Shape in = shapeOf(a);
    std::vector<int64_t> start, limit, strides;
    Shape out;
    for (int64_t d : in) {
      start.push_back(c_.below(d));
      limit.push_back(start.back() + 1 + c_.below(d - start.back()));
      strides.push_back(1 + c_.below(2));
      out.push_back((limit.back() - start.back() + strides.back() - 1) / strides.back());
    }
    add(emit("stablehlo.slice", {a}, Type::tensor(out, a->type().elementType()),
             AttrDict({{"start_indices", i64s(start)}, {"limit_indices", i64s(limit)}, {"strides", i64s(strides)}})),
        isExact(a));
  }

  void concatenate() {
    Value* a = any();
    Shape in = shapeOf(a);
    if (in.empty()) return;
    int64_t dim = c_.below(in.size());
    Shape other = in;
    other[dim] = 1 + c_.below(kMaxDim);
    Value* b = ofType(Type::tensor(other, a->type().elementType()));
    Shape out = in;
    out[dim] += other[dim];
    add(emit("stablehlo.concatenate", {a, b}, Type::tensor(out, a->type().elementType()),
             AttrDict({{"dimension", Attribute::integer(dim)}})),
        isExact(a) && isExact(b));
  }

  void pad() {
    Value* a = any();
    Shape in = shapeOf(a);
    Value* value = constant(scalarOf(a->type().elementType()));
    std::vector<int64_t> low, high, interior;
    Shape out;
    for (int64_t d : in) {
      low.push_back(int64_t(c_.below(4)) - 1);  // -1 drops an element
      high.push_back(int64_t(c_.below(4)) - 1);
      interior.push_back(c_.below(2));
      out.push_back(d + low.back() + high.back() + (d - 1) * interior.back());
      if (out.back() < 1) return;  // no empty tensors: the other ops assume dims >= 1
    }
    add(emit("stablehlo.pad", {a, value}, Type::tensor(out, a->type().elementType()),
             AttrDict({{"edge_padding_low", i64s(low)},
                       {"edge_padding_high", i64s(high)},
                       {"interior_padding", i64s(interior)}})),
        isExact(a));
  }

  void reduce() {
    Value* a = any();
    Type e = a->type().elementType();
    Shape in = shapeOf(a);
    if (e.isBool() || in.empty()) return;
    static const char* bodies[] = {"add", "maximum", "minimum", "multiply"};
    std::string body = bodies[c_.below(4)];
    std::vector<int64_t> dims;
    Shape out;
    for (int64_t i = 0; i < int64_t(in.size()); ++i) {
      if (c_.coin()) dims.push_back(i);
      else out.push_back(in[i]);
    }
    if (dims.empty()) return;
    // A float product of many elements overflows f32, and a dot of the
    // infinities gives NaN on the back end (f32 sums) but inf in the
    // interpreter (double sums): a difference in range, not a bug.
    int64_t reduced = 1;
    for (int64_t d : dims) reduced *= in[d];
    if (e.isFloat() && body == "multiply" && reduced > 8) body = "add";
    Type scalar = scalarOf(e);
    Value* init = constant(scalar);
    auto region = std::make_unique<Region>();
    Block* block = region->addBlock();
    Value* lhs = block->addArgument(scalar);
    Value* rhs = block->addArgument(scalar);
    OperationState combine("stablehlo." + body);
    combine.operands = {lhs, rhs};
    combine.resultTypes = {scalar};
    Value* combined = block->push_back(Operation::create(std::move(combine)))->result();
    OperationState ret("stablehlo.return");
    ret.operands = {combined};
    block->push_back(Operation::create(std::move(ret)));
    bool exact = !e.isFloat() || (body != "add" && body != "multiply" && isExact(a));
    add(emit("stablehlo.reduce", {a, init}, Type::tensor(out, e), AttrDict({{"dimensions", i64s(dims)}}),
             std::move(region)),
        exact);
  }

  // dot_general of a with a value of its type (often itself), contracting
  // one dim and, sometimes, batching dim 0 of both.
  void dot() {
    Value* a = any();
    Type e = a->type().elementType();
    Shape in = shapeOf(a);
    if (e.isBool() || in.empty() || in.size() > 3) return;
    Value* b = ofType(a->type());
    bool batch = in.size() >= 2 && c_.coin();
    int64_t first = batch ? 1 : 0;
    int64_t contract = first + c_.below(in.size() - first);
    Shape out;
    if (batch) out.push_back(in[0]);
    for (int side = 0; side < 2; ++side)
      for (int64_t i = first; i < int64_t(in.size()); ++i)
        if (i != contract) out.push_back(in[i]);
    std::vector<int64_t> batchDims = batch ? std::vector<int64_t>{0} : std::vector<int64_t>{};
    Attribute dn = Attribute::structAttr("dot", {{"lhs_batching_dimensions", intArray(batchDims)},
                                                 {"rhs_batching_dimensions", intArray(batchDims)},
                                                 {"lhs_contracting_dimensions", intArray({contract})},
                                                 {"rhs_contracting_dimensions", intArray({contract})}});
    add(emit("stablehlo.dot_general", {a, b}, Type::tensor(out, e), AttrDict({{"dot_dimension_numbers", dn}})),
        !e.isFloat());
  }

  void iota() {
    Shape s = randomShape();
    if (s.empty()) s.push_back(1 + c_.below(kMaxDim));
    Type e = c_.coin() ? Type::f32() : Type::si32();
    add(emit("stablehlo.iota", {}, Type::tensor(s, e), AttrDict({{"iota_dimension", Attribute::integer(c_.below(s.size()))}})),
        true);
  }

  Choices& c_;
  Block* body_ = nullptr;
  std::vector<Value*> pool_;
  std::set<Value*> exact_;
};

}  // namespace

std::unique_ptr<Module> randomProgram(Choices& choices) { return Generator(choices).build(); }

}  // namespace kiln::fuzz
