// import_gspmd_shardings: turns GSPMD's sharding annotations into Shardy's,
// so that everything after it (propagation, partitioning, drop_sharding)
// knows one form. JAX emits the GSPMD form when Shardy is off
// (jax_use_shardy_partitioner=False) and older exporters always did:
//
//   %arg0: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"}
//       => %arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"_axis_0"}, {}]>}
//   %1 = stablehlo.custom_call @Sharding(%0) {mhlo.sharding = "..."}
//       => %1 = sdy.sharding_constraint %0 <@mesh, [...]>
//   %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"}
//   ...ops on the local shards...
//   %9 = stablehlo.custom_call @SPMDShardToFullShape(%8) {mhlo.sharding = "..."}
//       => %9 = sdy.manual_computation(%0) in_shardings=... manual_axes={all} (%local) { ...; sdy.return %8 }
//   any other op's `mhlo.sharding` => `sdy.sharding = #sdy.sharding_per_value<[...]>`
//
// The meshes come from gspmd::MeshPlanner (kiln/ir/gspmd_sharding.h) and are
// declared as sdy.mesh ops at the top of the module. What the pass cannot
// express (partially manual subgroups, a manual region fed by values it
// does not shard) is an error at the op's location, not a silent drop.
#include <algorithm>
#include <map>
#include <set>

#include "kiln/ir/gspmd_sharding.h"
#include "kiln/passes/import_gspmd_shardings.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"

namespace kiln {
namespace {

using gspmd::HloSharding;
using sharding::TensorSharding;

constexpr std::string_view kGspmdAttr = "mhlo.sharding";

bool isCustomCall(const Operation& op, std::string_view target) {
  if (op.name() != "stablehlo.custom_call") return false;
  Attribute name = op.attr("call_target_name");
  return name && name.is(AttrKind::String) && name.stringValue() == target;
}

int64_t rankOf(Type type) { return type.isTensor() ? type.rank() : 0; }

// The `mhlo.sharding` string of a function's argument or result `i` (in
// `listName`, arg_attrs or res_attrs), or null.
Attribute functionSharding(const Operation& fn, std::string_view listName, size_t i) {
  Attribute list = fn.attr(listName);
  if (!list || !list.is(AttrKind::Array) || i >= list.arrayValue().size()) return {};
  const Attribute& dict = list.arrayValue()[i];
  return dict && dict.is(AttrKind::Dictionary) ? dict.get(kGspmdAttr) : Attribute();
}

// `dict` with `mhlo.sharding` replaced, in place, by `sdy.sharding`.
Attribute withSdySharding(const Attribute& dict, const Attribute& sdy) {
  std::vector<NamedAttribute> entries;
  for (const auto& [name, value] : dict.entries())
    entries.emplace_back(name == kGspmdAttr ? "sdy.sharding" : name, name == kGspmdAttr ? sdy : value);
  return Attribute::dictionary(std::move(entries));
}

// The op of `block` that contains `op` (`op` itself when it is in `block`), or null.
Operation* ancestorIn(Operation* op, const Block* block) {
  for (; op; op = op->parentOp())
    if (op->parentBlock() == block) return op;
  return nullptr;
}

// The op of `block` that defines `v` or holds the block `v` belongs to; null
// when `v` is defined outside `block` (an argument of it included).
Operation* definerIn(const Value* v, const Block* block) {
  if (v->isBlockArgument()) return v->ownerBlock() == block ? nullptr : ancestorIn(v->ownerBlock()->parentOp(), block);
  return ancestorIn(v->definingOp(), block);
}

// True if `op` computes from constants alone (a constant, or a broadcast of
// one): a region may take a copy of it. Adds it and what it reads to `found`.
bool isConstantExpression(Operation* op, const Block* block, std::set<Operation*>& found) {
  if (found.count(op)) return true;
  if (op->numRegions() != 0 || !isRemovableIfUnused(*op)) return false;
  for (Value* v : op->operands()) {
    Operation* definer = v->isBlockArgument() ? nullptr : v->definingOp();
    if (!definer || definer->parentBlock() != block || !isConstantExpression(definer, block, found)) return false;
  }
  found.insert(op);
  return true;
}

// One shard_map region in GSPMD form: the FullToShard ops that enter it,
// the ops that work on local shards, and the ShardToFull ops that leave it.
struct ManualRegion {
  std::set<Operation*> entries, body, exits;
  std::set<Operation*> copied;  // constant expressions outside it that its ops read
};

class Importer {
 public:
  explicit Importer(Module& module) : module_(module) {}

