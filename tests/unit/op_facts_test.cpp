// Op facts live in the op registry (kiln/ir/op_registry.h), declared once per
// op; these tests pin down that the printer and the parser agree with them, so
// a new op cannot be half-declared.
#include <gtest/gtest.h>

#include "kiln/ir/op_registry.h"
#include "kiln/ir/printer.h"
#include "kiln/parse/parser_impl.h"

namespace kiln {
namespace {

TEST(OpFacts, EveryCustomFormHasAPrinterAndAParserAndNoOtherOpHasOne) {
  for (const OpDef* def : allOpDefs()) {
    bool custom = def->pretty == PrettyForm::kCustom;
    EXPECT_EQ(hasCustomPrettyPrinter(def->name), custom) << def->name;
    bool parses = lookupPrettyOpParser(def->name) != nullptr;
    EXPECT_EQ(parses, def->pretty != PrettyForm::kGenericOnly) << def->name;
  }
}

TEST(OpFacts, DataMovementOpsArePureAndNotElementwise) {
  for (const OpDef* def : allOpDefs()) {
    if (!def->has(kIndexMap) && !def->has(kDynamicIndexMap)) continue;
    EXPECT_TRUE(def->has(kPure)) << def->name;
    EXPECT_FALSE(def->has(kElementwise)) << def->name;
    EXPECT_FALSE(def->has(kIndexMap) && def->has(kDynamicIndexMap)) << def->name;
  }
}

TEST(OpFacts, TranscendentalOpsAreElementwise) {
  for (const OpDef* def : allOpDefs())
    if (def->has(kTranscendental)) EXPECT_TRUE(def->has(kElementwise)) << def->name;
}

TEST(OpFacts, TerminatorsAreTheReturnLikeOps) {
  for (const OpDef* def : allOpDefs()) EXPECT_EQ(def->has(kTerminator), def->has(kReturnLike)) << def->name;
  EXPECT_TRUE(lookupOpDef("kiln.yield")->has(kTerminator));
  EXPECT_TRUE(lookupOpDef("stablehlo.return")->has(kTerminator));
  EXPECT_TRUE(lookupOpDef("func.return")->has(kTerminator));
}

}  // namespace
}  // namespace kiln
