#include "kiln/pjrt/partial_manual.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "kiln/ir/sharding.h"
#include "kiln/passes/op_builder.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"
#include "kiln/passes/sharding_annotations.h"
#include "kiln/passes/spmd_devices.h"

namespace kiln::pjrt {
namespace {

bool isManual(const std::vector<std::string>& manual, const std::string& axis) {
  return std::ranges::find(manual, axis) != manual.end();
}

// `s` (an in or out sharding of the computation) without its free axes:
// the body sees the whole extent along them (its shapes are divided by the
// manual axes only), so once every axis is manual, the value is replicated
// over them. A partial sum over a free axis (unreduced) is, like a split,
// how the value is held, not what it is: the whole value is its sum. False
// when a free axis is split before a manual one in a dimension (the manual
// blocks would not be contiguous).
bool dropFreeAxes(sharding::TensorSharding& s, const std::vector<std::string>& manual) {
  std::erase_if(s.unreduced, [&](const std::string& axis) { return !isManual(manual, axis); });
  for (sharding::DimSharding& d : s.dims) {
    bool freeSeen = false;
    std::vector<std::string> kept;
    for (const std::string& axis : d.axes) {
      if (!isManual(manual, axis)) {
        freeSeen = true;
        continue;
      }
      if (freeSeen) return false;
      kept.push_back(axis);
    }
    d.axes = std::move(kept);
  }
  return true;
}

// A manual computation nested in a partially manual one whose in and out
// shardings split nothing (JAX's axis_index over a manual axis, computed
// from partition_id in a computation manual over the free axes): once the
// outer one is manual over every axis, its body is per-device code as it is.
bool isReplicatedNest(const Operation& op) {
  Attribute in = op.attr("in_shardings"), out = op.attr("out_shardings");
  if (!in || !out || !in.is(AttrKind::Opaque) || !out.is(AttrKind::Opaque) || op.numRegions() != 1 ||
      op.region(0).numBlocks() != 1)
    return false;
  for (const Attribute* list : {&in, &out}) {
    Expected<std::vector<sharding::TensorSharding>> shardings = sharding::parseShardingPerValue(list->stringValue());
    if (!shardings) return false;
    for (const sharding::TensorSharding& s : *shardings)
      if (!s.usedAxes().empty() || !s.unreduced.empty()) return false;
  }
  return true;
}

// The mesh axis `ref` names or is a sub-axis of.
std::string baseAxis(const std::string& ref, const sharding::Mesh& mesh) {
  if (mesh.axisIndex(ref) >= 0) return ref;
  if (std::optional<sharding::SubAxis> sub = sharding::parseSubAxisRef(ref)) return sub->axis;
  return ref;
}

// A manual computation nested in a partially manual one and manual over
// free axes of it (a shard_map over "y" in one over "x"), whose in and out
// shardings split dimensions and sum over its own manual axes (whole axes
// of `mesh`), and perhaps over axes free in both, or sub-axes of those,
// after its own in each dimension. Once the outer one is manual over every
// axis, each device holds the whole extent along those axes, and the nest
// is its body between slices and gathers (inlineFreeAxisNest); how its
// values are held over the axes free in both is, as for the outer one, not
// what they are. Not one whose shardings name an axis the outer one is
// manual over (Shardy's verifier rejects it: the axis is bound already).
bool isFreeAxisNest(const Operation& op, const std::vector<std::string>& outerManual, const sharding::Mesh& mesh,
                    const std::string& meshName) {
  Attribute axesAttr = op.attr("manual_axes"), in = op.attr("in_shardings"), out = op.attr("out_shardings");
  if (!axesAttr || !in || !out || !axesAttr.is(AttrKind::Opaque) || !in.is(AttrKind::Opaque) ||
      !out.is(AttrKind::Opaque) || op.numRegions() != 1 || op.region(0).numBlocks() != 1)
    return false;
  Expected<std::vector<std::string>> own = sharding::parseManualAxes(axesAttr.stringValue());
  if (!own) return false;
  for (const std::string& axis : *own)
    if (isManual(outerManual, axis) || mesh.axisIndex(axis) < 0) return false;
  // Whether `ref` is an axis, or a sub-axis of one, free in both computations.
  auto freeInBoth = [&](const std::string& ref) {
    std::string base = baseAxis(ref, mesh);
    return mesh.axisIndex(base) >= 0 && !isManual(outerManual, base) && !isManual(*own, base);
  };
  for (const Attribute* list : {&in, &out}) {
    Expected<std::vector<sharding::TensorSharding>> shardings = sharding::parseShardingPerValue(list->stringValue());
    if (!shardings) return false;
    for (const sharding::TensorSharding& s : *shardings) {
      if (s.meshName != meshName || s.inlineMesh) return false;
      for (const sharding::DimSharding& d : s.dims) {
        bool freeSeen = false;
        for (const std::string& axis : d.axes) {
          if (isManual(*own, axis) && !freeSeen) continue;
          if (!freeInBoth(axis)) return false;
          freeSeen = true;
        }
      }
      for (const std::string& axis : s.unreduced)
        if (!isManual(*own, axis) && !freeInBoth(axis)) return false;
    }
  }
  return true;
}

// `s` (an in or out sharding of a nest, isFreeAxisNest) over the nest's
// own axes `own` only.
sharding::TensorSharding ownPart(sharding::TensorSharding s, const std::vector<std::string>& own) {
  for (sharding::DimSharding& d : s.dims)
    std::erase_if(d.axes, [&](const std::string& axis) { return !isManual(own, axis); });
  std::erase_if(s.unreduced, [&](const std::string& axis) { return !isManual(own, axis); });
  s.replicated.clear();
  return s;
}

// Whether the body can run with every axis manual: any manual computation
// nested in it splits nothing or is manual over free axes (isFreeAxisNest).
// Its shardings over free axes (sharding constraints, `sdy.sharding` of its
// ops) say how to split the work along them or that a value is held as
// partial sums over them (unreduced), not what it is: the widened
// computation computes each value whole along them and drops them.
Expected<bool> bodyWidenable(Operation& manualOp, const std::vector<std::string>& manual, const sharding::Mesh& mesh,
                             const std::string& meshName) {
  Status failed = Status::ok();
  bool only = true;
  manualOp.walk([&](Operation& inner) {
    if (&inner == &manualOp || !failed.isOk() || !only) return;
    if (Attribute a = inner.attr("sharding"); a && a.is(AttrKind::Opaque)) {
      Expected<sharding::TensorSharding> s = sharding::parseSharding(a.stringValue());
      if (!s) failed = s.takeStatus();
    }
    Expected<std::optional<std::vector<sharding::TensorSharding>>> per = sharding::opShardings(inner);
    if (!per) failed = per.takeStatus();
    if (inner.name() == "sdy.manual_computation" && !isReplicatedNest(inner) &&
        !isFreeAxisNest(inner, manual, mesh, meshName))
      only = false;
  });
  if (!failed.isOk()) return failed;
  return only;
}

// Replaces `nest` (isFreeAxisNest, inside a computation now manual over
// every axis, where each device holds the whole extent along the nest's
// axes) by its body: each device cuts its block out of each operand
// (dynamic_slice at an offset read from a table by partition id), runs the
// body on the blocks, and gets each result whole again: a partial sum over
// some of the nest's axes is summed over them (all_reduce), a dimension
// split over some is gathered (all_gather). A result replicated over them
// is the body's as it is.
void inlineFreeAxisNest(Operation* nest, const sharding::Mesh& mesh, int64_t& channel) {
  std::vector<std::string> own = *sharding::parseManualAxes(nest->attr("manual_axes").stringValue());
  std::vector<sharding::TensorSharding> ins =
      *sharding::parseShardingPerValue(nest->attr("in_shardings").stringValue());
  std::vector<sharding::TensorSharding> outs =
      *sharding::parseShardingPerValue(nest->attr("out_shardings").stringValue());
  for (auto* list : {&ins, &outs})
    for (sharding::TensorSharding& s : *list) s = ownPart(std::move(s), own);
  Builder b(*nest);
  Type i32 = Type::tensor({}, Type::integer(32));
  Value* partition = nullptr;
  Value* zero = nullptr;
  auto offset = [&](const std::vector<std::string>& axes, int64_t block) -> Value* {
    if (!partition) {
      Value* id = b.op("stablehlo.partition_id", {}, {}, Type::tensor({}, Type::integer(32, /*isUnsigned=*/true)));
      partition = b.convert(id, Type::integer(32));
    }
    Value* t = b.op("stablehlo.constant", {}, AttrDict({{"value", spmd::blockOffsetTable(mesh, axes, block)}}),
                    Type::tensor({mesh.numDevices()}, Type::integer(32)));
    Value* picked = b.op("stablehlo.dynamic_slice", {t, partition},
                         AttrDict({{"slice_sizes", Attribute::denseI64Array({1})}}),
                         Type::tensor({1}, Type::integer(32)));
    return b.op("stablehlo.reshape", {picked}, {}, i32);
  };
  auto collectiveAttrs = [&](OperationState& st, const std::vector<std::string>& axes) {
    st.attributes.set("replica_groups", spmd::replicaGroups(mesh, axes));
    st.attributes.set("channel_handle",
                      Attribute::structAttr("channel_handle", {{"handle", Attribute::integer(channel++)},
                                                               {"type", Attribute::integer(1)}}));
    st.attributes.set("use_global_device_ids", Attribute::unit());
  };

  std::vector<Value*> blocks;
  for (size_t i = 0; i < nest->numOperands(); ++i) {
    Value* v = nest->operand(i);
    const sharding::TensorSharding& s = ins[i];
    if (s.isReplicated()) {
      blocks.push_back(v);
      continue;
    }
    std::vector<Value*> operands{v};
    std::vector<int64_t> sizes;
    for (size_t d = 0; d < s.dims.size(); ++d) {
      int64_t block = v->type().shape()[d] / spmd::parts(mesh, s.dims[d].axes);
      sizes.push_back(block);
      if (!s.dims[d].axes.empty()) {
        operands.push_back(offset(s.dims[d].axes, block));
      } else {
        if (!zero) zero = b.constant(i32, 0);
        operands.push_back(zero);
      }
    }
    blocks.push_back(b.op("stablehlo.dynamic_slice", operands,
                          AttrDict({{"slice_sizes", Attribute::denseI64Array(sizes)}}),
                          Type::tensor(sizes, v->type().elementType())));
  }
  std::vector<Value*> results = cloneBodyBefore(nest, nest->region(0).front(), blocks);
  for (size_t j = 0; j < results.size() && j < outs.size(); ++j) {
    const sharding::TensorSharding& s = outs[j];
    Value* r = results[j];
    if (!s.unreduced.empty()) {
      OperationState st("stablehlo.all_reduce", nest->loc());
      st.operands = {r};
      st.resultTypes = {r->type()};
      collectiveAttrs(st, s.unreduced);
      addSumRegion(st, Type::tensor({}, r->type().elementType()), nest->loc());
      r = insertBefore(nest, std::move(st))->result();
    }
    for (size_t d = 0; d < s.dims.size(); ++d) {
      if (s.dims[d].axes.empty()) continue;
      std::vector<int64_t> shape(r->type().shape().begin(), r->type().shape().end());
      shape[d] *= spmd::parts(mesh, s.dims[d].axes);
      OperationState st("stablehlo.all_gather", nest->loc());
      st.operands = {r};
      st.resultTypes = {Type::tensor(shape, r->type().elementType())};
      st.attributes.set("all_gather_dim", Attribute::integer(static_cast<int64_t>(d)));
      collectiveAttrs(st, s.dims[d].axes);
      r = insertBefore(nest, std::move(st))->result();
    }
    results[j] = r;
  }
  nest->replaceWith(results);
}

// `s` (an in or out sharding of the computation) without its manual axes
// and partial sums: how the body's value is split over the free axes.
sharding::TensorSharding freePart(sharding::TensorSharding s, const std::vector<std::string>& manual) {
  for (sharding::DimSharding& d : s.dims) {
    std::erase_if(d.axes, [&](const std::string& axis) { return isManual(manual, axis); });
    d.open = false;
  }
  s.unreduced.clear();
  s.replicated.clear();
  return s;
}

// Splits the free axes' work of `op`, a computation manual over `manual`
// only whose in and out shardings `ins` and `outs` keep their free axes
// after the manual ones in each dimension (with no partial sums over free
// axes): its body becomes a function over the whole mesh whose arguments
// and results are split over the free axes as those shardings say, which
// kiln's partitioner partitions (sharding constraints in the body
// included; the collectives it adds group devices that agree on every
// other axis, the manual ones too, as the body's own do); the partitioned
// function is the body of `op` made manual over every axis, its blocks
// split over manual and free axes alike. False, with `op` untouched, when
// no free axis splits anything or the partitioner fails: the caller then
// computes the body whole along the free axes.
bool splitFreeAxisWork(Module& module, Operation* op, const std::string& meshName,
                       const std::vector<std::string>& manual, const std::vector<sharding::TensorSharding>& ins,
                       const std::vector<sharding::TensorSharding>& outs) {
  Block& body = op->region(0).front();
  if (body.numArguments() != ins.size() || op->numResults() != outs.size()) return false;
  bool splits = false;
  for (const auto* list : {&ins, &outs})
    for (const sharding::TensorSharding& s : *list) splits = splits || !freePart(s, manual).isReplicated();
  op->walk([&](Operation& o) { splits = splits || o.name() == "sdy.sharding_constraint"; });
  if (!splits) return false;

  const Operation* meshOp = nullptr;
  for (const Operation& o : module.body())
    if (o.name() == "sdy.mesh" && o.attr("sym_name") && o.attr("sym_name").stringValue() == meshName) meshOp = &o;
  if (!meshOp) return false;
  Module sub;
  sub.body().push_back(meshOp->clone());
  // The body's values are whole along the free axes: its argument types as they are.
  if (Operation* ret = body.terminator(); !ret || ret->name() != "sdy.return") return false;
  Operation* main = sub.body().push_back(outlineFunction(body, {}, "main", op->loc()));
  // JAX's constraints that leave every dimension open (`[{?}, {?}]`) say
  // nothing: they go, so that propagation carries the others' splits.
  std::vector<Operation*> open;
  main->walk([&](Operation& o) {
    if (o.name() != "sdy.sharding_constraint") return;
    Attribute a = o.attr("sharding");
    if (!a || !a.is(AttrKind::Opaque)) return;
    Expected<sharding::TensorSharding> c = sharding::parseSharding(a.stringValue());
    if (c && c->usedAxes().empty() && c->unreduced.empty() &&
        std::ranges::all_of(c->dims, [](const sharding::DimSharding& d) { return d.open; }))
      open.push_back(&o);
  });
  for (Operation* c : open) {
    c->result(0)->replaceAllUsesWith(c->operand(0));
    c->erase();
  }
  for (size_t i = 0; i < ins.size(); ++i) setArgumentSharding(*main, static_cast<unsigned>(i), freePart(ins[i], manual));
  for (size_t j = 0; j < outs.size(); ++j) setResultSharding(*main, static_cast<unsigned>(j), freePart(outs[j], manual));
  Expected<PassManager> spmd = namedPipeline("spmd");
  if (!spmd || !spmd->run(sub).isOk()) return false;
  Operation* partitioned = sub.lookupFunction("main");
  if (!partitioned || partitioned->region(0).numBlocks() != 1) return false;
  Block& done = partitioned->region(0).front();
  if (done.numArguments() != body.numArguments()) return false;

  // The body, replaced by the partitioned function's.
  std::vector<Operation*> old = body.ops();
  for (Operation* o : old) o->dropAllReferences();
  for (auto it = old.rbegin(); it != old.rend(); ++it) (*it)->erase();
  std::vector<std::pair<Value*, Value*>> back;
  for (unsigned i = 0; i < done.numArguments(); ++i) {
    body.argument(i)->setType(done.argument(i)->type());
    back.emplace_back(done.argument(i), body.argument(i));
  }
  cloneBlockInto(done, body, back, "sdy.return");
  return true;
}

// Whether a partially manual computation of `module` calls a function (a
// scan body, a nested jit): its ops are the computation's too, and a nest
// manual over free axes may be among them.
Expected<bool> partialManualCalls(Module& module) {
  bool calls = false;
  Status failed = Status::ok();
  module.op().walk([&](Operation& op) {
    if (calls || !failed.isOk() || op.name() != "sdy.manual_computation") return;
    Attribute axesAttr = op.attr("manual_axes"), in = op.attr("in_shardings"), out = op.attr("out_shardings");
    if (!axesAttr || !in || !out || !axesAttr.is(AttrKind::Opaque) || !in.is(AttrKind::Opaque) ||
        !out.is(AttrKind::Opaque))
      return;
    Expected<std::vector<std::string>> manual = sharding::parseManualAxes(axesAttr.stringValue());
    Expected<std::vector<sharding::TensorSharding>> ins = sharding::parseShardingPerValue(in.stringValue());
    Expected<std::vector<sharding::TensorSharding>> outs = sharding::parseShardingPerValue(out.stringValue());
    if (!manual || !ins || !outs || (ins->empty() && outs->empty())) return;
    Expected<sharding::Mesh> mesh = sharding::meshOf(ins->empty() ? outs->front() : ins->front(), module);
    if (!mesh) {
      failed = mesh.takeStatus();
      return;
    }
    if (manual->size() == mesh->axes.size()) return;
    op.walk([&](Operation& inner) { calls = calls || inner.name() == "func.call"; });
  });
  if (!failed.isOk()) return failed;
  return calls;
}

}  // namespace

Expected<int> widenPartialManualComputations(Module& module) {
  // The functions a partially manual computation calls are inlined first,
  // as kiln's pipeline would later (the inline pass).
  KILN_ASSIGN_OR_RETURN(bool calls, partialManualCalls(module));
  if (calls) {
    Expected<bool> inlined = createInlinePass()->run(module);
    if (!inlined) return inlined.takeStatus();
  }
  std::vector<Operation*> manuals;
  module.op().walk([&](Operation& op) {
    if (op.name() != "sdy.manual_computation") return;
    for (const Operation* above = op.parentOp(); above; above = above->parentOp())
      if (above->name() == "sdy.manual_computation") return;  // a nest: its outer one decides
    manuals.push_back(&op);
  });
  int widened = 0;
  for (Operation* op : manuals) {
    Attribute axesAttr = op->attr("manual_axes"), in = op->attr("in_shardings"), out = op->attr("out_shardings");
    if (!axesAttr || !in || !out || !axesAttr.is(AttrKind::Opaque) || !in.is(AttrKind::Opaque) ||
        !out.is(AttrKind::Opaque))
      continue;
    KILN_ASSIGN_OR_RETURN(std::vector<std::string> manual, sharding::parseManualAxes(axesAttr.stringValue()));
    KILN_ASSIGN_OR_RETURN(std::vector<sharding::TensorSharding> ins, sharding::parseShardingPerValue(in.stringValue()));
    KILN_ASSIGN_OR_RETURN(std::vector<sharding::TensorSharding> outs,
                          sharding::parseShardingPerValue(out.stringValue()));
    if (ins.empty() && outs.empty()) continue;
    const sharding::TensorSharding& any = ins.empty() ? outs.front() : ins.front();
    KILN_ASSIGN_OR_RETURN(sharding::Mesh mesh, sharding::meshOf(any, module));
    if (manual.size() == mesh.axes.size()) continue;  // fully manual already
    std::vector<sharding::TensorSharding> fullIns = ins, fullOuts = outs;
    bool only = true;
    for (auto* list : {&ins, &outs})
      for (sharding::TensorSharding& s : *list) only = only && dropFreeAxes(s, manual) && s.meshName == any.meshName;
    if (!only) continue;
    KILN_ASSIGN_OR_RETURN(bool bodyOnly, bodyWidenable(*op, manual, mesh, any.meshName));
    if (!bodyOnly) continue;
    // Closed dimensions: nothing is left for propagation to add.
    for (auto* list : {&ins, &outs})
      for (sharding::TensorSharding& s : *list)
        for (sharding::DimSharding& d : s.dims) d.open = false;
    std::vector<std::string> every;
    for (const sharding::MeshAxis& axis : mesh.axes) every.push_back(axis.name);
    op->setAttr("manual_axes", Attribute::opaque(sharding::printManualAxes(every)));
    op->setAttr("in_shardings", sharding::toAttribute(ins));
    op->setAttr("out_shardings", sharding::toAttribute(outs));
    // Nested manual computations (checked above) become their bodies, outermost first: a replicated one as
    // it is, one over free axes between slices and gathers.
    int64_t channel = 1;
    for (bool again = true; again;) {
      Operation* nest = nullptr;
      op->walk([&](Operation& o) {
        if (!nest && &o != op && o.name() == "sdy.manual_computation") nest = &o;
      });
      again = nest != nullptr;
      if (!nest) break;
      if (isReplicatedNest(*nest)) {
        std::vector<Value*> operands(nest->operands().begin(), nest->operands().end());
        nest->replaceWith(cloneBodyBefore(nest, nest->region(0).front(), operands));
      } else {
        inlineFreeAxisNest(nest, mesh, channel);
      }
    }
    // The free axes' work split between their devices where kiln's
    // partitioner can; else computed whole on each.
    for (auto* list : {&fullIns, &fullOuts})
      for (sharding::TensorSharding& s : *list) {
        std::erase_if(s.unreduced, [&](const std::string& axis) { return !isManual(manual, axis); });
        for (sharding::DimSharding& d : s.dims) d.open = false;
      }
    if (splitFreeAxisWork(module, op, any.meshName, manual, fullIns, fullOuts)) {
      op->setAttr("in_shardings", sharding::toAttribute(fullIns));
      op->setAttr("out_shardings", sharding::toAttribute(fullOuts));
    }
    std::vector<Operation*> constraints;
    op->walk([&](Operation& o) {
      if (&o == op) return;
      if (o.name() == "sdy.sharding_constraint")
        constraints.push_back(&o);
      else
        o.attrs().erase("sdy.sharding");
    });
    for (Operation* c : constraints) {
      c->result(0)->replaceAllUsesWith(c->operand(0));
      c->erase();
    }
    ++widened;
  }
  return widened;
}

}  // namespace kiln::pjrt