  Expected<bool> run() {
    KILN_RETURN_IF_ERROR(collect());
    if (parsed_.empty()) return false;
    dropManualShardingCalls();
    KILN_RETURN_IF_ERROR(importManualRegions());
    KILN_RETURN_IF_ERROR(importFunctionShardings());
    KILN_RETURN_IF_ERROR(importOpShardings());
    KILN_RETURN_IF_ERROR(declareMeshes());
    return true;
  }

 private:
  // --- Reading --------------------------------------------------------------

  Status parse(const Attribute& attr, Location loc) {
    if (!attr.is(AttrKind::String)) return error(loc, "mhlo.sharding must be a string");
    if (parsed_.count(attr.stringValue())) return Status::ok();
    Expected<HloSharding> s = gspmd::parseHloSharding(attr.stringValue());
    if (!s) return error(loc, s.status().diag().message);
    planner_.add(*s);
    parsed_.emplace(attr.stringValue(), std::move(*s));
    return Status::ok();
  }

  // Parses every GSPMD sharding of the module and shows it to the planner,
  // so that the meshes are planned from all of them before any is translated.
  Status collect() {
    for (Operation* fn : module_.functions()) {
      Type type = func::type(*fn);
      for (size_t i = 0; i < type.inputs().size(); ++i)
        if (Attribute a = functionSharding(*fn, "arg_attrs", i)) KILN_RETURN_IF_ERROR(parse(a, fn->loc()));
      for (size_t i = 0; i < type.results().size(); ++i)
        if (Attribute a = functionSharding(*fn, "res_attrs", i)) KILN_RETURN_IF_ERROR(parse(a, fn->loc()));
    }
    Status status;
    for (Operation* fn : module_.definedFunctions())
      fn->walk([&](Operation& op) {
        if (Attribute a = op.attr(kGspmdAttr); a && status.isOk()) status = parse(a, op.loc());
      });
    return status;
  }

  const HloSharding& shardingOf(const Attribute& attr) const { return parsed_.at(attr.stringValue()); }

  Expected<TensorSharding> translate(const Attribute& attr, Type type, Location loc, const std::string& what) {
    const HloSharding& s = shardingOf(attr);
    if (s.kind == HloSharding::Kind::Manual)
      return error(loc, what + " is {manual} outside a SPMDFullToShardShape/SPMDShardToFullShape region; "
                               "this is not supported");
    if (s.kind == HloSharding::Kind::Tuple) return error(loc, what + " has a tuple sharding; this is not supported");
    Expected<TensorSharding> t = planner_.translate(s, rankOf(type));
    if (!t) return error(loc, what + ": " + t.status().diag().message);
    return t;
  }

  // --- Manual regions (shard_map) -------------------------------------------

  // `@Sharding` calls with `{manual}` only restate that a value inside a
  // manual region is manual: identities, which the region's body no longer needs.
  void dropManualShardingCalls() {
    std::vector<Operation*> calls;
    for (Operation* fn : module_.definedFunctions())
      fn->walk([&](Operation& op) {
        Attribute a = op.attr(kGspmdAttr);
        if (isCustomCall(op, "Sharding") && a && shardingOf(a).kind == HloSharding::Kind::Manual &&
            op.numOperands() == 1 && op.numResults() == 1 && op.operand(0)->type() == op.result()->type())
          calls.push_back(&op);
      });
    for (Operation* op : calls) {
      Value* input = op->operand(0);
      op->replaceWith(std::span<Value* const>(&input, 1));
    }
  }

  Status importManualRegions() {
    std::vector<Operation*> entries;
    for (Operation* fn : module_.definedFunctions())
      fn->walk([&](Operation& op) {
        if (isCustomCall(op, "SPMDFullToShardShape") || isCustomCall(op, "SPMDShardToFullShape")) entries.push_back(&op);
      });
    std::set<Operation*> done;
    for (Operation* op : entries) {
      if (done.count(op)) continue;
      if (isCustomCall(*op, "SPMDShardToFullShape"))
        return error(op->loc(), "SPMDShardToFullShape without a SPMDFullToShardShape entering its region");
      KILN_ASSIGN_OR_RETURN(ManualRegion region, collectRegion(op));
      done.insert(region.entries.begin(), region.entries.end());
      done.insert(region.exits.begin(), region.exits.end());
      KILN_RETURN_IF_ERROR(buildManualComputation(region));
    }
    return Status::ok();
  }

