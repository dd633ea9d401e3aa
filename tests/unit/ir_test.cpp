// IR structure: types are interned, use-lists follow rewrites, ops can be
// moved, cloned and erased.
#include <gtest/gtest.h>

#include "kiln/ir/ir.h"

namespace kiln {
namespace {

TEST(Types, AreInternedAndPrintAsMlir) {
  Type a = Type::tensor({2, 3}, Type::f32());
  Type b = Type::tensor({2, 3}, Type::f32());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, Type::tensor({3, 2}, Type::f32()));
  EXPECT_EQ(a.str(), "tensor<2x3xf32>");
  EXPECT_EQ(Type::tensor({}, Type::integer(8, true)).str(), "tensor<ui8>");
  EXPECT_EQ(Type::tensor({4}, Type::complex(Type::f64())).str(), "tensor<4xcomplex<f64>>");
  EXPECT_EQ(Type::token().str(), "!stablehlo.token");
  Type tup[] = {a, Type::token()};
  EXPECT_EQ(Type::tuple(tup).str(), "tuple<tensor<2x3xf32>, !stablehlo.token>");
  EXPECT_EQ(a.numElements(), 6);
  EXPECT_EQ(Type::element(TypeKind::F8E4M3FN).bitWidth(), 8u);
  EXPECT_EQ(Type::element(TypeKind::F4E2M1FN).storageBytes(), 1u);
  EXPECT_EQ(Type::element(TypeKind::Complex64).storageBytes(), 8u);
}

std::unique_ptr<Operation> makeOp(const char* name, std::vector<Value*> operands, Type result) {
  OperationState st(name);
  st.operands = std::move(operands);
  st.resultTypes = {result};
  return Operation::create(std::move(st));
}

TEST(Ir, UseListsFollowReplaceAllUsesWith) {
  Type t = Type::tensor({4}, Type::f32());
  Block block;
  Value* x = block.addArgument(t);
  Value* y = block.addArgument(t);
  Operation* add = block.push_back(makeOp("stablehlo.add", {x, x}, t));
  EXPECT_EQ(x->uses().size(), 2u);
  x->replaceAllUsesWith(y);
  EXPECT_TRUE(x->useEmpty());
  EXPECT_EQ(y->uses().size(), 2u);
  EXPECT_EQ(add->operand(0), y);
  EXPECT_EQ(add->operand(1), y);
}

TEST(Ir, EraseUnlinksAndDropsUses) {
  Type t = Type::tensor({4}, Type::f32());
  Block block;
  Value* x = block.addArgument(t);
  Operation* neg = block.push_back(makeOp("stablehlo.negate", {x}, t));
  Operation* abs = block.push_back(makeOp("stablehlo.abs", {neg->result()}, t));
  EXPECT_EQ(block.size(), 2u);
  abs->erase();
  EXPECT_TRUE(neg->result()->useEmpty());
  neg->erase();
  EXPECT_TRUE(block.empty());
  EXPECT_TRUE(x->useEmpty());
}

TEST(Ir, CloneRemapsNestedValues) {
  Type t = Type::tensor({}, Type::f32());
  Block block;
  Value* x = block.addArgument(t);
  OperationState st("stablehlo.reduce");
  st.operands = {x, x};
  st.resultTypes = {t};
  Block* body = st.addRegion()->addBlock();
  Value* a = body->addArgument(t);
  Value* b = body->addArgument(t);
  Operation* inner = body->push_back(makeOp("stablehlo.add", {a, b}, t));
  OperationState ret("stablehlo.return");
  ret.operands = {inner->result()};
  body->push_back(Operation::create(std::move(ret)));
  Operation* reduce = block.push_back(Operation::create(std::move(st)));

  std::unique_ptr<Operation> copy = reduce->clone();
  Block& copyBody = copy->region(0).front();
  Operation& copyAdd = *copyBody.front();
  EXPECT_EQ(copyAdd.operand(0), copyBody.argument(0));
  EXPECT_EQ(copyBody.back()->operand(0), copyAdd.result());
  EXPECT_EQ(copy->operand(0), x);  // outer values are shared
  EXPECT_EQ(x->uses().size(), 4u);
}

TEST(Ir, InsertBeforeKeepsOrder) {
  Type t = Type::tensor({}, Type::f32());
  Block block;
  Value* x = block.addArgument(t);
  Operation* last = block.push_back(makeOp("stablehlo.abs", {x}, t));
  Operation* first = block.insertBefore(last, makeOp("stablehlo.negate", {x}, t));
  EXPECT_EQ(block.front(), first);
  EXPECT_EQ(first->nextInBlock(), last);
  EXPECT_EQ(last->prevInBlock(), first);
}

}  // namespace
}  // namespace kiln
