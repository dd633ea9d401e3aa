#include "kiln/pjrt/partial_manual.h"

#include <algorithm>
#include <string>
#include <vector>

#include "kiln/ir/sharding.h"
#include "kiln/passes/pass_util.h"
#include "kiln/passes/sharding_annotations.h"

namespace kiln::pjrt {
namespace {

bool namesOnly(const sharding::TensorSharding& s, const std::vector<std::string>& manual) {
  for (const std::string& axis : s.usedAxes())
    if (std::ranges::find(manual, axis) == manual.end()) return false;
  for (const std::string& axis : s.unreduced)
    if (std::ranges::find(manual, axis) == manual.end()) return false;
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

// Whether no sharding inside `body` names an axis outside `manual`.
Expected<bool> bodyNamesOnly(Operation& manualOp, const std::vector<std::string>& manual) {
  Status failed = Status::ok();
  bool only = true;
  manualOp.walk([&](Operation& inner) {
    if (&inner == &manualOp || !failed.isOk() || !only) return;
    if (Attribute a = inner.attr("sharding"); a && a.is(AttrKind::Opaque)) {
      Expected<sharding::TensorSharding> s = sharding::parseSharding(a.stringValue());
      if (!s)
        failed = s.takeStatus();
      else if (!namesOnly(*s, manual))
        only = false;
    }
    Expected<std::optional<std::vector<sharding::TensorSharding>>> per = sharding::opShardings(inner);
    if (!per) {
      failed = per.takeStatus();
    } else if (*per) {
      for (const sharding::TensorSharding& s : **per)
        if (!namesOnly(s, manual)) only = false;
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
    for (const auto* list : {&ins, &outs})
      for (const sharding::TensorSharding& s : *list) only = only && namesOnly(s, manual) && s.meshName == any.meshName;
    if (!only) continue;
    KILN_ASSIGN_OR_RETURN(bool bodyOnly, bodyNamesOnly(*op, manual));
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