  // The ops reached forward from `entry`'s local shards up to the
  // ShardToFull ops, with every other FullToShard whose shards they also use.
  Expected<ManualRegion> collectRegion(Operation* entry) {
    const Block* block = entry->parentBlock();
    ManualRegion region;
    region.entries.insert(entry);
    std::vector<Operation*> work = {entry};
    while (!work.empty()) {
      KILN_RETURN_IF_ERROR(growForward(region, work, block));
      // Backward: what the region's ops read is the region's, is computed
      // from the shards of other FullToShard ops (which then enter it too:
      // grow again from them), or is a constant expression the region takes
      // a copy of.
      Status outside;
      for (Operation* op : region.body)
        op->walk([&](Operation& inner) {
          for (Value* v : inner.operands()) {
            Operation* definer = definerIn(v, block);  // `op` itself for values defined inside it
            if (definer == op || region.body.count(definer) || region.entries.count(definer)) continue;
            std::set<Operation*> entries;
            if (definer) entriesFeeding(definer, block, entries);
            if (!entries.empty()) {
              for (Operation* e : entries)
                if (region.entries.insert(e).second) work.push_back(e);
            } else if (!definer || !isConstantExpression(definer, block, region.copied)) {
              if (outside.isOk())
                outside = error(inner.loc(), "an op inside a SPMDFullToShardShape region reads a value from "
                                             "outside it; this is not supported");
            }
          }
        });
      if (work.empty() && !outside.isOk()) return std::move(outside);
    }
    if (region.exits.empty())
      return error(entry->loc(), "SPMDFullToShardShape whose region never reaches SPMDShardToFullShape");
    return region;
  }

  // The SPMDFullToShardShape ops of `block` that `op` reads from, directly or
  // through other ops of the block.
  static void entriesFeeding(Operation* op, const Block* block, std::set<Operation*>& entries) {
    std::set<Operation*> seen;
    std::vector<Operation*> work = {op};
    while (!work.empty()) {
      Operation* next = work.back();
      work.pop_back();
      if (!seen.insert(next).second) continue;
      if (isCustomCall(*next, "SPMDFullToShardShape")) {
        entries.insert(next);
        continue;
      }
      next->walk([&](Operation& inner) {
        for (Value* v : inner.operands())
          if (Operation* definer = definerIn(v, block); definer && definer != next) work.push_back(definer);
      });
    }
  }

  // Adds to the region whoever reads the values of the ops in `work`: an op
  // that works on shards, or a ShardToFull op that leaves the region.
  static Status growForward(ManualRegion& region, std::vector<Operation*>& work, const Block* block) {
    while (!work.empty()) {
      Operation* op = work.back();
      work.pop_back();
      for (Value* v : op->results())
        for (const Use& use : v->uses()) {
          Operation* user = ancestorIn(use.user, block);
          if (!user) return error(use.user->loc(), "a manual value is used outside the block of its region");
          if (isCustomCall(*user, "SPMDShardToFullShape")) {
            region.exits.insert(user);
            continue;
          }
          if (user == block->terminator())
            return error(user->loc(), "a manual value (inside a SPMDFullToShardShape region) leaves the block "
                                      "without SPMDShardToFullShape");
          if (region.body.insert(user).second) work.push_back(user);
        }
    }
    return Status::ok();
  }

  // The region in `order` (block order), one list per kind.
  static std::vector<Operation*> inBlockOrder(const Block& block, const std::set<Operation*>& ops) {
    std::vector<Operation*> out;
    for (Operation& op : block)
      if (ops.count(&op)) out.push_back(&op);
    return out;
  }

