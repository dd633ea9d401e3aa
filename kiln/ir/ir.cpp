#include "kiln/ir/ir.h"

#include <algorithm>
#include <cassert>

#include "kiln/ir/op_registry.h"

namespace kiln {

// --- Value -------------------------------------------------------------------

// From the back: the use removed is most often a recent one (a rewrite
// replacing the op it just made, ops erased in reverse order), and a value
// read by many ops (a function argument every op of a long chain reads)
// would otherwise cost a scan of all its uses per removal.
void Value::removeUse(Use u) {
  auto it = std::find(uses_.rbegin(), uses_.rend(), u);
  assert(it != uses_.rend());
  *it = uses_.back();
  uses_.pop_back();
}

void Value::replaceAllUsesWith(Value* other) {
  if (other == this) return;
  // setOperand edits uses_, so work from a copy.
  std::vector<Use> uses = uses_;
  for (Use u : uses) u.user->setOperand(u.index, other);
}

// --- Operation ---------------------------------------------------------------

Region* OperationState::addRegion() {
  regions.push_back(std::make_unique<Region>());
  return regions.back().get();
}

std::unique_ptr<Operation> Operation::create(OperationState&& state) {
  std::unique_ptr<Operation> op(new Operation());
  op->name_ = std::move(state.name);
  op->def_ = lookupOpDef(op->name_);
  op->loc_ = state.loc;
  op->debugLoc_ = std::move(state.debugLoc);
  op->attrs_ = std::move(state.attributes);
  op->operands_ = std::move(state.operands);
  for (unsigned i = 0; i < op->operands_.size(); ++i) op->operands_[i]->addUse({op.get(), i});
  for (unsigned i = 0; i < state.resultTypes.size(); ++i)
    op->results_.emplace_back(new Value(state.resultTypes[i], op.get(), nullptr, i));
  op->regions_ = std::move(state.regions);
  for (auto& r : op->regions_) r->parent_ = op.get();
  return op;
}

Operation::~Operation() {
  // Regions go first: ops inside may use our operands, never our results
  // (which would be a dominance violation), but they may use each other.
  regions_.clear();
  for (unsigned i = 0; i < operands_.size(); ++i)
    if (operands_[i]) operands_[i]->removeUse({this, i});
}

void Operation::dropAllReferences() {
  for (auto& r : regions_)
    for (auto& b : r->blocks())
      for (Operation& op : *b) op.dropAllReferences();
  for (unsigned i = 0; i < operands_.size(); ++i)
    if (operands_[i]) operands_[i]->removeUse({this, i});
  operands_.clear();
}

void Operation::setOperand(unsigned i, Value* v) {
  if (operands_[i] == v) return;
  if (operands_[i]) operands_[i]->removeUse({this, i});
  operands_[i] = v;
  if (v) v->addUse({this, i});
}

// Only the slots that change touch the uses (appending an operand to an op
// with many does not rewrite them all).
void Operation::setOperands(std::span<Value* const> values) {
  std::vector<Value*> next(values.begin(), values.end());  // `values` may view operands_
  for (unsigned i = 0; i < operands_.size(); ++i)
    if (operands_[i] && (i >= next.size() || operands_[i] != next[i])) operands_[i]->removeUse({this, i});
  std::vector<Value*> previous = std::move(operands_);
  operands_ = std::move(next);
  for (unsigned i = 0; i < operands_.size(); ++i)
    if (i >= previous.size() || previous[i] != operands_[i]) operands_[i]->addUse({this, i});
}

std::vector<Type> Operation::operandTypes() const {
  std::vector<Type> out;
  for (Value* v : operands_) out.push_back(v->type());
  return out;
}

std::vector<Value*> Operation::results() const {
  std::vector<Value*> out;
  for (auto& r : results_) out.push_back(r.get());
  return out;
}

std::vector<Type> Operation::resultTypes() const {
  std::vector<Type> out;
  for (auto& r : results_) out.push_back(r->type());
  return out;
}

bool Operation::resultsUnused() const {
  for (auto& r : results_)
    if (!r->useEmpty()) return false;
  return true;
}

Region* Operation::parentRegion() const { return parent_ ? parent_->parent() : nullptr; }
Operation* Operation::parentOp() const { return parent_ ? parent_->parentOp() : nullptr; }

void Operation::erase() {
  assert(resultsUnused() && "erasing an op whose results are still used");
  if (parent_) {
    parent_->unlink(this);  // the returned unique_ptr deletes us
    return;
  }
  delete this;
}

std::unique_ptr<Operation> Operation::remove() {
  assert(parent_);
  return parent_->unlink(this);
}

void Operation::replaceWith(std::span<Value* const> values) {
  assert(values.size() == results_.size());
  for (size_t i = 0; i < values.size(); ++i) results_[i]->replaceAllUsesWith(values[i]);
  erase();
}

namespace {
Value* mapped(std::vector<std::pair<Value*, Value*>>& mapping, Value* v) {
  for (auto& [from, to] : mapping)
    if (from == v) return to;
  return v;
}
}  // namespace

std::unique_ptr<Operation> Operation::clone(std::vector<std::pair<Value*, Value*>>* mappingIn) const {
  std::vector<std::pair<Value*, Value*>> local;
  auto& mapping = mappingIn ? *mappingIn : local;
  OperationState st(name_, loc_);
  st.debugLoc = debugLoc_;
  for (Value* v : operands_) st.operands.push_back(mapped(mapping, v));
  st.resultTypes = resultTypes();
  st.attributes = attrs_;
  for (auto& r : regions_) {
    Region* nr = st.addRegion();
    for (auto& b : r->blocks()) {
      Block* nb = nr->addBlock();
      for (unsigned i = 0; i < b->numArguments(); ++i)
        mapping.emplace_back(b->argument(i), nb->addArgument(b->argument(i)->type(), b->argument(i)->loc));
      for (Operation& op : *b) nb->push_back(op.clone(&mapping));
    }
  }
  auto copy = create(std::move(st));
  for (unsigned i = 0; i < results_.size(); ++i) mapping.emplace_back(results_[i].get(), copy->result(i));
  return copy;
}

// --- Block -------------------------------------------------------------------

Block::~Block() {
  // Drop every operand first: then no op points at a value that is already
  // gone, whatever order the ops are destroyed in (invalid IR may use a value
  // before defining it).
  for (Operation* op = first_; op; op = op->next_) op->dropAllReferences();
  while (last_) {
    Operation* op = last_;
    last_ = op->prev_;
    if (last_) last_->next_ = nullptr;
    op->parent_ = nullptr;
    delete op;
  }
  first_ = nullptr;
}

Operation* Block::parentOp() const { return parent_ ? parent_->parentOp() : nullptr; }

Value* Block::addArgument(Type type, Location loc) {
  args_.emplace_back(new Value(type, nullptr, this, static_cast<unsigned>(args_.size())));
  args_.back()->loc = loc;
  return args_.back().get();
}

std::vector<Value*> Block::arguments() const {
  std::vector<Value*> out;
  for (auto& a : args_) out.push_back(a.get());
  return out;
}

std::vector<Type> Block::argumentTypes() const {
  std::vector<Type> out;
  for (auto& a : args_) out.push_back(a->type());
  return out;
}

void Block::eraseArgument(unsigned i) {
  assert(args_[i]->useEmpty());
  args_.erase(args_.begin() + i);
  for (unsigned j = i; j < args_.size(); ++j) args_[j]->index_ = j;
}

size_t Block::size() const {
  size_t n = 0;
  for (Operation* op = first_; op; op = op->next_) ++n;
  return n;
}

Operation* Block::push_back(std::unique_ptr<Operation> op) { return insertBefore(nullptr, std::move(op)); }

Operation* Block::insertBefore(Operation* pos, std::unique_ptr<Operation> opPtr) {
  Operation* op = opPtr.release();
  assert(!op->parent_);
  op->parent_ = this;
  if (!pos) {
    op->prev_ = last_;
    op->next_ = nullptr;
    if (last_) last_->next_ = op; else first_ = op;
    last_ = op;
  } else {
    assert(pos->parent_ == this);
    op->next_ = pos;
    op->prev_ = pos->prev_;
    if (pos->prev_) pos->prev_->next_ = op; else first_ = op;
    pos->prev_ = op;
  }
  return op;
}

std::unique_ptr<Operation> Block::unlink(Operation* op) {
  assert(op->parent_ == this);
  if (op->prev_) op->prev_->next_ = op->next_; else first_ = op->next_;
  if (op->next_) op->next_->prev_ = op->prev_; else last_ = op->prev_;
  op->prev_ = op->next_ = nullptr;
  op->parent_ = nullptr;
  return std::unique_ptr<Operation>(op);
}

std::vector<Operation*> Block::ops() const {
  std::vector<Operation*> out;
  for (Operation* op = first_; op; op = op->next_) out.push_back(op);
  return out;
}

// --- Region ------------------------------------------------------------------

Block* Region::addBlock() {
  blocks_.push_back(std::make_unique<Block>());
  blocks_.back()->parent_ = this;
  return blocks_.back().get();
}

// --- Module ------------------------------------------------------------------

Module::Module() {
  OperationState st("builtin.module");
  st.addRegion()->addBlock();
  op_ = Operation::create(std::move(st));
}

Module::Module(std::unique_ptr<Operation> moduleOp) : op_(std::move(moduleOp)) {}

std::string Module::name() const {
  Attribute a = op_->attr("sym_name");
  return a ? a.stringValue() : std::string();
}

std::vector<Operation*> Module::functions() const {
  std::vector<Operation*> out;
  for (Operation& op : body())
    if (op.name() == "func.func") out.push_back(&op);
  return out;
}

std::vector<Operation*> Module::definedFunctions() const {
  std::vector<Operation*> out;
  for (Operation* fn : functions())
    if (!fn->region(0).empty()) out.push_back(fn);
  return out;
}

Operation* Module::lookupFunction(std::string_view name) const {
  for (Operation& op : body())
    if (op.name() == "func.func" && func::name(op) == name) return &op;
  return nullptr;
}

namespace func {
std::string_view name(const Operation& fn) {
  Attribute a = fn.attr("sym_name");
  return a ? std::string_view(a.stringValue()) : std::string_view();
}
Type type(const Operation& fn) {
  Attribute a = fn.attr("function_type");
  return a ? a.valueType() : Type();
}
bool isPublic(const Operation& fn) {
  Attribute a = fn.attr("sym_visibility");
  return !a || a.stringValue() == "public";
}
Block& body(const Operation& fn) { return fn.region(0).front(); }
}  // namespace func

}  // namespace kiln
