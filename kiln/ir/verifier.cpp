#include "kiln/ir/verifier.h"

#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "kiln/ir/op_registry.h"
#include "kiln/ir/ops/sdy.h"
#include "kiln/ir/ops/type_rule_helpers.h"

namespace kiln {
namespace {

using rules::str;
using rules::typeListStr;

// "'stablehlo.add' op <message>" at the op's location.
Status opError(const Operation& op, const std::string& message) {
  return error(op.loc(), "'" + op.name() + "' op " + message);
}

bool isStablehloOp(const Operation& op) { return op.name().starts_with("stablehlo."); }

// The function named `name` among the top-level ops of `module`, or null.
const Operation* lookupFunction(const Operation* module, std::string_view name) {
  if (!module || module->numRegions() == 0 || module->region(0).empty()) return nullptr;
  for (const Operation& op : module->region(0).front())
    if (op.name() == "func.func" && func::name(op) == name) return &op;
  return nullptr;
}

const Operation* enclosingModule(const Operation& op) {
  for (const Operation* p = &op; p; p = p->parentOp())
    if (p->name() == "builtin.module") return p;
  return nullptr;
}

// Walks an op tree once, checking each op against its definition and the
// structural rules of the IR.
class Verifier {
 public:
  Verifier(const VerifyOptions& options, const Operation* module)
      : options_(options), module_(module), shardings_(module) {}

  // Makes the values that dominate `op` from its enclosing blocks visible, up
  // to the nearest isolated-from-above ancestor; used when the walk starts
  // below the module.
  void seedEnclosingValues(const Operation& op) {
    for (const Operation* inner = &op; const Block* block = inner->parentBlock(); inner = block->parentOp()) {
      for (const Value* arg : block->arguments()) visible_.emplace(arg, 0);
      for (const Operation* prev = inner->prevInBlock(); prev; prev = prev->prevInBlock())
        for (const Value* result : prev->results()) visible_.emplace(result, 0);
      const Operation* parent = block->parentOp();
      if (!parent || (parent->def() && parent->def()->has(kIsolatedFromAbove))) break;
    }
  }

  // Verifies `op` and everything nested in it. Operands of `op` itself are
  // checked by the caller (the walk of the enclosing block).
  Status verify(const Operation& op) {
    const OpDef* def = op.def();
    if (!def && !options_.allowUnregistered)
      return opError(op, "is not registered (use --allow-unregistered-dialect to accept it)");
    KILN_RETURN_IF_ERROR(verifyTypeLimits(op));
    if (def) KILN_RETURN_IF_ERROR(verifyTypeRule(op, *def));
    // The shape of a module or function is checked before its contents, so
    // that errors inside can rely on it (func.return on the function type).
    if (op.name() == "builtin.module") KILN_RETURN_IF_ERROR(verifyModuleBody(op));
    if (op.name() == "func.func") KILN_RETURN_IF_ERROR(verifyFunction(op));
    KILN_RETURN_IF_ERROR(verifyRegions(op));
    if (!def) return Status::ok();
    return verifyOpSpecific(op);
  }

 private:
  // --- Types -------------------------------------------------------------------

  // Every type the op names (results, block arguments, types inside its
  // attributes) is within kiln's limits on types. The parser refuses others as
  // it reads them; this catches types made any other way, which would
  // otherwise print as text no reader accepts, or overflow a size.
  Status verifyTypeLimits(const Operation& op) {
    for (Type type : op.resultTypes()) KILN_RETURN_IF_ERROR(checkLimits(op, type));
    for (const auto& region : op.regions())
      for (const auto& block : region->blocks())
        for (Type type : block->argumentTypes()) KILN_RETURN_IF_ERROR(checkLimits(op, type));
    for (const NamedAttribute& entry : op.attrs().entries()) KILN_RETURN_IF_ERROR(checkAttribute(op, entry.second));
    return Status::ok();
  }

  static Status checkLimits(const Operation& op, Type type) {
    std::string why = typeLimitViolation(type);
    return why.empty() ? Status::ok() : opError(op, why);
  }

  // The types inside an attribute, and the bytes of its dense elements.
  static Status checkAttribute(const Operation& op, const Attribute& attr) {
    switch (attr.kind()) {
      case AttrKind::Type: return checkLimits(op, attr.valueType());
      case AttrKind::DenseElements: {
        KILN_RETURN_IF_ERROR(checkLimits(op, attr.valueType()));
        std::string why = denseStorageViolation(attr);
        return why.empty() ? Status::ok() : opError(op, why);
      }
      case AttrKind::Array:
        for (const Attribute& element : attr.arrayValue()) KILN_RETURN_IF_ERROR(checkAttribute(op, element));
        return Status::ok();
      case AttrKind::Dictionary:
      case AttrKind::Struct:
        for (const NamedAttribute& field : attr.entries()) KILN_RETURN_IF_ERROR(checkAttribute(op, field.second));
        return Status::ok();
      default: return Status::ok();
    }
  }

