// The IR: operations with SSA operands and results, nested regions of blocks,
// use-lists for in-place rewriting. Everything is an operation, as in MLIR: a
// module is a `builtin.module` op whose region holds `func.func` ops.
//
// Ownership: a Block owns its operations (an intrusive list) and its
// arguments; an Operation owns its results and regions; a Region owns its
// blocks. Values are referenced by raw pointer and stay put until their owner
// is destroyed.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/ir/attributes.h"
#include "kiln/ir/types.h"
#include "kiln/support/diagnostic.h"

namespace kiln {

class Block;
class Operation;
class Region;
struct OpDef;

// One use of a value: operand `index` of `user`.
struct Use {
  Operation* user;
  unsigned index;
  bool operator==(const Use&) const = default;
};

// An SSA value: an operation result or a block argument.
class Value {
 public:
  Type type() const { return type_; }
  void setType(Type t) { type_ = t; }
  Operation* definingOp() const { return definingOp_; }  // null for block arguments
  Block* ownerBlock() const { return ownerBlock_; }      // null for results
  bool isBlockArgument() const { return ownerBlock_ != nullptr; }
  unsigned index() const { return index_; }  // result or argument number

  const std::vector<Use>& uses() const { return uses_; }
  bool useEmpty() const { return uses_.empty(); }
  bool hasOneUse() const { return uses_.size() == 1; }
  void replaceAllUsesWith(Value* other);

  // Location of a block argument (results use their op's location).
  Location loc;

 private:
  friend class Operation;
  friend class Block;
  Value(Type type, Operation* op, Block* block, unsigned index)
      : type_(type), definingOp_(op), ownerBlock_(block), index_(index) {}
  void addUse(Use u) { uses_.push_back(u); }
  void removeUse(Use u);

  Type type_;
  Operation* definingOp_;
  Block* ownerBlock_;
  unsigned index_;
  std::vector<Use> uses_;
};

// The state from which an operation is created (by the parser or a builder).
struct OperationState {
  std::string name;  // "stablehlo.add"
  Location loc;
  std::vector<Value*> operands;
  std::vector<Type> resultTypes;
  AttrDict attributes;
  std::vector<std::unique_ptr<Region>> regions;
  std::string debugLoc;  // verbatim `loc(...)` text, empty when none

  OperationState(std::string name, Location loc = {}) : name(std::move(name)), loc(loc) {}
  Region* addRegion();
};

class Operation {
 public:
  // Creates a detached operation; insert it with Block::push_back/insertBefore.
  static std::unique_ptr<Operation> create(OperationState&& state);
  ~Operation();
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;

  const std::string& name() const { return name_; }
  // The op's definition from the registry; null for unregistered ops.
  const OpDef* def() const { return def_; }
  bool isRegistered() const { return def_ != nullptr; }
  Location loc() const { return loc_; }
  void setLoc(Location l) { loc_ = l; }
  const std::string& debugLoc() const { return debugLoc_; }
  void setDebugLoc(std::string s) { debugLoc_ = std::move(s); }

  // Operands.
  unsigned numOperands() const { return static_cast<unsigned>(operands_.size()); }
  Value* operand(unsigned i) const { return operands_[i]; }
  std::span<Value* const> operands() const { return operands_; }
  void setOperand(unsigned i, Value* v);
  void setOperands(std::span<Value* const> values);
  std::vector<Type> operandTypes() const;

  // Results.
  unsigned numResults() const { return static_cast<unsigned>(results_.size()); }
  Value* result(unsigned i = 0) const { return results_[i].get(); }
  std::vector<Value*> results() const;
  std::vector<Type> resultTypes() const;
  // True if no result has a use.
  bool resultsUnused() const;

  // Attributes.
  const AttrDict& attrs() const { return attrs_; }
  AttrDict& attrs() { return attrs_; }
  Attribute attr(std::string_view name) const { return attrs_.get(name); }
  void setAttr(std::string_view name, Attribute a) { attrs_.set(name, std::move(a)); }

  // Regions.
  unsigned numRegions() const { return static_cast<unsigned>(regions_.size()); }
  Region& region(unsigned i) const { return *regions_[i]; }
  std::span<const std::unique_ptr<Region>> regions() const { return regions_; }

  // Position in the IR.
  Block* parentBlock() const { return parent_; }
  Region* parentRegion() const;
  Operation* parentOp() const;
  Operation* nextInBlock() const { return next_; }
  Operation* prevInBlock() const { return prev_; }

  // Removes this op (and the ops nested in it) from the use-lists of its
  // operands, leaving it with no operands; used before tearing IR down.
  void dropAllReferences();

  // Unlinks this op from its block and destroys it. Its results must be unused.
  void erase();
  // Unlinks without destroying; the caller takes ownership.
  std::unique_ptr<Operation> remove();
  // Replaces all uses of this op's results with `values` (same count) and erases it.
  void replaceWith(std::span<Value* const> values);

