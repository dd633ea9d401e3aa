#include "kiln/ir/verifier.h"

#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "kiln/ir/attribute_readers.h"
#include "kiln/ir/op_registry.h"
#include "kiln/ir/ops/sdy.h"
#include "kiln/ir/ops/type_rule_helpers.h"
#include "kiln/ir/printer.h"

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
      // Printed bare (`#stablehlo<comparison_direction LT>`): anything else
      // would not read back. Ops check their own enums' values; this holds
      // for enums anywhere, a function's discardable attributes included.
      case AttrKind::Enum:
        if (!isBareIdentifier(attr.attrName()) || !isBareIdentifier(attr.stringValue()))
          return opError(op, "enum attribute '" + attr.attrName() + "' has the value '" + attr.stringValue() +
                                 "': an enum's name and value must be identifiers");
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
    if (name == "stablehlo.all_gather" || name == "stablehlo.all_reduce" || name == "stablehlo.all_to_all" ||
        name == "stablehlo.reduce_scatter" || name == "stablehlo.collective_permute" ||
        name == "stablehlo.collective_broadcast")
      return verifyProcessIds(op);
    if (name == "stablehlo.dynamic_gather" || name == "stablehlo.dynamic_pad" || name == "stablehlo.dynamic_conv" ||
        name == "stablehlo.rng")
      return verifyConstantShapeOperands(op);
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

  // --- Process ids against the module's process grid -------------------------

  // all_gather (C3), all_reduce (C2), all_to_all (C6), reduce_scatter (C4):
  // the ids of replica_groups number the processes of the run, and
  // collective_permute (C4) and collective_broadcast (C2): every id names one.
  // The grid is a property of the run, which a module fixes when it declares
  // `mhlo.num_replicas` (with `mhlo.num_partitions`, 1 when absent), as JAX
  // writes it and kiln runs it; without the declaration the interpreter
  // checks them when the op runs (kiln/interp/process_groups.cpp).
  Status verifyProcessIds(const Operation& op) {
    if (!module_) return Status::ok();
    Attribute replicas = module_->attr("mhlo.num_replicas"), partitions = module_->attr("mhlo.num_partitions");
    if (!replicas || !replicas.is(AttrKind::Integer)) return Status::ok();
    int64_t numReplicas = replicas.intValue();
    int64_t numPartitions = partitions && partitions.is(AttrKind::Integer) ? partitions.intValue() : 1;
    if (numReplicas < 1 || numPartitions < 1 || numReplicas > (int64_t(1) << 31) ||
        numPartitions > (int64_t(1) << 31))
      return Status::ok();  // the interpreter and the back ends refuse such a grid before running
    // The strategies of the spec: which ids the groups hold.
    Attribute handle = op.attr("channel_handle");
    Attribute id = handle && handle.is(AttrKind::Struct) ? handle.get("handle") : Attribute();
    bool hasChannel = id && id.is(AttrKind::Integer) && id.intValue() > 0;
    const std::string& name = op.name();
    bool pointToPoint = name == "stablehlo.all_to_all" || name == "stablehlo.collective_permute" ||
                        name == "stablehlo.collective_broadcast";
    Attribute global = op.attr("use_global_device_ids");
    bool flattened = !pointToPoint && hasChannel && global && (global.is(AttrKind::Unit) ||
                                                               (global.is(AttrKind::Bool) && global.intValue() != 0));
    int64_t numIds = flattened ? numReplicas * numPartitions
                     : pointToPoint && hasChannel ? numPartitions
                                                  : numReplicas;
    std::string what = flattened ? "processes (mhlo.num_replicas x mhlo.num_partitions)"
                       : pointToPoint && hasChannel ? "partitions (mhlo.num_partitions)"
                                                    : "replicas (mhlo.num_replicas)";
    std::string_view attr = name == "stablehlo.collective_permute" ? "source_target_pairs" : "replica_groups";
    Attribute groups = op.attr(attr);
    std::optional<std::vector<int64_t>> ids = groups ? denseIntElements(groups) : std::nullopt;
    if (!ids) return Status::ok();
    int64_t named = 0;
    for (int64_t i : *ids) {
      if (i >= numIds)
        return opError(op, "names id " + str(i) + " in its " + std::string(attr) + ", but the module runs " +
                               str(numIds) + " " + what);
      if (i >= 0) ++named;
    }
    // The type rules checked that the ids named are unique and 0..N-1 (where
    // they must be); then they number all processes when there are as many.
    bool covers = name == "stablehlo.all_gather" || name == "stablehlo.all_reduce" ||
                  name == "stablehlo.all_to_all" || name == "stablehlo.reduce_scatter";
    if (covers && named != 0 && named != numIds)
      return opError(op, "has replica_groups of " + str(named) + " ids, but the module runs " + str(numIds) +
                             " " + what + ": each must be in one group");
    return Status::ok();
  }

  // --- Constraints on the values of shape operands ---------------------------

  // The integers of operand `i` when a stablehlo.constant defines it.
  static std::optional<std::vector<int64_t>> constantOperand(const Operation& op, unsigned i) {
    const Operation* def = i < op.numOperands() ? op.operand(i)->definingOp() : nullptr;
    if (!def || def->name() != "stablehlo.constant" || def->numResults() != 1) return std::nullopt;
    Type type = def->result()->type();
    if (!type.isTensor() || !type.elementType().isInteger()) return std::nullopt;
    Attribute value = def->attr("value");
    if (!value || !value.is(AttrKind::DenseElements) || value.valueType() != type) return std::nullopt;
    return denseIntElements(value);
  }

  // dynamic_gather (C8), (C12), (C13), dynamic_pad (C3), (C4), dynamic_conv
  // (C25) and rng (C3) constrain the values of shape operands, which the type
  // rule cannot see. When constants define them, as in the programs
  // refine_shapes makes static, they are checked here: as the attributes of
  // the static twin refine_shapes would build (gather, pad, convolution),
  // whose type rule checks them and the declared result; rng's `shape` is
  // its result's shape. Values known only at run time are checked once
  // refine_shapes has folded them to constants (docs/ops.md).
  Status verifyConstantShapeOperands(const Operation& op) {
    const std::string& name = op.name();
    if (name == "stablehlo.rng") {
      std::optional<std::vector<int64_t>> shape = constantOperand(op, 2);
      if (!shape || op.numResults() != 1 || !op.result()->type().isTensor()) return Status::ok();
      std::span<const int64_t> result = op.result()->type().shape();
      bool agrees = shape->size() == result.size();
      for (size_t d = 0; agrees && d < result.size(); ++d)
        agrees = result[d] == Type::kDynamic || result[d] == (*shape)[d];
      if (!agrees)  // (C3)
        return opError(op, "expects a result of the shape given by its `shape` operand, " + rules::dimsStr(*shape) +
                               ", got " + op.result()->type().str());
      return Status::ok();
    }
    unsigned first = 2;  // the shape operands follow two data operands
    std::vector<std::vector<int64_t>> values;
    for (unsigned i = first; i < op.numOperands(); ++i) {
      std::optional<std::vector<int64_t>> v = constantOperand(op, i);
      if (!v) return Status::ok();
      values.push_back(std::move(*v));
    }
    AttrDict attrs;
    std::string_view twin;
    if (name == "stablehlo.dynamic_gather" && values.size() == 1) {
      twin = "stablehlo.gather";
      attrs = op.attrs();
      attrs.set("slice_sizes", Attribute::denseI64Array(values[0]));
    } else if (name == "stablehlo.dynamic_pad" && values.size() == 3) {
      twin = "stablehlo.pad";
      attrs.set("edge_padding_low", Attribute::denseI64Array(values[0]));
      attrs.set("edge_padding_high", Attribute::denseI64Array(values[1]));
      attrs.set("interior_padding", Attribute::denseI64Array(values[2]));
    } else if (name == "stablehlo.dynamic_conv" && values.size() == 1) {
      twin = "stablehlo.convolution";
      attrs = op.attrs();
      const std::vector<int64_t>& padding = values[0];
      std::vector<uint8_t> bytes(padding.size() * 8);
      for (size_t i = 0; i < padding.size(); ++i)
        for (int b = 0; b < 8; ++b) bytes[i * 8 + b] = uint8_t(uint64_t(padding[i]) >> (8 * b));
      attrs.set("padding", Attribute::dense(Type::tensor({int64_t(padding.size() / 2), 2}, Type::si64()),
                                            std::move(bytes)));
    } else {
      return Status::ok();
    }
    const OpDef* def = lookupOpDef(twin);
    std::vector<Type> operandTypes = {op.operand(0)->type(), op.operand(1)->type()};
    std::vector<Type> resultTypes = op.resultTypes();
    // Named as the op itself, so that a message reads as its own.
    OpTypeContext ctx{name, op.loc(), operandTypes, attrs, op.regions(), resultTypes, true};
    Expected<std::vector<Type>> inferred = def->typeRule(ctx);
    Status status = inferred ? checkResultTypes(ctx, *inferred) : inferred.takeStatus();
    if (!status) status.diag().message += " (given the values of its constant shape operands)";
    return status;
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