  // Floats narrower than their byte (f4E2M1FN, f6E2M3FN, f6E3M2FN) are
  // stored with zeros above their bits, as the parser stores them: other bytes
  // print as a value that reads back as different bytes. (Narrow integers are
  // read from their low bits wherever they are used, so any high bits do.)
  static std::string denseStorageViolation(const Attribute& dense) {
    Type type = dense.valueType();
    Type element = type.isTensor() ? type.elementType() : Type();
    if (!element || !element.isFloat() || element.bitWidth() >= 8) return "";
    unsigned bits = element.bitWidth();
    for (uint8_t byte : dense.denseData())
      if (byte >> bits)
        return "dense attribute of type " + type.str() + " holds the byte " + std::to_string(byte) +
               ", which is not a " + std::to_string(bits) + "-bit value";
    return "";
  }

  // The op's type rule, with its declared results.
  Status verifyTypeRule(const Operation& op, const OpDef& def) {
    if (!def.typeRule) return Status::ok();
    std::vector<Type> operandTypes, resultTypes;
    OpTypeContext ctx = typeContextOf(op, operandTypes, resultTypes);
    Expected<std::vector<Type>> inferred = def.typeRule(ctx);
    if (!inferred) return inferred.takeStatus();
    return checkResultTypes(ctx, *inferred);
  }

  // Rules that need more than the op itself: the module, the enclosing function.
  Status verifyOpSpecific(const Operation& op) {
    KILN_RETURN_IF_ERROR(shardings_.verify(op));
    const std::string& name = op.name();
    if (name == "func.call") return verifyCall(op);
    if (name == "stablehlo.composite") return verifyComposite(op);
    if (name == "stablehlo.async_start") return verifyAsyncStart(op);
    if (op.def()->has(kTerminator)) return verifyTerminatorPlacement(op);
    return Status::ok();
  }

  Status verifyModuleBody(const Operation& module) {
    if (module.numRegions() != 1 || module.region(0).numBlocks() != 1)
      return opError(module, "expects one region with one block");
    std::set<std::string_view> names;
    for (const Operation& op : module.region(0).front()) {
      if (op.name() == "func.func" || op.name() == "sdy.mesh") {
        Attribute symbol = op.attr("sym_name");
        std::string_view name = symbol && symbol.is(AttrKind::String) ? std::string_view(symbol.stringValue()) : "";
        if (!names.insert(name).second) return opError(op, "redefines the symbol @" + std::string(name));
      } else if (op.isRegistered() || !options_.allowUnregistered) {
        return opError(op, "is not allowed at the top level of a module (only func.func and sdy.mesh are)");
      }
    }
    return Status::ok();
  }

  Status verifyFunction(const Operation& fn) {
    Type type = func::type(fn);
    const Region& body = fn.region(0);
    if (body.empty()) {
      if (func::isPublic(fn)) return opError(fn, "declares a public function without a body");
      return Status::ok();
    }
    std::vector<Type> inputs(type.inputs().begin(), type.inputs().end());
    std::vector<Type> args = body.front().argumentTypes();
    if (args != inputs)
      return opError(fn, "has entry block arguments " + typeListStr(args) + " but its type takes " +
                             typeListStr(inputs));
    return Status::ok();
  }

  // The function named by the symbol attribute `attr` of `op`.
  Expected<const Operation*> resolveFunction(const Operation& op, std::string_view attr) {
    std::span<const std::string> path = op.attr(attr).symbolPath();
    std::string name = path.empty() ? std::string() : path.back();
    const Operation* fn = lookupFunction(module_, name);
    if (!fn) return opError(op, "refers to @" + name + ", which is not a function of this module");
    if (!func::type(*fn).isFunction()) return opError(op, "refers to @" + name + ", which has no function type");
    return fn;
  }

  // A call's callee exists and takes and returns exactly these types.
  Status verifyCall(const Operation& call) {
    if (!module_) return Status::ok();
    KILN_ASSIGN_OR_RETURN(const Operation* fn, resolveFunction(call, "callee"));
    return checkSignature(call, "callee @" + std::string(func::name(*fn)), func::type(*fn));
  }

  // composite (C2)-(C4): the decomposition exists and has the op's signature.
  Status verifyComposite(const Operation& op) {
    if (!module_) return Status::ok();
    KILN_ASSIGN_OR_RETURN(const Operation* fn, resolveFunction(op, "decomposition"));
    return checkSignature(op, "decomposition @" + std::string(func::name(*fn)), func::type(*fn));
  }

  // async_start: its called computation exists and takes the op's operands.
  Status verifyAsyncStart(const Operation& op) {
    if (!module_) return Status::ok();
    KILN_ASSIGN_OR_RETURN(const Operation* fn, resolveFunction(op, "called_computation"));
    Type type = func::type(*fn);
    std::vector<Type> inputs(type.inputs().begin(), type.inputs().end());
    if (op.operandTypes() != inputs)
      return opError(op, "has operands " + typeListStr(op.operandTypes()) + " but @" + std::string(func::name(*fn)) +
                             " takes " + typeListStr(inputs));
    return Status::ok();
  }

