#include "kiln/passes/pass_util.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "kiln/interp/evaluate_op.h"
#include "kiln/ir/op_registry.h"
#include "kiln/ir/float_formats.h"

namespace kiln {

bool isRemovableIfUnused(const Operation& op) {
  if (!op.def() || !op.def()->has(kPure) || op.def()->has(kTerminator)) return false;
  for (auto& region : op.regions())
    for (auto& block : region->blocks())
      for (Operation& inner : *block)
        if (!inner.def() || (!inner.def()->has(kPure) && !inner.def()->has(kReturnLike))) return false;
  return true;
}

Attribute intArrayAttribute(std::span<const int64_t> values) {
  std::vector<Attribute> elements;
  for (int64_t x : values) elements.push_back(Attribute::integer(x));
  return Attribute::array(std::move(elements));
}

std::optional<std::vector<uint8_t>> splatConstantBytes(const Value* v) {
  const Operation* op = v->definingOp();
  if (!op || op->name() != "stablehlo.constant") return std::nullopt;
  Attribute value = op->attr("value");
  if (!value.is(AttrKind::DenseElements)) return std::nullopt;
  unsigned bytes = value.valueType().elementType().storageBytes();
  std::span<const uint8_t> data = value.denseData();
  if (data.size() < bytes) return std::nullopt;
  // A non-splat literal whose elements are all equal counts as a splat too.
  for (size_t off = bytes; off < data.size(); off += bytes)
    if (std::memcmp(data.data(), data.data() + off, bytes) != 0) return std::nullopt;
  return std::vector<uint8_t>(data.begin(), data.begin() + bytes);
}

bool isSplatConstantOf(const Value* v, double value) {
  auto bytes = splatConstantBytes(v);
  if (!bytes) return false;
  Type et = v->type().elementType();
  uint64_t raw = 0;
  for (size_t i = 0; i < bytes->size() && i < 8; ++i) raw |= uint64_t((*bytes)[i]) << (8 * i);
  if (et.isFloat()) return raw == encodeFloat(et.kind(), value);
  if (et.isBool()) return raw == (value != 0 ? 1u : 0u);
  if (et.isInteger()) {
    int64_t iv = static_cast<int64_t>(value);
    if (static_cast<double>(iv) != value) return false;
    unsigned bits = et.storageBytes() * 8;
    uint64_t mask = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
    return raw == (static_cast<uint64_t>(iv) & mask);
  }
  return false;
}

Attribute denseInts(std::vector<int64_t> shape, const std::vector<int64_t>& values, unsigned bits) {
  std::vector<uint8_t> bytes;
  for (int64_t v : values)
    for (unsigned b = 0; b < bits / 8; ++b) bytes.push_back(static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * b)));
  return Attribute::dense(Type::tensor(shape, Type::integer(bits)), std::move(bytes));
}

std::optional<int64_t> scalarIntConstant(const Value* v) {
  const Operation* def = v->definingOp();
  if (!def || def->name() != "stablehlo.constant" || !v->type().isTensor() || v->type().numElements() != 1 ||
      !v->type().elementType().isInteger())
    return std::nullopt;
  Expected<std::vector<interp::Tensor>> value = interp::evaluateOp(*def, {});
  if (!value || value->size() != 1) return std::nullopt;
  return (*value)[0].getInt(0);
}

Operation* insertBefore(Operation* pos, OperationState&& state) {
  Status s = inferOrCheckResultTypes(state);
  assert(s.isOk() && "rewrite built an invalid op");
  (void)s;
  return pos->parentBlock()->insertBefore(pos, Operation::create(std::move(state)));
}

std::vector<Value*> cloneBodyBefore(Operation* anchor, Block& body, std::span<Value* const> arguments) {
  std::vector<std::pair<Value*, Value*>> mapping;
  for (unsigned i = 0; i < body.numArguments(); ++i) mapping.emplace_back(body.argument(i), arguments[i]);
  std::vector<Value*> yielded;
  for (Operation& op : body) {
    if (&op == body.terminator()) {
      for (Value* v : op.operands()) {
        Value* m = v;
        for (auto& [from, to] : mapping)
          if (from == v) m = to;
        yielded.push_back(m);
      }
      break;
    }
    anchor->parentBlock()->insertBefore(anchor, op.clone(&mapping));
  }
  return yielded;
}

void cloneBlockInto(Block& from, Block& to, std::vector<std::pair<Value*, Value*>>& mapping,
                    const std::string& terminator) {
  for (Operation& op : from) {
    if (&op != from.terminator()) {
      to.push_back(op.clone(&mapping));
      continue;
    }
    OperationState ret(terminator, op.loc());
    for (Value* v : op.operands()) {
      auto it = std::find_if(mapping.begin(), mapping.end(), [v](const auto& m) { return m.first == v; });
      ret.operands.push_back(it == mapping.end() ? v : it->second);
    }
    to.push_back(Operation::create(std::move(ret)));
  }
}

std::unique_ptr<Operation> outlineFunction(Block& body, std::span<Value* const> captured, const std::string& name,
                                           Location loc) {
  std::vector<Type> inputs = body.argumentTypes();
  for (Value* v : captured) inputs.push_back(v->type());
  std::vector<Type> results;
  if (Operation* yield = body.terminator())
    for (Value* v : yield->operands()) results.push_back(v->type());
  OperationState fn("func.func", loc);
  fn.attributes.set("sym_name", Attribute::string(name));
  fn.attributes.set("function_type", Attribute::type(Type::function(inputs, results)));
  Block* entry = fn.addRegion()->addBlock();
  std::vector<std::pair<Value*, Value*>> mapping;
  for (unsigned i = 0; i < body.numArguments(); ++i)
    mapping.emplace_back(body.argument(i), entry->addArgument(body.argument(i)->type(), body.argument(i)->loc));
  for (Value* v : captured) mapping.emplace_back(v, entry->addArgument(v->type()));
  cloneBlockInto(body, *entry, mapping, "func.return");
  return Operation::create(std::move(fn));
}

}  // namespace kiln
