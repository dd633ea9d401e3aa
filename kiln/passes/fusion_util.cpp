#include "kiln/passes/fusion_util.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_map>

#include "kiln/ir/op_registry.h"
#include "kiln/passes/fusion_policy.h"
#include "kiln/passes/pass_util.h"

namespace kiln::fusion {
namespace {

bool nameIn(const Operation& op, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), op.name()) != names.end();
}

Value* lookup(const std::vector<std::pair<Value*, Value*>>& mapping, Value* v) {
  for (auto it = mapping.rbegin(); it != mapping.rend(); ++it)
    if (it->first == v) return it->second;
  return nullptr;
}

}  // namespace

bool isElementwise(const Operation& op) {
  return op.def() && op.def()->has(kElementwise) && op.numRegions() == 0;
}

bool isDataMovement(const Operation& op) { return op.def() && op.def()->has(kIndexMap); }

bool isLibraryCall(const Operation& op) {
  return nameIn(op, {"stablehlo.dot_general", "stablehlo.dot", "stablehlo.convolution"});
}

bool isSimpleReduce(const Operation& op) {
  if (op.name() != "stablehlo.reduce" || op.numOperands() != 2 || op.numRegions() != 1) return false;
  if (op.region(0).numBlocks() != 1) return false;
  Block& body = op.region(0).front();
  Operation* combiner = body.front();
  if (!combiner || body.size() != 2 || !isElementwise(*combiner) || combiner->numOperands() != 2) return false;
  for (Value* operand : combiner->operands())
    if (operand->ownerBlock() != &body) return false;
  Operation* ret = body.back();
  return ret->name() == "stablehlo.return" && ret->numOperands() == 1 && ret->operand(0) == combiner->result();
}

bool isPulledConstant(const Operation& op) {
  if (op.name() != "stablehlo.constant" || op.numResults() != 1) return false;
  return op.result()->type().isTensor() &&
         (op.result()->type().numElements() == 1 || splatConstantBytes(op.result()).has_value());
}

int64_t opCost(const Operation& op) {
  bool transcendental = op.def() && op.def()->has(kTranscendental);
  return transcendental ? fusion_policy::kTranscendentalOpCost : fusion_policy::kCheapOpCost;
}

bool isStaticTensor(Type t) {
  if (!t.isTensor()) return false;
  for (int64_t d : t.shape())
    if (d < 0) return false;
  return true;
}

bool isFusion(const Operation& op) { return op.name() == "kiln.fusion"; }

namespace {

// Whether every read of `v` is by elementwise ops whose results flow, the
// same way, only into the kiln.yield.
bool flowsElementwiseToYield(const Value* v, std::set<const Value*>& checked) {
  if (!checked.insert(v).second) return true;
  for (const Use& use : v->uses()) {
    if (use.user->name() == "kiln.yield") continue;
    if (!isElementwise(*use.user)) return false;
    for (const Value* r : use.user->results())
      if (!flowsElementwiseToYield(r, checked)) return false;
  }
  return true;
}

}  // namespace

bool updatesInPlace(const Operation& fusion, unsigned operand, unsigned result) {
  if (!isFusion(fusion) || operand >= fusion.numOperands() || result >= fusion.numResults()) return false;
  Attribute kind = fusion.attr("kind");
  if (!kind || !kind.is(AttrKind::String) || (kind.stringValue() != "loop" && kind.stringValue() != "multi_output"))
    return false;
  Type from = fusion.operand(operand)->type(), to = fusion.result(result)->type();
  if (!from.isTensor() || !to.isTensor() || !std::ranges::equal(from.shape(), to.shape())) return false;
  const Block& body = fusion.region(0).front();
  // Several results in element form only: a reduction's rows store their
  // outputs in passes of their own.
  for (const Operation& inner : body)
    if (fusion.numResults() > 1 && !isElementwise(inner) && !isDataMovement(inner) && inner.name() != "stablehlo.constant" &&
        inner.name() != "kiln.yield")
      return false;
  std::set<const Value*> checked;
  return flowsElementwiseToYield(body.argument(operand), checked);
}

std::vector<Operation*> computedOps(const Operation& op) {
  if (!isFusion(op)) return {const_cast<Operation*>(&op)};
  std::vector<Operation*> ops = op.region(0).front().ops();
  ops.pop_back();  // kiln.yield
  return ops;
}

Value* innerOperand(const Operation& op, unsigned i) {
  return isFusion(op) ? op.region(0).front().argument(i) : op.operand(i);
}

