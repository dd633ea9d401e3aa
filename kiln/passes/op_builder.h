// Builds ops before a fixed position: what the rewriting passes (expand,
// legalize, refine_shapes) share for making constants, broadcasts and sums.
#pragma once

#include <string>
#include <vector>

#include "kiln/ir/float_formats.h"
#include "kiln/passes/pass_util.h"

namespace kiln {

// Gives `st` a region that adds its two `scalar` arguments: the body of a
// sum (reduce, all_reduce).
inline void addSumRegion(OperationState& st, Type scalar, Location loc) {
  Block* body = st.addRegion()->addBlock();
  Value* lhs = body->addArgument(scalar);
  Value* rhs = body->addArgument(scalar);
  OperationState add("stablehlo.add", loc);
  add.operands = {lhs, rhs};
  add.resultTypes = {scalar};
  Operation* addOp = body->push_back(Operation::create(std::move(add)));
  OperationState ret("stablehlo.return", loc);
  ret.operands = {addOp->result()};
  body->push_back(Operation::create(std::move(ret)));
}

// Builds ops before a fixed position, all at one location. Callers build
// one op per statement where order matters: C++ leaves the order in which a
// call's arguments are evaluated unspecified, and so would be the IR.
class Builder {
 public:
  explicit Builder(Operation& pos) : pos_(pos) {}

  Value* op(std::string name, std::vector<Value*> operands, AttrDict attrs = {}, Type result = {}) {
    OperationState st(std::move(name), pos_.loc());
    st.operands = std::move(operands);
    st.attributes = std::move(attrs);
    if (result) st.resultTypes = {result};
    return insertBefore(&pos_, std::move(st))->result();
  }
  Value* constant(Type type, double value) {
    OperationState st("stablehlo.constant", pos_.loc());
    std::vector<uint8_t> bytes(type.elementType().storageBytes());
    uint64_t raw = type.elementType().isFloat() ? encodeFloat(type.elementType().kind(), value)
                                                : static_cast<uint64_t>(static_cast<int64_t>(value));
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(raw >> (8 * i));
    st.attributes.set("value", Attribute::dense(type, std::move(bytes), true));
    st.resultTypes = {type};
    return insertBefore(&pos_, std::move(st))->result();
  }
  Value* binary(std::string_view name, Value* a, Value* b) { return op("stablehlo." + std::string(name), {a, b}); }
  Value* unary(std::string_view name, Value* a) { return op("stablehlo." + std::string(name), {a}); }
  Value* convert(Value* v, Type elementType) {
    return op("stablehlo.convert", {v}, {}, v->type().withElementType(elementType));
  }
  Value* broadcast(Value* v, Type to, std::vector<int64_t> dims) {
    return op("stablehlo.broadcast_in_dim", {v}, AttrDict({{"broadcast_dimensions", Attribute::denseI64Array(dims)}}),
              to);
  }
  // Elements start..limit (exclusive) of `v`, every `strides`-th.
  Value* slice(Value* v, std::vector<int64_t> start, std::vector<int64_t> limit, std::vector<int64_t> strides) {
    return op("stablehlo.slice", {v},
              AttrDict({{"start_indices", Attribute::denseI64Array(start)},
                        {"limit_indices", Attribute::denseI64Array(limit)},
                        {"strides", Attribute::denseI64Array(strides)}}));
  }
  // Elements [begin, end) of dimension `dim` of `v`, all of the others.
  Value* sliceAlong(Value* v, int64_t dim, int64_t begin, int64_t end) {
    std::vector<int64_t> start(size_t(v->type().rank()), 0);
    std::vector<int64_t> limit(v->type().shape().begin(), v->type().shape().end());
    start[size_t(dim)] = begin;
    limit[size_t(dim)] = end;
    return slice(v, std::move(start), std::move(limit), std::vector<int64_t>(size_t(v->type().rank()), 1));
  }
  // Sum of `v` over `dims`, starting from `init` (a scalar; 0 when null).
  Value* sum(Value* v, std::vector<int64_t> dims, Value* init = nullptr) {
    Type scalar = Type::tensor({}, v->type().elementType());
    OperationState st("stablehlo.reduce", pos_.loc());
    st.operands = {v, init ? init : constant(scalar, 0.0)};
    st.attributes.set("dimensions", Attribute::denseI64Array(dims));
    addSumRegion(st, scalar, pos_.loc());
    return insertBefore(&pos_, std::move(st))->result();
  }

 private:
  Operation& pos_;
};

}  // namespace kiln
