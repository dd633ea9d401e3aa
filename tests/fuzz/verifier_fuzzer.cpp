// libFuzzer harness: the verifier on nearly valid IR. A valid program from
// the differential fuzzer's generator (tests/fuzz/random_program.h) is broken
// by a few mutations read from the same bytes: a result or block argument
// retyped (odd shapes: 0, `?`, 2^40, INT64_MAX; any element type), an
// attribute perturbed, dropped or taken from another op, an operand swapped
// for another value (of another type, or one defined later or in another
// region), or an op renamed to any registered op with the same operands,
// attributes and results. The verifier must return an error or accept, never
// crash, hang or allocate without bound; what it accepts must print, and the
// print must parse, verify and print the same (as in text_fuzzer.cpp).
//
// Text inputs mostly stop in the parser; this harness spends its executions
// in the verifier and the type rules, with no parse in front. Built by
// scripts/fuzz.sh.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kiln/ir/ir.h"
#include "kiln/ir/op_registry.h"
#include "kiln/ir/verifier.h"
#include "kiln/parse/parser.h"
#include "tests/fuzz/print_round_trip.h"
#include "tests/fuzz/random_program.h"

namespace {

using kiln::Attribute;
using kiln::AttrKind;
using kiln::Operation;
using kiln::Type;
using kiln::Value;
using kiln::fuzz::Choices;

int64_t interestingInt(Choices& c) {
  static const int64_t values[] = {0, 1, -1, 2, 3, 4, 5, -2, 7, 64, 1 << 20, int64_t(1) << 32, int64_t(1) << 40,
                                   std::numeric_limits<int32_t>::max(), std::numeric_limits<int64_t>::max(),
                                   std::numeric_limits<int64_t>::min()};
  return values[c.below(sizeof values / sizeof values[0])];
}

Type randomElement(Choices& c) {
  // Every element kind the parser can write (I1 .. Complex128, then index).
  uint32_t kind = c.below(uint32_t(kiln::TypeKind::Index) + 1);
  return Type::element(kiln::TypeKind(kind));
}

// A tensor type with dims the parser also accepts: non-negative or `?`.
Type randomTensor(Choices& c, Type like) {
  if (c.below(8) == 0) return c.coin() ? Type::token() : Type::tuple(std::vector<Type>{like});
  std::vector<int64_t> shape;
  if (like.isTensor() && c.coin()) shape.assign(like.shape().begin(), like.shape().end());
  else shape.resize(c.below(6));
  if (!shape.empty() && c.coin()) {
    static const int64_t dims[] = {0, 1, 2, 3, 5, Type::kDynamic, int64_t(1) << 40, std::numeric_limits<int64_t>::max()};
    shape[c.below(shape.size())] = dims[c.below(sizeof dims / sizeof dims[0])];
  }
  Type element = like.isTensor() && c.coin() ? like.elementType() : randomElement(c);
  return Type::tensor(shape, element);
}

Attribute perturbed(Choices& c, const Attribute& a) {
  switch (a.kind()) {
    case AttrKind::DenseArray: {
      std::vector<int64_t> v(a.denseArrayInts().begin(), a.denseArrayInts().end());
      switch (c.below(3)) {
        case 0: if (!v.empty()) v[c.below(v.size())] = interestingInt(c); break;
        case 1: if (!v.empty()) v.pop_back(); break;
        case 2: v.push_back(interestingInt(c)); break;
      }
      return Attribute::denseI64Array(std::move(v));
    }
    case AttrKind::Integer: return Attribute::integer(interestingInt(c), a.valueType());
    case AttrKind::Array: {
      std::vector<Attribute> v(a.arrayValue().begin(), a.arrayValue().end());
      if (!v.empty() && c.coin()) v[c.below(v.size())] = Attribute::integer(interestingInt(c));
      else if (!v.empty() && c.coin()) v.pop_back();
      else v.push_back(Attribute::integer(interestingInt(c)));
      return Attribute::array(std::move(v));
    }
    case AttrKind::Struct: {
      std::vector<kiln::NamedAttribute> fields(a.entries().begin(), a.entries().end());
      if (fields.empty()) return a;
      auto& field = fields[c.below(fields.size())];
      if (c.below(4) == 0) fields.erase(fields.begin() + (&field - fields.data()));
      else field.second = perturbed(c, field.second);
      return Attribute::structAttr(a.attrName(), std::move(fields), a.dialect());
    }
    case AttrKind::Enum: {
      static const char* values[] = {"EQ", "NE", "LT", "GT", "FLOAT", "SIGNED", "UNSIGNED", "TOTALORDER", "", "bogus"};
      return Attribute::enumAttr(a.attrName(), values[c.below(sizeof values / sizeof values[0])], a.dialect());
    }
    case AttrKind::DenseElements: {
      // The same bytes under another type: too few or too many for it is the
      // verifier's (or the attribute reader's) to catch, so keep sizes exact.
      Type t = a.valueType();
      Type other = randomTensor(c, t);
      if (!other.isTensor() || other.numElements() < 0 || other.numElements() > 64) return a;
      size_t bytes = size_t(other.numElements()) * other.elementType().storageBytes();
      std::vector<uint8_t> data(bytes);
      for (uint8_t& b : data) b = uint8_t(c.below(256));
      return Attribute::dense(other, std::move(data));
    }
    case AttrKind::Type: return Attribute::type(randomTensor(c, a.valueType()));
    default: return Attribute::integer(interestingInt(c));
  }
}

class Mutator {
 public:
  Mutator(Choices& c, kiln::Module& module) : c_(c), module_(module) { collect(); }

