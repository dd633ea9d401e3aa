// refine_shapes: makes a function's types static (see refine_shapes.h).
// Runs to a fixed point: refining one op's result makes the next op's shape
// operand a constant (after folding), which refines that op, and so on.
#include "kiln/passes/refine_shapes.h"

#include <algorithm>

#include "kiln/interp/kernel_util.h"
#include "kiln/interp/tensor.h"
#include "kiln/ir/op_registry.h"
#include "kiln/passes/op_builder.h"
#include "kiln/passes/pass.h"

namespace kiln {

bool isStaticType(Type t) {
  if (t.isTensor()) return std::ranges::find(t.shape(), Type::kDynamic) == t.shape().end();
  if (t.isTuple()) return std::ranges::all_of(t.tupleTypes(), isStaticType);
  return true;
}

namespace {

using Dims = std::vector<int64_t>;

// Enough rounds for shape computations many ops deep; each round refines at
// least one op or stops.
constexpr int kMaxRounds = 64;

// Shape operands and assertions are short lists (one integer per
// dimension); a longer constant is never read as one, so a giant splat
// (`dense<1> : tensor<1099511627776xi64>`) is not written out.
constexpr int64_t kMaxShapeOperandElements = int64_t{1} << 16;

std::optional<Dims> constantInts(const Value* v) {
  const Operation* def = v->definingOp();
  if (!def || def->name() != "stablehlo.constant" || !v->type().isTensor()) return std::nullopt;
  int64_t n = v->type().numElements();
  if (n < 0 || n > kMaxShapeOperandElements) return std::nullopt;
  Type e = v->type().elementType();
  if (!e.isInteger() && !e.isBool() && e.kind() != TypeKind::Index) return std::nullopt;
  return interp::intsOf(interp::Tensor::fromDense(def->attr("value")));
}

bool allConstant(const Operation& op, unsigned first) {
  for (unsigned i = first; i < op.numOperands(); ++i)
    if (!constantInts(op.operand(i))) return false;
  return true;
}

// Replaces `op`'s one result by `name(operands) {attrs}`, typed `result`
// (inferred when null).
void replaceBy(Operation& op, std::string name, std::vector<Value*> operands, AttrDict attrs, Type result = {}) {
  Builder b(op);
  op.replaceWith(std::vector<Value*>{b.op(std::move(name), std::move(operands), std::move(attrs), result)});
}

AttrDict copyAttrs(const Operation& op, std::initializer_list<std::string_view> names) {
  AttrDict d;
  for (std::string_view n : names)
    if (Attribute a = op.attr(n)) d.set(n, a);
  return d;
}

Attribute i64Tensor(Dims shape, const Dims& values) {
  std::vector<uint8_t> bytes(values.size() * 8);
  for (size_t i = 0; i < values.size(); ++i)
    for (int b = 0; b < 8; ++b) bytes[i * 8 + b] = uint8_t(uint64_t(values[i]) >> (8 * b));
  return Attribute::dense(Type::tensor(shape, Type::si64()), std::move(bytes));
}

// "{0}" ... in JAX's message, filled with the assertion's operands after the predicate.
std::string assertionMessage(const Operation& op) {
  Attribute m = op.attr("error_message");
  std::string text = m && m.is(AttrKind::String) ? m.stringValue() : "shape assertion failed";
  for (unsigned i = 1; i < op.numOperands(); ++i) {
    std::string key = "{" + std::to_string(i - 1) + "}", value = std::to_string((*constantInts(op.operand(i)))[0]);
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  }
  return text;
}

// The function `name` of the module holding `op`.
const Operation* functionNamed(const Operation& op, std::string_view name) {
  const Operation* top = &op;
  while (top->parentOp()) top = top->parentOp();
  for (const auto& block : top->region(0).blocks())
    for (Operation* fn : block->ops())
      if (fn->name() == "func.func" && func::name(*fn) == name) return fn;
  return nullptr;
}

// StableHLO's `custom_call @stablehlo.dynamic_reduce_window(inputs...,
// init_values..., window_dimensions, window_strides, base_dilations,
// window_dilations, padding) {called_computations = [@body]}` (JAX's
// cumulative reductions of symbolic sizes) with constant window operands:
// a reduce_window whose body is a copy of @body.
bool dynamicReduceWindowAsStatic(Operation& op) {
  unsigned n = op.numOperands();
  Attribute cc = op.attr("called_computations");
  if (n < 7 || (n - 5) % 2 || !allConstant(op, n - 5) || !cc || !cc.is(AttrKind::Array) ||
      cc.arrayValue().size() != 1 || !cc.arrayValue()[0].is(AttrKind::SymbolRef))
    return false;
  const Operation* body = functionNamed(op, cc.arrayValue()[0].symbolPath()[0]);
  if (!body || body->region(0).numBlocks() != 1) return false;
  unsigned inputs = (n - 5) / 2;
  OperationState st("stablehlo.reduce_window", op.loc());
  for (unsigned i = 0; i < 2 * inputs; ++i) st.operands.push_back(op.operand(i));
  const char* names[] = {"window_dimensions", "window_strides", "base_dilations", "window_dilations"};
  for (unsigned k = 0; k < 4; ++k)
    st.attributes.set(names[k], Attribute::denseI64Array(*constantInts(op.operand(2 * inputs + k))));
  Dims padding = *constantInts(op.operand(n - 1));
  st.attributes.set("padding", i64Tensor({int64_t(padding.size() / 2), 2}, padding));
  Block* block = st.addRegion()->addBlock();
  Block& from = func::body(*body);
  std::vector<std::pair<Value*, Value*>> mapping;
  for (unsigned i = 0; i < from.numArguments(); ++i)
    mapping.emplace_back(from.argument(i), block->addArgument(from.argument(i)->type()));
  for (Operation* inner : from.ops()) {
    if (inner->name() != "func.return") {
      block->push_back(inner->clone(&mapping));
      continue;
    }
    OperationState ret("stablehlo.return", inner->loc());
    for (Value* v : inner->operands()) {
      Value* m = v;
      for (auto& [a, b] : mapping)
        if (a == v) m = b;
      ret.operands.push_back(m);
    }
    block->push_back(Operation::create(std::move(ret)));
  }
  op.replaceWith(insertBefore(&op, std::move(st))->results());
  return true;
}

// Rewrites a dynamism op whose shape operands are constants into its static
// twin; true when it did.
bool makeStatic(Operation& op) {
  std::string_view name = op.name();
  Value* x = op.numOperands() ? op.operand(0) : nullptr;
  Type result = op.numResults() == 1 ? op.result()->type() : Type();
  if (name == "stablehlo.get_dimension_size") {
    int64_t d = x->type().shape()[op.attr("dimension").intValue()];
    if (d == Type::kDynamic) return false;
    Builder b(op);
    op.replaceWith(std::vector<Value*>{b.constant(Type::tensor({}, Type::si32()), double(d))});
    return true;
  }
  if (name == "stablehlo.set_dimension_size") {
    std::optional<Dims> size = constantInts(op.operand(1));
    int64_t dim = op.attr("dimension").intValue();
    if (!size || !isStaticType(x->type()) || (*size)[0] != x->type().shape()[dim]) return false;
    op.replaceWith(std::vector<Value*>{x});
    return true;
  }
  static constexpr std::string_view kDynamismOps[] = {
      "stablehlo.dynamic_broadcast_in_dim", "stablehlo.dynamic_reshape", "stablehlo.dynamic_iota",
      "stablehlo.dynamic_pad", "stablehlo.real_dynamic_slice", "stablehlo.dynamic_gather",
      "stablehlo.dynamic_conv"};
  if (std::ranges::find(kDynamismOps, name) == std::end(kDynamismOps)) return false;
  // The shape operands: all but the data operands in front.
  unsigned firstShape = name == "stablehlo.dynamic_iota" ? 0
                        : name == "stablehlo.dynamic_pad" || name == "stablehlo.dynamic_gather" ||
                                name == "stablehlo.dynamic_conv"
                            ? 2
                            : 1;
  if (op.numOperands() <= firstShape || !allConstant(op, firstShape)) return false;
  auto ints = [&](unsigned i) { return *constantInts(op.operand(i)); };
  if (name == "stablehlo.dynamic_broadcast_in_dim") {
    replaceBy(op, "stablehlo.broadcast_in_dim", {x}, copyAttrs(op, {"broadcast_dimensions"}),
              Type::tensor(ints(1), result.elementType()));
  } else if (name == "stablehlo.dynamic_reshape") {
    replaceBy(op, "stablehlo.reshape", {x}, {}, Type::tensor(ints(1), result.elementType()));
  } else if (name == "stablehlo.dynamic_iota") {
    replaceBy(op, "stablehlo.iota", {}, copyAttrs(op, {"iota_dimension"}), Type::tensor(ints(0), result.elementType()));
  } else if (name == "stablehlo.dynamic_pad") {
    replaceBy(op, "stablehlo.pad", {x, op.operand(1)},
              AttrDict({{"edge_padding_low", Attribute::denseI64Array(ints(2))},
                        {"edge_padding_high", Attribute::denseI64Array(ints(3))},
                        {"interior_padding", Attribute::denseI64Array(ints(4))}}));
  } else if (name == "stablehlo.real_dynamic_slice") {
    Dims start = ints(1), limit = ints(2), strides = ints(3);
    if (!isStaticType(x->type())) return false;
    for (size_t d = 0; d < start.size(); ++d)
      if (strides[d] < 1 || start[d] < 0 || start[d] > limit[d] || limit[d] > x->type().shape()[d]) return false;
    replaceBy(op, "stablehlo.slice", {x},
              AttrDict({{"start_indices", Attribute::denseI64Array(start)},
                        {"limit_indices", Attribute::denseI64Array(limit)},
                        {"strides", Attribute::denseI64Array(strides)}}));
  } else if (name == "stablehlo.dynamic_gather") {
    AttrDict attrs = copyAttrs(op, {"dimension_numbers", "indices_are_sorted"});
    attrs.set("slice_sizes", Attribute::denseI64Array(ints(2)));
    replaceBy(op, "stablehlo.gather", {x, op.operand(1)}, std::move(attrs));
  } else if (name == "stablehlo.dynamic_conv") {
    Dims padding = ints(2);
    AttrDict attrs = copyAttrs(op, {"window_strides", "lhs_dilation", "rhs_dilation", "window_reversal",
                                    "dimension_numbers", "feature_group_count", "batch_group_count",
                                    "precision_config"});
    attrs.set("padding", i64Tensor({int64_t(padding.size() / 2), 2}, padding));
    replaceBy(op, "stablehlo.convolution", {x, op.operand(1)}, std::move(attrs),
              isStaticType(result) ? result : Type());
  } else {
    return false;
  }
  return true;
}

// Gives `op`'s dynamic results the types its rule infers from its operands;
// the declared element type is kept (a dot's preferred type, a convert's
// target). Elementwise ops whose rule needs declared results take their
// first operand's shape.
bool inferStaticResults(Operation& op) {
  bool dynamic = false;
  for (Value* r : op.results()) dynamic |= !isStaticType(r->type());
  if (!dynamic) return false;
  for (Value* v : op.operands())
    if (!isStaticType(v->type())) return false;
  std::vector<Type> operandTypes = op.operandTypes(), inferred;
  const OpDef* def = op.def();
  if (def && def->typeRule) {
    OpTypeContext ctx{op.name(), op.loc(), operandTypes, op.attrs(), op.regions(), {}, false};
    if (Expected<std::vector<Type>> r = def->typeRule(ctx)) inferred = std::move(*r);
  }
  if (inferred.size() != op.numResults() && def && def->has(kElementwise) && op.numOperands() &&
      operandTypes[0].isTensor()) {
    for (Value* r : op.results()) inferred.push_back(Type::tensor(operandTypes[0].shape(), r->type().elementType()));
  }
  if (inferred.size() != op.numResults()) return false;
  bool changed = false;
  for (unsigned i = 0; i < op.numResults(); ++i) {
    Type old = op.result(i)->type(), now = inferred[i];
    if (isStaticType(old) || !now.isTensor() || !isStaticType(now) || now.rank() != old.rank()) continue;
    op.result(i)->setType(Type::tensor(now.shape(), old.elementType()));
    changed = true;
  }
  return changed;
}

Expected<bool> refineBlock(Block& block);

// A while loop carries its operands' types into both regions' arguments.
bool refineLoopArguments(Operation& op) {
  if (op.name() != "stablehlo.while") return false;
  bool changed = false;
  for (unsigned r = 0; r < op.numRegions(); ++r) {
    Block& entry = *op.region(r).blocks().front();
    for (unsigned i = 0; i < entry.numArguments() && i < op.numOperands(); ++i)
      if (entry.argument(i)->type() != op.operand(i)->type() && isStaticType(op.operand(i)->type())) {
        entry.argument(i)->setType(op.operand(i)->type());
        changed = true;
      }
  }
  return changed;
}

Expected<bool> refineOp(Operation& op) {
  if (op.name() == "stablehlo.custom_call") {
    Attribute target = op.attr("call_target_name");
    if (target && target.stringValue() == "stablehlo.dynamic_reduce_window" && dynamicReduceWindowAsStatic(op))
      return true;
    if (target && target.stringValue() == "shape_assertion" && op.numOperands() && allConstant(op, 0)) {
      if ((*constantInts(op.operand(0)))[0] == 0) {
        Status failed = error(op.loc(), "shape assertion failed: " + assertionMessage(op));
        failed.diag().code = ErrorCode::InvalidArgument;  // the arguments' shapes are wrong, not the program
        return failed;
      }
      op.erase();
      return true;
    }
  }
  bool changed = refineLoopArguments(op);
  for (unsigned r = 0; r < op.numRegions(); ++r)
    for (auto& block : op.region(r).blocks()) {
      KILN_ASSIGN_OR_RETURN(bool inner, refineBlock(*block));
      changed |= inner;
    }
  if (makeStatic(op)) return true;
  return inferStaticResults(op) || changed;
}

Expected<bool> refineBlock(Block& block) {
  bool changed = false;
  for (Operation* op : block.ops()) {  // a snapshot: refining may replace the op
    KILN_ASSIGN_OR_RETURN(bool c, refineOp(*op));
    changed |= c;
  }
  return changed;
}

Status setArgumentTypes(Operation& fn, std::span<const Type> types) {
  Block& body = func::body(fn);
  Type fnType = func::type(fn);
  std::string name(func::name(fn));
  if (types.size() != fnType.inputs().size())
    return error(ErrorCode::InvalidArgument, "@" + name + " takes " + std::to_string(fnType.inputs().size()) +
                                                 " argument(s), " + std::to_string(types.size()) + " given");
  for (size_t i = 0; i < types.size(); ++i) {
    Type param = fnType.inputs()[i], arg = types[i];
    bool fits = param == arg;
    if (!fits && param.isTensor() && arg.isTensor() && isStaticType(arg) && param.rank() == arg.rank() &&
        param.elementType() == arg.elementType()) {
      fits = true;
      for (int64_t d = 0; d < param.rank(); ++d) {
        int64_t bound = param.bounds().empty() ? Type::kDynamic : param.bounds()[d];
        if (param.shape()[d] == Type::kDynamic)
          fits &= bound == Type::kDynamic || arg.shape()[d] <= bound;
        else
          fits &= param.shape()[d] == arg.shape()[d];
      }
    }
    if (!fits)
      return error(ErrorCode::InvalidArgument, "argument " + std::to_string(i) + " of @" + name + ": expected " +
                                                   param.str() + ", given " + arg.str());
    body.argument(unsigned(i))->setType(arg);
  }
  return Status::ok();
}

// The function's type from its (refined) arguments and returned values.
void updateFunctionType(Operation& fn) {
  Block& body = func::body(fn);
  std::vector<Type> inputs, results;
  for (unsigned i = 0; i < body.numArguments(); ++i) inputs.push_back(body.argument(i)->type());
  for (Operation* op : body.ops())
    if (op->name() == "func.return") results = op->operandTypes();
  fn.setAttr("function_type", Attribute::type(Type::function(inputs, results)));
}

Status checkStatic(Operation& fn) {
  Status status = Status::ok();
  fn.walk([&](Operation& op) {
    if (!status.isOk() || &op == &fn) return;
    for (Value* r : op.results())
      if (!isStaticType(r->type()) && status.isOk())
        status = error(op.loc(), "'" + op.name() + "' op: cannot refine the type " + r->type().str() +
                                     " to a static one (its shape operands are not constants)");
  });
  return status;
}

}  // namespace

Status refineShapes(Module& module, std::string_view entry, std::optional<std::span<const Type>> argumentTypes) {
  Operation* fn = module.lookupFunction(entry);
  if (!fn || fn->region(0).numBlocks() == 0) return error(ErrorCode::NotFound, "no function @" + std::string(entry));
  if (argumentTypes) KILN_RETURN_IF_ERROR(setArgumentTypes(*fn, *argumentTypes));
  KILN_ASSIGN_OR_RETURN(PassManager inlineAndFold, parsePassList("inline"));
  KILN_RETURN_IF_ERROR(inlineAndFold.run(module));
  KILN_ASSIGN_OR_RETURN(PassManager fold, parsePassList("constant_fold"));
  for (int round = 0; round < kMaxRounds; ++round) {
    KILN_ASSIGN_OR_RETURN(bool changed, refineBlock(func::body(*fn)));
    KILN_RETURN_IF_ERROR(fold.run(module));
    if (!changed) break;
  }
  updateFunctionType(*fn);
  return checkStatic(*fn);
}

namespace {

// As a pass: refines every public function whose parameters are static.
class RefineShapesPass final : public Pass {
 public:
  std::string_view name() const override { return "refine_shapes"; }
  Expected<bool> run(Module& module) override {
    for (Operation* fn : module.definedFunctions()) {
      if (!func::isPublic(*fn) || !std::ranges::all_of(func::type(*fn).inputs(), isStaticType)) continue;
      KILN_RETURN_IF_ERROR(refineShapes(module, func::name(*fn)));
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> createRefineShapesPass() { return std::make_unique<RefineShapesPass>(); }

}  // namespace kiln