std::vector<Value*> innerResults(const Operation& op) {
  if (!isFusion(op)) return op.results();
  Operation* yield = op.region(0).front().terminator();
  return {yield->operands().begin(), yield->operands().end()};
}

std::vector<Operation*> innerUsers(const Operation& op, const Value* v) {
  std::vector<Operation*> users;
  for (unsigned i = 0; i < op.numOperands(); ++i) {
    if (op.operand(i) != v) continue;
    if (!isFusion(op)) return {const_cast<Operation*>(&op)};
    for (const Use& use : innerOperand(op, i)->uses())
      if (std::find(users.begin(), users.end(), use.user) == users.end()) users.push_back(use.user);
  }
  return users;
}

bool onlyUsedBy(const Operation& producer, const Operation& consumer) {
  for (Value* r : producer.results())
    for (const Use& use : r->uses())
      if (use.user != &consumer) return false;
  return true;
}

std::string fusionKind(const Block& body) {
  if (body.terminator()->numOperands() > 1) return "multi_output";
  bool reduces = false;
  for (const Operation& op : body) {
    if (isLibraryCall(op)) return "output";
    reduces |= op.name() == "stablehlo.reduce";
  }
  return reduces ? "input" : "loop";
}

Operation* outline(std::span<Operation* const> ops, int64_t* opsCloned) {
  Operation* last = ops.back();
  std::set<const Operation*> members(ops.begin(), ops.end());
  OperationState state("kiln.fusion", last->loc());
  Block* body = state.addRegion()->addBlock();
  std::vector<std::pair<Value*, Value*>> mapping;  // outer value -> value inside the new body

  // Maps an outer value read by the set: a value the set defines, or a new operand.
  auto inner = [&](Value* outer) {
    if (Value* v = lookup(mapping, outer)) return v;
    state.operands.push_back(outer);
    Value* arg = body->addArgument(outer->type(), outer->loc);
    mapping.emplace_back(outer, arg);
    return arg;
  };
  for (Operation* op : ops) {
    if (!isFusion(*op)) {
      for (Value* operand : op->operands()) inner(operand);
      body->push_back(op->clone(&mapping));
      if (opsCloned) ++*opsCloned;
      continue;
    }
    // Inline a nested fusion by moving its body (it is erased below, so
    // nothing else sees it): its arguments become what its operands map to,
    // and its ops, in order, join the new body as they are. Merging two
    // kernels then allocates nothing per op (a copy cloned every op and
    // looked each operand up in a mapping as long as the body).
    Block& nested = op->region(0).front();
    for (unsigned i = 0; i < op->numOperands(); ++i) nested.argument(i)->replaceAllUsesWith(inner(op->operand(i)));
    for (Operation* nestedOp : computedOps(*op)) body->push_back(nestedOp->remove());
    Operation* yield = nested.terminator();  // reads the moved values until the fusion is erased
    for (unsigned i = 0; i < op->numResults(); ++i) mapping.emplace_back(op->result(i), yield->operand(i));
  }

  std::vector<Value*> escaping;  // values of the set used outside it, in block order
  OperationState yield("kiln.yield", last->loc());
  for (Operation* op : ops)
    for (Value* r : op->results()) {
      bool usedOutside = std::any_of(r->uses().begin(), r->uses().end(),
                                     [&](const Use& u) { return !members.count(u.user); });
      if (!usedOutside) continue;
      escaping.push_back(r);
      yield.operands.push_back(lookup(mapping, r));
      state.resultTypes.push_back(r->type());
    }
  body->push_back(Operation::create(std::move(yield)));
  for (Operation& op : *body)
    if (isLibraryCall(op)) {
      body->insertBefore(body->front(), op.remove());
      break;
    }
  state.attributes.set("kind", Attribute::string(fusionKind(*body)));

  Operation* fusion = last->parentBlock()->insertBefore(last, Operation::create(std::move(state)));
  for (size_t i = 0; i < escaping.size(); ++i) escaping[i]->replaceAllUsesWith(fusion->result(i));
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) (*it)->erase();
  return fusion;
}

FusionGrower::FusionGrower(Operation& fusion) : fusion_(&fusion) {
  for (Value* v : fusion.operands()) where_.emplace(v, order_.insert(order_.end(), v));
}

Operation* FusionGrower::copyProducer(Operation& producer) {
  Operation* copy = copyForConsumer(producer, *fusion_);
  for (unsigned r = 0; r < producer.numResults(); ++r)
    if (auto found = where_.find(producer.result(r)); found != where_.end()) {
      *found->second = copy->result(r);
      where_.emplace(copy->result(r), found->second);
      where_.erase(found);
    }
  return copy;
}