  // Pre-order walk of this op and every op nested in its regions. The
  // callback may not erase the op it is visiting.
  template <typename Fn>
  void walk(Fn&& fn);

  // Deep copy (results and block arguments remapped inside the copy;
  // operands defined outside stay as they are unless `mapping` maps them).
  std::unique_ptr<Operation> clone(std::vector<std::pair<Value*, Value*>>* mapping = nullptr) const;

 private:
  friend class Block;
  Operation() = default;

  std::string name_;
  const OpDef* def_ = nullptr;
  Location loc_;
  std::string debugLoc_;
  std::vector<Value*> operands_;
  std::vector<std::unique_ptr<Value>> results_;
  AttrDict attrs_;
  std::vector<std::unique_ptr<Region>> regions_;
  Block* parent_ = nullptr;
  Operation* prev_ = nullptr;
  Operation* next_ = nullptr;
};

class Block {
 public:
  Block() = default;
  ~Block();
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

  Region* parent() const { return parent_; }
  Operation* parentOp() const;

  // Arguments.
  Value* addArgument(Type type, Location loc = {});
  unsigned numArguments() const { return static_cast<unsigned>(args_.size()); }
  Value* argument(unsigned i) const { return args_[i].get(); }
  std::vector<Value*> arguments() const;
  std::vector<Type> argumentTypes() const;
  // Erases argument i; it must be unused.
  void eraseArgument(unsigned i);

  // Operations (intrusive list; iterate with `for (Operation& op : block)`).
  Operation* front() const { return first_; }
  Operation* back() const { return last_; }
  bool empty() const { return first_ == nullptr; }
  size_t size() const;
  Operation* push_back(std::unique_ptr<Operation> op);
  Operation* insertBefore(Operation* pos, std::unique_ptr<Operation> op);  // pos null = end
  // The last op, if it is a terminator-like op (any op; callers check its name).
  Operation* terminator() const { return last_; }

  class iterator {
   public:
    using value_type = Operation;
    using difference_type = std::ptrdiff_t;
    explicit iterator(Operation* op = nullptr) : op_(op) {}
    Operation& operator*() const { return *op_; }
    Operation* operator->() const { return op_; }
    iterator& operator++() { op_ = op_->nextInBlock(); return *this; }
    iterator operator++(int) { iterator t = *this; ++*this; return t; }
    bool operator==(const iterator& o) const { return op_ == o.op_; }
   private:
    Operation* op_;
  };
  iterator begin() const { return iterator(first_); }
  iterator end() const { return iterator(nullptr); }
  // Snapshot of the op pointers, for loops that erase as they go.
  std::vector<Operation*> ops() const;

 private:
  friend class Operation;
  friend class Region;
  std::unique_ptr<Operation> unlink(Operation* op);

  Region* parent_ = nullptr;
  std::vector<std::unique_ptr<Value>> args_;
  Operation* first_ = nullptr;
  Operation* last_ = nullptr;
};

class Region {
 public:
  explicit Region(Operation* parent = nullptr) : parent_(parent) {}
  Operation* parentOp() const { return parent_; }

  bool empty() const { return blocks_.empty(); }
  size_t numBlocks() const { return blocks_.size(); }
  Block& block(size_t i = 0) const { return *blocks_[i]; }
  Block& front() const { return *blocks_.front(); }
  Block* addBlock();
  std::span<const std::unique_ptr<Block>> blocks() const { return blocks_; }

 private:
  friend class Operation;
  friend struct OperationState;
  Operation* parent_;
  std::vector<std::unique_ptr<Block>> blocks_;
};

template <typename Fn>
void Operation::walk(Fn&& fn) {
  fn(*this);
  for (auto& r : regions_)
    for (auto& b : r->blocks())
      for (Operation* op : b->ops()) op->walk(fn);
}

// A parsed program: owns its `builtin.module` operation.
class Module {
 public:
  Module();  // an empty `builtin.module`
  explicit Module(std::unique_ptr<Operation> moduleOp);

  Operation& op() const { return *op_; }
  Block& body() const { return op_->region(0).front(); }
  // `module @name` (empty when anonymous).
  std::string name() const;

  // Top-level functions, and those of them that have a body (not declarations).
  std::vector<Operation*> functions() const;
  std::vector<Operation*> definedFunctions() const;
  Operation* lookupFunction(std::string_view name) const;

 private:
  std::unique_ptr<Operation> op_;
};

// Helpers for func.func operations.
namespace func {
std::string_view name(const Operation& fn);     // sym_name
Type type(const Operation& fn);                 // function_type
bool isPublic(const Operation& fn);             // sym_visibility absent or "public"
Block& body(const Operation& fn);               // the entry block
}  // namespace func

}  // namespace kiln