  Status buildManualComputation(const ManualRegion& region) {
    Block* block = (*region.entries.begin())->parentBlock();
    std::vector<Operation*> entries = inBlockOrder(*block, region.entries);
    std::vector<Operation*> body = inBlockOrder(*block, region.body);
    std::vector<Operation*> exits = inBlockOrder(*block, region.exits);
    Operation* anchor = exits.front();
    std::map<const Operation*, size_t> position;
    size_t n = 0;
    for (Operation& op : *block) position[&op] = n++;

    // Each operand's sharding is the `@Sharding` call that feeds the FullToShard op.
    std::vector<TensorSharding> inShardings, outShardings;
    for (Operation* entry : entries) {
      Value* global = entry->operand(0);
      Operation* def = global->definingOp();
      if (!def || !isCustomCall(*def, "Sharding") || !def->attr(kGspmdAttr))
        return error(entry->loc(), "SPMDFullToShardShape of a value without a @Sharding to say how it is split; "
                                   "this is not supported");
      if (Operation* d = definerIn(global, block); d && position[d] > position[anchor])
        return error(entry->loc(), "SPMDFullToShardShape's operand is defined after the region's first "
                                   "SPMDShardToFullShape; this is not supported");
      KILN_ASSIGN_OR_RETURN(TensorSharding s, translate(def->attr(kGspmdAttr), global->type(), def->loc(),
                                                        "the sharding entering a manual region"));
      inShardings.push_back(std::move(s));
    }
    for (Operation* exit : exits) {
      if (!exit->attr(kGspmdAttr)) return error(exit->loc(), "SPMDShardToFullShape without mhlo.sharding");
      KILN_ASSIGN_OR_RETURN(TensorSharding s, translate(exit->attr(kGspmdAttr), exit->result()->type(), exit->loc(),
                                                        "the sharding leaving a manual region"));
      outShardings.push_back(std::move(s));
    }
    // `{manual}` makes every device manual: all axes of the one mesh.
    std::string meshName = inShardings.empty() ? outShardings.front().meshName : inShardings.front().meshName;
    for (const std::vector<TensorSharding>* list : {&inShardings, &outShardings})
      for (const TensorSharding& s : *list)
        if (s.meshName != meshName)
          return error(anchor->loc(), "a manual region whose shardings use different device orders (meshes @" +
                                          meshName + " and @" + s.meshName + "); this is not supported");
    std::vector<std::string> manualAxes;
    for (const auto& [name, mesh] : planner_.meshes())
      if (name == meshName)
        for (const sharding::MeshAxis& axis : mesh.axes) manualAxes.push_back(axis.name);

    OperationState st("sdy.manual_computation", anchor->loc());
    for (Operation* entry : entries) st.operands.push_back(entry->operand(0));
    for (Operation* exit : exits) st.resultTypes.push_back(exit->result()->type());
    st.attributes.set("in_shardings", sharding::toAttribute(inShardings));
    st.attributes.set("out_shardings", sharding::toAttribute(outShardings));
    st.attributes.set("manual_axes", Attribute::opaque(sharding::printManualAxes(manualAxes)));
    Block* inner = st.addRegion()->addBlock();
    for (Operation* entry : entries) entry->result()->replaceAllUsesWith(inner->addArgument(entry->result()->type(), entry->loc()));
    for (Operation* op : body) inner->push_back(op->remove());
    // The body reads copies of the constants it shares with the code around
    // it (dce removes the originals when nothing else reads them).
    std::vector<std::pair<Value*, Value*>> copies;
    Operation* bodyStart = inner->front();
    for (Operation* constant : inBlockOrder(*block, region.copied)) {
      Operation* copy = inner->insertBefore(bodyStart, constant->clone(&copies));
      for (unsigned i = 0; i < constant->numResults(); ++i) {
        std::vector<Use> uses = constant->result(i)->uses();
        for (const Use& use : uses)
          if (ancestorIn(use.user, inner) && !region.copied.count(use.user)) use.user->setOperand(use.index, copy->result(i));
      }
    }
    std::vector<Operation*> originals = inBlockOrder(*block, region.copied);
    for (auto it = originals.rbegin(); it != originals.rend(); ++it)
      if ((*it)->resultsUnused()) (*it)->erase();
    OperationState ret("sdy.return", anchor->loc());
    for (Operation* exit : exits) ret.operands.push_back(exit->operand(0));
    inner->push_back(Operation::create(std::move(ret)));
    Operation* manual = block->insertBefore(anchor, Operation::create(std::move(st)));
    for (size_t i = 0; i < exits.size(); ++i) exits[i]->replaceWith(std::vector<Value*>{manual->result(i)});
    for (Operation* entry : entries) entry->erase();
    return Status::ok();
  }

  // --- Functions and ops ----------------------------------------------------

  Status importFunctionShardings() {
    for (Operation* fn : module_.functions()) {
      Type type = func::type(*fn);
      for (auto [listName, types, what] : {std::tuple{"arg_attrs", type.inputs(), "argument"},
                                           std::tuple{"res_attrs", type.results(), "result"}}) {
        Attribute list = fn->attr(listName);
        if (!list || !list.is(AttrKind::Array)) continue;
        std::vector<Attribute> dicts(list.arrayValue().begin(), list.arrayValue().end());
        bool changed = false;
        for (size_t i = 0; i < dicts.size() && i < types.size(); ++i) {
          Attribute a = functionSharding(*fn, listName, i);
          if (!a) continue;
          KILN_ASSIGN_OR_RETURN(TensorSharding s, translate(a, types[i], fn->loc(),
                                                            std::string(what) + " #" + std::to_string(i)));
          dicts[i] = withSdySharding(dicts[i], sharding::toAttribute(s));
          changed = true;
        }
        if (changed) fn->setAttr(listName, Attribute::array(std::move(dicts)));
      }
    }
    return Status::ok();
  }