  Status checkSignature(const Operation& op, const std::string& what, Type fnType) {
    std::vector<Type> inputs(fnType.inputs().begin(), fnType.inputs().end());
    std::vector<Type> results(fnType.results().begin(), fnType.results().end());
    if (op.operandTypes() != inputs || op.resultTypes() != results)
      return opError(op, "has type " + typeListStr(op.operandTypes()) + " -> " + typeListStr(op.resultTypes()) +
                             " but " + what + " has type " + typeListStr(inputs) + " -> " + typeListStr(results));
    return Status::ok();
  }

  // --- Terminators ------------------------------------------------------------

  // Terminators end their block, and each kind of return sits in its kind of op.
  Status verifyTerminatorPlacement(const Operation& op) {
    if (op.nextInBlock()) return opError(op, "must be the last operation in its block");
    const Operation* parent = op.parentOp();
    if (op.name() == "func.return" && (!parent || parent->name() != "func.func"))
      return opError(op, "expects its parent op to be 'func.func'");
    if (op.name() == "stablehlo.return" && (!parent || !isStablehloOp(*parent)))
      return opError(op, "expects its parent op to be a stablehlo op");
    return Status::ok();
  }

  // The block of a func.func ends in a func.return of the function's result
  // types; the blocks of stablehlo ops end in a stablehlo.return.
  Status verifyBlockEnd(const Block& block, const Operation& parent) {
    const Operation* last = block.terminator();
    if (parent.name() == "func.func") {
      if (!last || last->name() != "func.return")
        return opError(last ? *last : parent, "expects the function body to end with 'func.return'");
      Type type = func::type(parent);
      std::vector<Type> results(type.results().begin(), type.results().end());
      std::vector<Type> returned = last->operandTypes();
      if (returned != results)
        return opError(*last, "returns " + typeListStr(returned) + " but the enclosing function @" +
                                  std::string(func::name(parent)) + " returns " + typeListStr(results));
      return Status::ok();
    }
    if (isStablehloOp(parent) && (!last || last->name() != "stablehlo.return"))
      return opError(last ? *last : parent, "expects the regions of '" + parent.name() +
                                                "' to end with 'stablehlo.return'");
    return Status::ok();
  }

  // --- Regions and dominance --------------------------------------------------

  // The values visible at the current point of the walk, each with the
  // isolation depth at which it was defined: a use must find its value at
  // the current depth (values of enclosing ops beyond an isolated-from-above
  // boundary are out of reach).
  std::unordered_map<const Value*, unsigned> visible_;
  unsigned isolationDepth_ = 0;

  Status verifyRegions(const Operation& op) {
    bool isolated = op.def() && op.def()->has(kIsolatedFromAbove);
    if (isolated) ++isolationDepth_;
    Status status;
    for (const auto& region : op.regions()) {
      for (const auto& block : region->blocks()) {
        status = verifyBlock(*block, op);
        if (!status.isOk()) break;
      }
      if (!status.isOk()) break;
    }
    if (isolated) --isolationDepth_;
    return status;
  }

  Status verifyBlock(const Block& block, const Operation& parent) {
    std::vector<const Value*> defined;  // removed again when leaving the block
    auto define = [&](const Value* v) {
      if (visible_.emplace(v, isolationDepth_).second) defined.push_back(v);
    };
    for (const Value* arg : block.arguments()) define(arg);
    Status status = (parent.isRegistered()) ? verifyBlockEnd(block, parent) : Status::ok();
    for (const Operation& op : block) {
      if (!status.isOk()) break;
      status = checkOperandsVisible(op);
      if (status.isOk()) status = verify(op);
      for (const Value* result : op.results()) define(result);
    }
    for (const Value* v : defined) visible_.erase(v);
    return status;
  }

  Status checkOperandsVisible(const Operation& op) {
    for (unsigned i = 0; i < op.numOperands(); ++i) {
      auto it = visible_.find(op.operand(i));
      if (it == visible_.end())
        return opError(op, "operand #" + str(i) + " does not dominate this use");
      if (it->second != isolationDepth_)
        return opError(op, "operand #" + str(i) + " is defined outside of the enclosing isolated region");
    }
    return Status::ok();
  }

  const VerifyOptions& options_;
  const Operation* module_;
  sdy::ShardingVerifier shardings_;  // the sdy shardings, against the module's meshes
};

}  // namespace

Status verifyOp(const Operation& op, const VerifyOptions& options) {
  Verifier verifier(options, enclosingModule(op));
  verifier.seedEnclosingValues(op);
  return verifier.verify(op);
}

Status verifyModule(const Module& module, const VerifyOptions& options) {
  return verifyOp(module.op(), options);
}

}  // namespace kiln