  void mutate() {
    if (ops_.empty()) return;
    Operation* op = ops_[c_.below(ops_.size())];
    switch (c_.below(6)) {
      case 0:
        if (op->numResults()) op->result(c_.below(op->numResults()))->setType(randomTensor(c_, op->result()->type()));
        break;
      case 1: {  // a block argument (function parameter, reduce body argument)
        if (arguments_.empty()) break;
        Value* arg = arguments_[c_.below(arguments_.size())];
        arg->setType(randomTensor(c_, arg->type()));
        break;
      }
      case 2: {
        auto entries = op->attrs().entries();
        if (entries.empty()) break;
        const kiln::NamedAttribute& entry = entries[c_.below(entries.size())];
        std::string name = entry.first;
        if (c_.below(5) == 0) dropAttr(op, name);
        else op->setAttr(name, perturbed(c_, entry.second));
        break;
      }
      case 3: {  // an attribute of another op, under its own or this op's name
        Operation* from = ops_[c_.below(ops_.size())];
        auto entries = from->attrs().entries();
        if (entries.empty()) break;
        const kiln::NamedAttribute& entry = entries[c_.below(entries.size())];
        auto own = op->attrs().entries();
        std::string name = !own.empty() && c_.coin() ? own[c_.below(own.size())].first : entry.first;
        op->setAttr(name, entry.second);
        break;
      }
      case 4:
        if (op->numOperands() && !values_.empty())
          op->setOperand(c_.below(op->numOperands()), values_[c_.below(values_.size())]);
        break;
      case 5: rename(op); break;
    }
  }

 private:
  void collect() {
    module_.body().front()->walk([&](Operation& o) {
      Operation* op = &o;
      ops_.push_back(op);
      for (Value* v : op->results()) values_.push_back(v);
      for (unsigned r = 0; r < op->numRegions(); ++r)
        for (const auto& block : op->region(r).blocks())
          for (Value* a : block->arguments()) {
            arguments_.push_back(a);
            values_.push_back(a);
          }
    });
  }

  void dropAttr(Operation* op, const std::string& name) {
    kiln::AttrDict kept;
    for (const auto& [n, a] : op->attrs().entries())
      if (n != name) kept.set(n, a);
    op->attrs() = std::move(kept);
  }

  // Replaces `op` (when it has no regions, so nothing nested is lost) by an
  // op of another registered name with its operands, attributes and results.
  void rename(Operation* op) {
    if (op->numRegions() || !op->parentBlock() || op->name() == "func.return") return;
    static const std::vector<const kiln::OpDef*> defs = kiln::allOpDefs();
    const kiln::OpDef* def = defs[c_.below(defs.size())];
    if (def->name == "func.func" || def->name == "builtin.module") return;
    kiln::OperationState st{std::string(def->name)};
    st.operands.assign(op->operands().begin(), op->operands().end());
    st.resultTypes = op->resultTypes();
    st.attributes = op->attrs();
    Operation* renamed = op->parentBlock()->insertBefore(op, Operation::create(std::move(st)));
    for (unsigned i = 0; i < op->numResults(); ++i) op->result(i)->replaceAllUsesWith(renamed->result(i));
    for (auto& v : values_)
      for (unsigned i = 0; i < op->numResults(); ++i)
        if (v == op->result(i)) v = renamed->result(i);
    for (auto& o : ops_)
      if (o == op) o = renamed;
    op->erase();
  }

  Choices& c_;
  kiln::Module& module_;
  std::vector<Operation*> ops_;
  std::vector<Value*> values_;
  std::vector<Value*> arguments_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Choices choices(data, size);
  std::unique_ptr<kiln::Module> module = kiln::fuzz::randomProgram(choices);
  Mutator mutator(choices, *module);
  for (uint32_t n = 1 + choices.below(4); n > 0; --n) mutator.mutate();
  if (!kiln::verifyModule(*module).isOk()) return 0;
  kiln::fuzz::checkPrintReadsBack(*module);
  return 0;
}