Value* FusionGrower::argumentFor(Value* outer) {
  Block& body = fusion_->region(0).front();
  for (unsigned i = 0; i < fusion_->numOperands(); ++i)
    if (fusion_->operand(i) == outer) return body.argument(i);
  std::vector<Value*> operands(fusion_->operands().begin(), fusion_->operands().end());
  operands.push_back(outer);
  fusion_->setOperands(operands);
  return body.addArgument(outer->type(), outer->loc);
}

// Drops operand i (whose body argument is unused now): the last operand
// takes its place, so no other operand moves (finish() restores the order).
void FusionGrower::removeOperand(unsigned i) {
  Block& body = fusion_->region(0).front();
  unsigned last = fusion_->numOperands() - 1;
  std::vector<Value*> operands(fusion_->operands().begin(), fusion_->operands().end());
  if (i != last) {
    Value* kept = body.argument(i);
    Value* moved = body.argument(last);
    kept->setType(moved->type());
    kept->loc = moved->loc;
    moved->replaceAllUsesWith(kept);
    operands[i] = operands[last];
  }
  operands.pop_back();
  fusion_->setOperands(operands);
  body.eraseArgument(last);
}

void FusionGrower::absorb(Operation& producer) {
  Block& body = fusion_->region(0).front();
  // Where outline() puts it: first, but after a library call, which outline
  // moves to the front (unless the producer is that call).
  Operation* pos = body.front();
  if (!isLibraryCall(producer) && pos && isLibraryCall(*pos)) pos = pos->nextInBlock();
  Operation* copy = body.insertBefore(pos, producer.clone());
  ++opsWritten_;
  ++opsCloned_;
  // outline() lists the producer's operands first, then the fusion's others:
  // moved (or added) to the front, the last one first.
  for (unsigned j = copy->numOperands(); j-- > 0;) {
    Value* v = producer.operand(j);
    auto found = where_.find(v);
    if (found != where_.end()) order_.splice(order_.begin(), order_, found->second);
    else where_.emplace(v, order_.insert(order_.begin(), v));
  }
  for (unsigned r = 0; r < producer.numResults(); ++r)
    if (auto found = where_.find(producer.result(r)); found != where_.end()) {
      order_.erase(found->second);
      where_.erase(found);
    }
  for (unsigned j = 0; j < copy->numOperands(); ++j) copy->setOperand(j, argumentFor(copy->operand(j)));
  for (unsigned r = 0; r < producer.numResults(); ++r)
    for (unsigned i = fusion_->numOperands(); i-- > 0;)
      if (fusion_->operand(i) == producer.result(r)) {
        body.argument(i)->replaceAllUsesWith(copy->result(r));
        removeOperand(i);
      }
  producer.erase();
}

Operation* FusionGrower::finish() {
  Block& body = fusion_->region(0).front();
  fusion_->setAttr("kind", Attribute::string(fusionKind(body)));
  std::vector<Value*> order = operands();
  if (std::equal(order.begin(), order.end(), fusion_->operands().begin(), fusion_->operands().end())) return fusion_;
  OperationState state("kiln.fusion", fusion_->loc());
  state.attributes = fusion_->attrs();
  state.operands = order;
  state.resultTypes = fusion_->resultTypes();
  Block* newBody = state.addRegion()->addBlock();
  std::unordered_map<Value*, Value*> argumentOf;
  for (Value* v : order) argumentOf[v] = newBody->addArgument(v->type(), v->loc);
  while (!body.empty()) {
    newBody->push_back(body.front()->remove());
    ++opsWritten_;
  }
  for (unsigned i = 0; i < fusion_->numOperands(); ++i)
    body.argument(i)->replaceAllUsesWith(argumentOf.at(fusion_->operand(i)));
  Operation* grown = fusion_->parentBlock()->insertBefore(fusion_, Operation::create(std::move(state)));
  for (unsigned r = 0; r < fusion_->numResults(); ++r) fusion_->result(r)->replaceAllUsesWith(grown->result(r));
  fusion_->erase();
  fusion_ = grown;
  return grown;
}

Operation* copyForConsumer(Operation& producer, Operation& consumer) {
  Operation* copy = consumer.parentBlock()->insertBefore(&consumer, producer.clone());
  for (unsigned i = 0; i < consumer.numOperands(); ++i)
    for (unsigned r = 0; r < producer.numResults(); ++r)
      if (consumer.operand(i) == producer.result(r)) consumer.setOperand(i, copy->result(r));
  return copy;
}

}  // namespace kiln::fusion
