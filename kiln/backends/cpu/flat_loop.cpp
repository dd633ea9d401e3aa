// Flattening a planned while loop (flat_loop.h): places for every value of
// its condition and body, decided once at compile time.
#include "kiln/backends/cpu/flat_loop.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "kiln/backends/cpu/onednn_dot.h"
#include "kiln/backends/cpu/program.h"
#include "kiln/passes/buffer_assignment.h"
#include "kiln/passes/fusion_util.h"
#include "kiln/passes/pass_util.h"

namespace kiln::cpu {
namespace {

constexpr int64_t kScratchAlignment = 64;  // as kiln's own buffers (emitted kernels' aligned rows)

int64_t alignUp(int64_t bytes) { return (bytes + kScratchAlignment - 1) / kScratchAlignment * kScratchAlignment; }

bool isDenseTensor(Type t) { return t.isTensor(); }

// One region program's values: the place of each slot, the flat steps, and
// which flat step wrote each slot.
struct FlatRegion {
  std::vector<std::optional<LoopPlace>> placeOf;  // per slot
  std::vector<std::pair<size_t, size_t>> writerOf;  // per slot: (flat step, output), or (npos, 0)
  std::vector<FlatStep> steps;
};

constexpr size_t kNoWriter = size_t(-1);

// Places the values of `program` (a region of a while with `numVariables`
// loop variables) from byte `scratchBase` of the loop's scratch; advances
// `scratchEnd` past them. Null when a step cannot run flat.
std::optional<FlatRegion> flattenRegion(const Program& program, size_t numVariables, size_t numCaptures,
                                        int64_t scratchBase, int64_t& scratchEnd, FlatLoop& loop) {
  if (program.paramTypes.size() != numVariables + numCaptures) return std::nullopt;
  for (Type t : program.paramTypes)
    if (!isDenseTensor(t)) return std::nullopt;
  FlatRegion region;
  region.placeOf.resize(program.numSlots);
  region.writerOf.assign(program.numSlots, {kNoWriter, 0});
  for (size_t i = 0; i < numVariables; ++i) region.placeOf[i] = LoopPlace{LoopPlace::Kind::Carried, int64_t(i)};
  for (size_t c = 0; c < numCaptures; ++c)
    region.placeOf[numVariables + c] = LoopPlace{LoopPlace::Kind::Capture, int64_t(c)};
  for (const auto& [slot, value] : program.constants) {
    if (!isDenseTensor(value.type())) return std::nullopt;
    region.placeOf[slot] = LoopPlace{LoopPlace::Kind::Constant, int64_t(loop.constants.size())};
    loop.constants.push_back(&value);
  }
  // Values buffer assignment placed keep their arena offsets (its reuse of
  // dead values' memory holds as well here: the steps run in the same
  // order); the others get bytes of their own after the arena.
  int64_t arenaBytes = program.arena ? program.arena.numElements() : 0;
  int64_t end = scratchBase + alignUp(arenaBytes);
  for (const Step& step : program.steps) {
    std::vector<LoopPlace> inputs;
    for (size_t slot : step.inputs) {
      if (!region.placeOf[slot]) return std::nullopt;
      inputs.push_back(*region.placeOf[slot]);
    }
    if (step.kind == StepKind::View) {
      if (!isDenseTensor(step.outputTypes[0])) return std::nullopt;
      region.placeOf[step.outputs[0]] = inputs[0];
      region.writerOf[step.outputs[0]] = region.writerOf[step.inputs[0]];
      continue;
    }
    if (step.kind != StepKind::Kernel && step.kind != StepKind::Library) return std::nullopt;
    FlatStep flat{&step, std::move(inputs), {}};
    for (size_t i = 0; i < step.outputs.size(); ++i) {
      Type type = step.outputTypes[i];
      if (!isDenseTensor(type)) return std::nullopt;
      int64_t offset = step.arenaOffsets.empty() ? -1 : step.arenaOffsets[i];
      int64_t at = offset >= 0 ? scratchBase + offset : end;
      if (offset < 0) end += alignUp(std::max<int64_t>(storageBytes(type), 1));
      flat.outputs.push_back(LoopPlace{LoopPlace::Kind::Scratch, at});
      region.placeOf[step.outputs[i]] = flat.outputs.back();
      region.writerOf[step.outputs[i]] = {region.steps.size(), i};
    }
    region.steps.push_back(std::move(flat));
  }
  for (size_t slot : program.results)
    if (!region.placeOf[slot]) return std::nullopt;
  scratchEnd = end;
  return region;
}

bool samePlace(const LoopPlace& x, const LoopPlace& y) { return x.kind == y.kind && x.index == y.index; }

// Whether kernel `flat` reads loop variable `variable` only at the element
// its output `output` writes, so that the output may go into the variable's
// own memory, by buffer assignment's rule (inPlaceCandidates): an
// elementwise op, a dynamic_update_slice or scatter of the variable that
// reads it nowhere else, or a loop fusion through whose elementwise ops the
// variable flows unreshaped (fusion::updatesInPlace; with several outputs,
// every output's element is computed before any is stored). Not an output
// or input fusion: its dot or reduce may store into the output before the
// epilogue reads the variable there (`acc + dot(a, b)` in place summed the
// dot twice).
bool readsOnlyAtOutputIndex(const FlatStep& flat, size_t variable, size_t output) {
  const Step& step = *flat.step;
  const Operation& op = *step.op;
  if (step.kind != StepKind::Kernel || op.numResults() != step.outputs.size() || output >= op.numResults())
    return false;
  auto isVariable = [&](const LoopPlace& p) { return p.kind == LoopPlace::Kind::Carried && size_t(p.index) == variable; };
  if (op.numResults() == 1 && fusion::isElementwise(op)) return true;
  // A dynamic_update_slice's splat constant start indices are code, not
  // inputs; its operand is input 0 all the same.
  if (op.name() == "stablehlo.dynamic_update_slice")
    return isVariable(flat.inputs[0]) && std::none_of(flat.inputs.begin() + 1, flat.inputs.end(), isVariable);
  if (flat.inputs.size() != op.numOperands()) return false;
  std::vector<unsigned> candidates = inPlaceCandidates(op, unsigned(output));
  for (size_t j = 0; j < flat.inputs.size(); ++j)
    if (isVariable(flat.inputs[j]) && std::ranges::find(candidates, unsigned(j)) == candidates.end()) return false;
  if (fusion::isFusion(op)) return true;
  return op.name() == "stablehlo.scatter" && std::ranges::count_if(flat.inputs, isVariable) == 1;
}

}  // namespace

int64_t knownTripCount(const Operation& op) {
  if (op.name() != "stablehlo.while" || op.numRegions() != 2 || op.region(0).numBlocks() != 1 ||
      op.region(1).numBlocks() != 1)
    return -1;
  const Block& condition = op.region(0).front();
  const Block& body = op.region(1).front();
  const Operation* compare = nullptr;
  for (const Operation& inner : condition) {
    if (inner.name() == "stablehlo.constant" || &inner == condition.terminator()) continue;
    if (compare || inner.name() != "stablehlo.compare") return -1;
    compare = &inner;
  }
  if (!compare || condition.terminator()->numOperands() != 1 || condition.terminator()->operand(0) != compare->result())
    return -1;
  Attribute direction = compare->attr("comparison_direction");
  if (!direction || !direction.is(AttrKind::Enum) || direction.stringValue() != "LT" ||
      !compare->operand(0)->type().elementType().isSignedInteger())
    return -1;
  // The counter: a block argument of the condition, the limit a constant.
  const Value* counter = compare->operand(0);
  std::optional<int64_t> limit = scalarIntConstant(compare->operand(1));
  unsigned index = 0;
  while (index < condition.numArguments() && condition.argument(index) != counter) ++index;
  if (!limit || index == condition.numArguments() || index >= op.numOperands()) return -1;
  std::optional<int64_t> start = scalarIntConstant(op.operand(index));
  // The body yields counter + step.
  const Value* next = body.terminator()->numOperands() > index ? body.terminator()->operand(index) : nullptr;
  const Operation* add = next ? next->definingOp() : nullptr;
  if (!start || !add || add->name() != "stablehlo.add" || add->operand(0) != body.argument(index)) return -1;
  std::optional<int64_t> step = scalarIntConstant(add->operand(1));
  if (!step || *step <= 0) return -1;
  // (In double: an i64 counter's span may not fit an int64.)
  return *limit <= *start ? 0 : int64_t(std::min(std::ceil((double(*limit) - double(*start)) / double(*step)), 9e18));
}

std::shared_ptr<const FlatLoop> flattenLoop(const Step& whileStep) {
  if (whileStep.kind != StepKind::While || whileStep.regions.size() != 2) return nullptr;
  size_t numCaptures = whileStep.numCaptures;
  size_t numVariables = whileStep.inputs.size() - numCaptures;
  for (Type t : whileStep.outputTypes)
    if (!isDenseTensor(t)) return nullptr;
  // A oneDNN step with an empty operand or result is the generic path's
  // (a zero fill, or nothing to run).
  auto empty = [](const Value* v) { return v->type().isTensor() && v->type().numElements() == 0; };
  for (const auto& region : whileStep.regions)
    for (const Step& step : region->steps)
      if (step.kind == StepKind::Library &&
          (std::ranges::any_of(step.op->operands(), empty) || std::ranges::any_of(step.op->results(), empty)))
        return nullptr;

  auto loop = std::make_shared<FlatLoop>();
  int64_t conditionEnd = 0, bodyEnd = 0;
  std::optional<FlatRegion> condition =
      flattenRegion(*whileStep.regions[0], numVariables, numCaptures, 0, conditionEnd, *loop);
  if (!condition || whileStep.regions[0]->results.size() != 1) return nullptr;
  std::optional<FlatRegion> body =
      flattenRegion(*whileStep.regions[1], numVariables, numCaptures, conditionEnd, bodyEnd, *loop);
  const Program& bodyProgram = *whileStep.regions[1];
  if (!body || bodyProgram.results.size() != numVariables) return nullptr;
  loop->conditionResult = *condition->placeOf[whileStep.regions[0]->results[0]];
  loop->scratchBytes = bodyEnd;

  // Per variable, the last body step reading its old value (npos: none).
  std::vector<size_t> lastReader(numVariables, kNoWriter);
  for (size_t s = 0; s < body->steps.size(); ++s)
    for (const LoopPlace& input : body->steps[s].inputs)
      if (input.kind == LoopPlace::Kind::Carried) lastReader[size_t(input.index)] = s;

  // A variable yielding another's old value (a swap, a rotation: threefry's
  // key words) reads that variable after the last step: the other is not
  // computed in place, and its old value is saved (a snapshot) before the
  // copies overwrite it.
  constexpr size_t kAfterTheBody = kNoWriter - 1;
  std::vector<LoopPlace> yielded(numVariables);  // before any is moved into its variable
  for (size_t i = 0; i < numVariables; ++i) {
    yielded[i] = *body->placeOf[bodyProgram.results[i]];
    if (yielded[i].kind == LoopPlace::Kind::Carried && size_t(yielded[i].index) != i)
      lastReader[size_t(yielded[i].index)] = kAfterTheBody;
  }
  for (size_t i = 0; i < numVariables; ++i) {
    LoopPlace from = yielded[i];
    if (from.kind == LoopPlace::Kind::Carried && size_t(from.index) == i) continue;  // yielded unchanged
    size_t slot = bodyProgram.results[i];
    // The step that writes the result may write it straight into the
    // variable once nothing reads the variable's old value any more, or
    // nothing but that step at the element it writes (an accumulator, a
    // scan's stacked outputs), unless the value already went into another
    // variable (yielded twice). Its output must be a value of its own: an
    // arena place may hold other values before and after.
    auto [writer, output] = body->writerOf[slot];
    const Step* writerStep = writer == kNoWriter ? nullptr : body->steps[writer].step;
    bool ownPlace = writerStep && (writerStep->arenaOffsets.empty() || writerStep->arenaOffsets[output] < 0);
    if (ownPlace && from.kind == LoopPlace::Kind::Scratch && samePlace(*body->placeOf[slot], from) &&
        (lastReader[i] == kNoWriter || lastReader[i] < writer ||
         (lastReader[i] == writer && readsOnlyAtOutputIndex(body->steps[writer], i, output)))) {
      LoopPlace into{LoopPlace::Kind::Carried, int64_t(i)};
      // Every later reader of the scratch place (views of the value
      // included) reads the variable instead.
      for (size_t s = writer + 1; s < body->steps.size(); ++s)
        for (LoopPlace& input : body->steps[s].inputs)
          if (samePlace(input, from)) input = into;
      for (auto& place : body->placeOf)
        if (place && samePlace(*place, from)) place = into;
      body->steps[writer].outputs[output] = into;
      ++loop->inPlaceVariables;
      continue;
    }
    loop->copies.push_back({i, from});
  }
  // A copy reads its value where it ended up (maybe another variable, then
  // from a snapshot taken before the copies).
  for (FlatLoop::Copy& copy : loop->copies) {
    copy.from = *body->placeOf[bodyProgram.results[copy.variable]];
    if (copy.from.kind != LoopPlace::Kind::Carried || size_t(copy.from.index) == copy.variable) continue;
    LoopPlace saved{LoopPlace::Kind::Scratch, loop->scratchBytes};
    loop->scratchBytes += alignUp(std::max<int64_t>(storageBytes(whileStep.outputTypes[size_t(copy.from.index)]), 1));
    loop->snapshots.push_back({size_t(copy.from.index), saved});
    copy.from = saved;
  }
  // Loop-invariant weights of oneDNN steps, packed once per loop run.
  auto invariant = [&](const LoopPlace& place) {
    if (place.kind == LoopPlace::Kind::Capture || place.kind == LoopPlace::Kind::Constant) return true;
    return place.kind == LoopPlace::Kind::Carried && samePlace(yielded[size_t(place.index)], place);
  };
  for (auto* steps : {&condition->steps, &body->steps})
    for (FlatStep& flat : *steps) {
      const Step& step = *flat.step;
      int weights = step.kind == StepKind::Library ? step.library->weightsInput() : -1;
      if (weights < 0 || size_t(weights) >= flat.inputs.size() || !invariant(flat.inputs[size_t(weights)])) continue;
      size_t bytes = step.library->packedWeightsBytes(false);  // the same buffer serves tiled runs
      if (bytes == 0) continue;
      flat.packedWeightsAt = loop->scratchBytes;
      loop->scratchBytes += alignUp(int64_t(bytes));
      ++loop->packedWeights;
    }
  loop->condition = std::move(condition->steps);
  loop->body = std::move(body->steps);
  return loop;
}

}  // namespace kiln::cpu
