#include "kiln/pjrt/partial_manual.h"

#include <algorithm>
#include <string>
#include <vector>

#include "kiln/ir/sharding.h"
#include "kiln/passes/pass_util.h"
#include "kiln/passes/sharding_annotations.h"

namespace kiln::pjrt {
namespace {

bool isManual(const std::vector<std::string>& manual, const std::string& axis) {
  return std::ranges::find(manual, axis) != manual.end();
}

// Whether `s` is a partial sum over no free axis: that pending sum cannot be
// dropped as a sharding over a free axis can.
bool noPartialSumOverFreeAxes(const sharding::TensorSharding& s, const std::vector<std::string>& manual) {
  for (const std::string& axis : s.unreduced)
    if (!isManual(manual, axis)) return false;
  return true;
}

// `s` (an in or out sharding of the computation) without its free axes:
// the body sees the whole extent along them (its shapes are divided by the
// manual axes only), so once every axis is manual, the value is replicated
// over them. False when that would not hold: a free axis split before a
// manual one in a dimension (the manual blocks would not be contiguous), or
// a partial sum over a free axis.
bool dropFreeAxes(sharding::TensorSharding& s, const std::vector<std::string>& manual) {
  if (!noPartialSumOverFreeAxes(s, manual)) return false;
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

// Whether the body can run with every axis manual: no value in it is a
// partial sum over a free axis, and any manual computation nested in it
// splits nothing. Its shardings over free axes (sharding constraints,
// `sdy.sharding` of its ops) are hints about splitting the work along them,
// which the widened computation drops.
Expected<bool> bodyWidenable(Operation& manualOp, const std::vector<std::string>& manual) {
  Status failed = Status::ok();
  bool only = true;
  manualOp.walk([&](Operation& inner) {
    if (&inner == &manualOp || !failed.isOk() || !only) return;
    if (Attribute a = inner.attr("sharding"); a && a.is(AttrKind::Opaque)) {
      Expected<sharding::TensorSharding> s = sharding::parseSharding(a.stringValue());
      if (!s)
        failed = s.takeStatus();
      else if (!noPartialSumOverFreeAxes(*s, manual))
        only = false;
    }
    Expected<std::optional<std::vector<sharding::TensorSharding>>> per = sharding::opShardings(inner);
    if (!per) {
      failed = per.takeStatus();
    } else if (*per) {
      for (const sharding::TensorSharding& s : **per)
        if (!noPartialSumOverFreeAxes(s, manual)) only = false;
    }
    if (inner.name() == "sdy.manual_computation" && !isReplicatedNest(inner)) only = false;
  });
  if (!failed.isOk()) return failed;
  return only;
}

}  // namespace

Expected<int> widenPartialManualComputations(Module& module) {
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
    bool only = true;
    for (auto* list : {&ins, &outs})
      for (sharding::TensorSharding& s : *list) only = only && dropFreeAxes(s, manual) && s.meshName == any.meshName;
    if (!only) continue;
    KILN_ASSIGN_OR_RETURN(bool bodyOnly, bodyWidenable(*op, manual));
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
    // Nested manual computations (replicated ones only, checked above) become their bodies, outermost first.
    for (bool again = true; again;) {
      Operation* nest = nullptr;
      op->walk([&](Operation& o) {
        if (!nest && &o != op && o.name() == "sdy.manual_computation") nest = &o;
      });
      again = nest != nullptr;
      if (nest) {
        std::vector<Value*> operands(nest->operands().begin(), nest->operands().end());
        nest->replaceWith(cloneBodyBefore(nest, nest->region(0).front(), operands));
      }
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