  Status importOpShardings() {
    std::vector<Operation*> annotated;
    for (Operation* fn : module_.definedFunctions())
      fn->walk([&](Operation& op) {
        if (op.attr(kGspmdAttr)) annotated.push_back(&op);
      });
    for (Operation* op : annotated) {
      Attribute attr = op->attr(kGspmdAttr);
      if (shardingOf(attr).kind == HloSharding::Kind::Manual && insideManualComputation(*op)) {
        op->attrs().erase(kGspmdAttr);  // what the region already says
        continue;
      }
      if (isCustomCall(*op, "Sharding")) {
        KILN_RETURN_IF_ERROR(importShardingCall(op, attr));
        continue;
      }
      // One sharding per result; an op without results carries one too (the
      // device a host callback runs on), as JAX's Shardy form does.
      const HloSharding& s = shardingOf(attr);
      std::vector<HloSharding> perResult = s.kind == HloSharding::Kind::Tuple ? s.tuple : std::vector<HloSharding>{s};
      size_t expected = std::max<size_t>(op->numResults(), 1);
      if (perResult.size() != expected)
        return error(op->loc(), "mhlo.sharding gives " + std::to_string(perResult.size()) + " sharding(s) for " +
                                    std::to_string(op->numResults()) + " result(s)");
      std::vector<TensorSharding> shardings;
      for (size_t i = 0; i < perResult.size(); ++i) {
        Type type = i < op->numResults() ? op->result(i)->type() : Type();
        if (perResult[i].kind == HloSharding::Kind::Manual || perResult[i].kind == HloSharding::Kind::Tuple)
          return error(op->loc(), "result #" + std::to_string(i) + " has a " +
                                      (perResult[i].kind == HloSharding::Kind::Manual ? "manual" : "nested tuple") +
                                      " sharding outside a manual region; this is not supported");
        Expected<TensorSharding> t = planner_.translate(perResult[i], rankOf(type));
        if (!t) return error(op->loc(), "result #" + std::to_string(i) + ": " + t.status().diag().message);
        shardings.push_back(std::move(*t));
      }
      op->attrs().erase(kGspmdAttr);
      op->setAttr("sdy.sharding", sharding::toAttribute(shardings));
    }
    return Status::ok();
  }

  static bool insideManualComputation(const Operation& op) {
    for (const Operation* p = op.parentOp(); p; p = p->parentOp())
      if (p->name() == "sdy.manual_computation") return true;
    return false;
  }

  // `@Sharding(%x)` => `sdy.sharding_constraint %x`.
  Status importShardingCall(Operation* op, const Attribute& attr) {
    if (op->numOperands() != 1 || op->numResults() != 1 || op->operand(0)->type() != op->result()->type())
      return error(op->loc(), "@Sharding must take one tensor and return it with the same type");
    KILN_ASSIGN_OR_RETURN(TensorSharding s, translate(attr, op->result()->type(), op->loc(), "@Sharding"));
    OperationState st("sdy.sharding_constraint", op->loc());
    st.operands = {op->operand(0)};
    st.resultTypes = {op->result()->type()};
    st.attributes.set("sharding", sharding::toAttribute(s));
    Operation* constraint = insertBefore(op, std::move(st));
    op->replaceWith(std::vector<Value*>{constraint->result()});
    return Status::ok();
  }

  // The planned meshes, as sdy.mesh ops before the module's first op.
  Status declareMeshes() {
    std::set<std::string> symbols;
    for (const Operation& op : module_.body())
      if (Attribute name = op.attr("sym_name"); name && name.is(AttrKind::String)) symbols.insert(name.stringValue());
    Operation* first = module_.body().front();
    for (const auto& [name, mesh] : planner_.meshes()) {
      if (symbols.count(name))
        return error(module_.op().loc(), "the module already has a symbol @" + name +
                                             ", the name of the mesh GSPMD's shardings need");
      OperationState st("sdy.mesh", module_.op().loc());
      st.attributes.set("sym_name", Attribute::string(name));
      st.attributes.set("mesh", Attribute::opaque(sharding::printMesh(mesh)));
      module_.body().insertBefore(first, Operation::create(std::move(st)));
    }
    return Status::ok();
  }

  Module& module_;
  gspmd::MeshPlanner planner_;
  std::map<std::string, HloSharding> parsed_;  // by the text of the attribute
};

class ImportGspmdShardingsPass : public Pass {
 public:
  std::string_view name() const override { return "import_gspmd_shardings"; }
  Expected<bool> run(Module& module) override { return Importer(module).run(); }
};

}  // namespace

std::unique_ptr<Pass> createImportGspmdShardingsPass() { return std::make_unique<ImportGspmdShardingsPass>(); }

}  // namespace kiln
