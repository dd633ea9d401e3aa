#include "kiln/passes/buffer_assignment.h"

#include <algorithm>
#include <set>

#include "kiln/ir/op_registry.h"
#include "kiln/passes/fusion_util.h"

namespace kiln {
namespace {

// Arena offsets are multiples of a cache line (and of an AVX-512 vector).
constexpr int64_t kArenaAlignment = 64;

int64_t alignUp(int64_t n) { return (n + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }

bool isFunctionBody(const Block& block) {
  const Operation* parent = block.parentOp();
  return parent && parent->name() == "func.func";
}

// The `arg_attrs` dictionary of argument `i` of a func.func (null if none).
Attribute argAttrs(const Operation& fn, unsigned i) {
  Attribute all = fn.attr("arg_attrs");
  if (!all || !all.is(AttrKind::Array) || i >= all.arrayValue().size()) return {};
  return all.arrayValue()[i];
}

// The output a parameter must alias (`tf.aliasing_output = N`), or -1.
int aliasingOutput(const Operation& fn, unsigned i) {
  Attribute attrs = argAttrs(fn, i);
  if (!attrs || !attrs.is(AttrKind::Dictionary)) return -1;
  Attribute n = attrs.get("tf.aliasing_output");
  return n && n.is(AttrKind::Integer) ? static_cast<int>(n.intValue()) : -1;
}

// How many operands of `op` and of the ops nested in it read storage `root`.
int readsOf(Operation& op, const Value* root, const StorageRoots& roots) {
  int reads = 0;
  op.walk([&](Operation& inner) {
    for (Value* v : inner.operands())
      for (const Value* r : roots.of(v)) reads += r == root;
  });
  return reads;
}

class Assigner {
 public:
  Assigner(BufferAssignment& out) : out_(out), roots_(*out.block) {}

  void run() {
    computeLiveness();
    createParameterBuffers();
    pairDonatedParameters();
    for (int i = 0; i < static_cast<int>(out_.order.size()); ++i) assignResults(i);
    for (BufferAssignment::Alias& alias : out_.aliases) {
      const Value* output = out_.order.back()->operand(alias.output);
      alias.realized = out_.bufferOf.count(output) && out_.bufferOf.at(output) == parameterBuffer_[alias.parameter];
    }
    computePeak();
    packArena();
    for (const auto& [root, position] : def_)
      if (position >= 0 && out_.buffers[out_.bufferOf.at(root)].kind != Buffer::Kind::Constant)
        out_.intermediateBytes += storageBytes(root->type());
  }

 private:
  int end() const { return static_cast<int>(out_.order.size()) - 1; }
  const Operation* terminator() const { return out_.order.empty() ? nullptr : out_.order.back(); }
  bool ownsStorage(const Value* v) const {
    const auto& r = roots_.of(v);
    return r.size() == 1 && r[0] == v;
  }

  // A root is live from its definition (-1 for arguments) to the position of
  // the last top-level op reading it or any view of it, nested reads included.
  void computeLiveness() {
    const Block& block = *out_.block;
    for (unsigned a = 0; a < block.numArguments(); ++a)
      if (ownsStorage(block.argument(a))) def_[block.argument(a)] = lastUse_[block.argument(a)] = -1;
    for (int i = 0; i <= end(); ++i) {
      Operation* op = out_.order[i];
      for (Value* r : op->results())
        if (ownsStorage(r)) def_[r] = lastUse_[r] = i;
      op->walk([&](Operation& inner) {
        for (Value* v : inner.operands())
          for (const Value* root : roots_.of(v)) lastUse_[root] = std::max(lastUse_[root], i);
      });
    }
  }

  int newBuffer(Buffer::Kind kind, int64_t size, int firstUse) {
    Buffer b;
    b.kind = kind;
    b.size = size;
    b.firstUse = b.lastUse = firstUse;
    out_.buffers.push_back(std::move(b));
    return static_cast<int>(out_.buffers.size()) - 1;
  }

  void place(const Value* v, int buffer) {
    Buffer& b = out_.buffers[buffer];
    b.values.push_back(v);
    b.size = std::max(b.size, storageBytes(v->type()));
    b.lastUse = std::max(b.lastUse, lastUse_.at(v));
    out_.bufferOf[v] = buffer;
  }

  // A parameter the caller keeps stays live (and unwritten) to the end; a
  // donated one belongs to the executable once passed.
  void createParameterBuffers() {
    const Block& block = *out_.block;
    parameterBuffer_.assign(block.numArguments(), -1);
    if (!isFunctionBody(block)) return;
    for (unsigned a = 0; a < block.numArguments(); ++a) {
      Value* arg = block.argument(a);
      if (!ownsStorage(arg)) continue;
      bool donated = isDonatedParameter(*block.parentOp(), a);
      if (!donated) lastUse_[arg] = end();
      int b = newBuffer(Buffer::Kind::Parameter, 0, -1);
      out_.buffers[b].parameter = static_cast<int>(a);
      out_.buffers[b].donated = donated;
      place(arg, b);
      parameterBuffer_[a] = b;
    }
  }

  // Pairs each donated parameter with an output of its type: the one named
  // by tf.aliasing_output, else (jax.buffer_donor) the first unpaired one.
  // The parameter's buffer is then kept for that output (and for in-place
  // updates leading to it) instead of being reused for anything else.
  void pairDonatedParameters() {
    const Operation* ret = terminator();
    if (!ret || !isFunctionBody(*out_.block)) return;
    std::vector<bool> outputTaken(ret->numOperands(), false);
    auto pair = [&](unsigned param, unsigned output) {
      outputTaken[output] = true;
      out_.aliases.push_back({static_cast<int>(param), static_cast<int>(output), false});
      const Value* value = ret->operand(output);
      if (ownsStorage(value) && !value->isBlockArgument()) reservedFor_[value] = parameterBuffer_[param];
    };
    auto pairable = [&](unsigned param, unsigned output) {
      return output < ret->numOperands() && !outputTaken[output] &&
             ret->operand(output)->type() == out_.block->argument(param)->type();
    };
    const Operation& fn = *out_.block->parentOp();
    for (unsigned a = 0; a < out_.block->numArguments(); ++a) {
      int b = parameterBuffer_[a];
      if (b < 0 || !out_.buffers[b].donated || aliasingOutput(fn, a) < 0) continue;
      if (pairable(a, aliasingOutput(fn, a))) pair(a, aliasingOutput(fn, a));
    }
    for (unsigned a = 0; a < out_.block->numArguments(); ++a) {
      int b = parameterBuffer_[a];
      if (b < 0 || !out_.buffers[b].donated || aliasingOutput(fn, a) >= 0) continue;
      for (unsigned o = 0; o < ret->numOperands(); ++o)
        if (pairable(a, o)) {
          pair(a, o);
          break;
        }
    }
    for (const auto& [value, buffer] : reservedFor_) reserved_.insert(buffer);
  }

  void assignResults(int i) {
    Operation* op = out_.order[i];
    if (isViewOp(*op)) return mapView(*op);
    if (hasTrait(*op, kControlFlow)) assignBodies(*op, i);
    std::set<int> claimed;  // buffers this op's earlier results took
    for (unsigned j = 0; j < op->numResults(); ++j) {
      Value* r = op->result(j);
      if (!ownsStorage(r)) continue;
      if (op->name() == "stablehlo.constant") {
        place(r, newBuffer(Buffer::Kind::Constant, 0, i));
        continue;
      }
      int b = pickBuffer(*op, i, j, claimed);
      if (b < 0) b = newBuffer(Buffer::Kind::Temp, 0, i);
      claimed.insert(b);
      place(r, b);
    }
  }

  // The bodies run while the op does: their buffers live in one scratch
  // buffer of the size of the largest body arena.
  void assignBodies(const Operation& op, int i) {
    std::vector<BufferAssignment>& bodies = out_.nested[&op];
    int64_t scratch = 0, peak = 0;
    for (auto& region : op.regions())
      for (auto& block : region->blocks()) {
        bodies.push_back(assignBuffers(*block));
        scratch = std::max(scratch, bodies.back().arenaBytes);
        peak = std::max(peak, bodies.back().peakBytes);
        out_.intermediateBytes += bodies.back().intermediateBytes;
      }
    if (scratch == 0) return;
    int b = newBuffer(Buffer::Kind::Scratch, scratch, i);
    out_.buffers[b].scratchOf = &op;
    scratchPeak_[i] = peak;
  }

  bool writable(int buffer) const {
    const Buffer& b = out_.buffers[buffer];
    return b.kind == Buffer::Kind::Temp || (b.kind == Buffer::Kind::Parameter && b.donated);
  }

  // The buffer result `j` of `op` (at position i) is computed into, or -1 for
  // a new one. In order of preference: the donated parameter buffer kept for
  // it, an operand's buffer updated in place, the smallest dead buffer that
  // fits (best fit).
  int pickBuffer(Operation& op, int i, unsigned j, const std::set<int>& claimed) {
    const Value* r = op.result(j);
    int64_t size = storageBytes(r->type());
    auto reserved = reservedFor_.find(r);
    if (reserved != reservedFor_.end() && out_.buffers[reserved->second].lastUse < i) return reserved->second;

    for (unsigned k : inPlaceCandidates(op, j)) {
      const auto& operandRoots = roots_.of(op.operand(k));
      if (operandRoots.size() != 1) continue;
      const Value* root = operandRoots[0];
      if (lastUse_.at(root) != i || storageBytes(root->type()) != size) continue;
      int b = out_.bufferOf.at(root);
      if (!writable(b) || claimed.count(b) || out_.buffers[b].lastUse != i) continue;
      // Elementwise ops read each element before writing it, at the same
      // index; other ops must not read the overwritten storage elsewhere.
      if (!fusion::isElementwise(op) && readsOf(op, root, roots_) != 1) continue;
      return b;
    }

    int best = -1;
    for (int b = 0; b < static_cast<int>(out_.buffers.size()); ++b) {
      const Buffer& candidate = out_.buffers[b];
      if (!writable(b) || reserved_.count(b) || claimed.count(b) || candidate.lastUse >= i ||
          candidate.size < size)
        continue;
      if (best < 0 || candidate.size < out_.buffers[best].size) best = b;
    }
    return best;
  }

  // A view shares the buffer of its single root (views of several roots,
  // such as tuples, have no buffer of their own).
  void mapView(const Operation& op) {
    for (Value* r : op.results()) {
      const auto& rs = roots_.of(r);
      if (rs.size() != 1 || !out_.bufferOf.count(rs[0])) continue;
      int b = out_.bufferOf.at(rs[0]);
      out_.bufferOf[r] = b;
      out_.buffers[b].values.push_back(r);
    }
  }

  // Live bytes at each position: every buffer holding a live root, once
  // (an in-place update's operand and result overlap at the updating op),
  // plus the peak of the bodies an op runs. Constants are read-only data of
  // the executable, not counted.
  void computePeak() {
    int n = end() + 1;
    std::vector<int64_t> delta(n + 2, 0);  // index p + 1 for position p
    for (const Buffer& b : out_.buffers) {
      if (b.kind == Buffer::Kind::Constant || b.kind == Buffer::Kind::Scratch) continue;
      std::vector<std::pair<int, int>> spans;
      for (const Value* v : b.values)
        if (def_.count(v)) spans.emplace_back(def_.at(v), lastUse_.at(v));
      std::sort(spans.begin(), spans.end());
      for (size_t s = 0; s < spans.size();) {
        auto [from, to] = spans[s];
        for (++s; s < spans.size() && spans[s].first <= to; ++s) to = std::max(to, spans[s].second);
        delta[from + 1] += b.size;
        delta[to + 2] -= b.size;
      }
    }
    int64_t live = 0;
    for (int p = -1; p < n; ++p) {
      live += delta[p + 1];
      int64_t atP = live + (scratchPeak_.count(p) ? scratchPeak_.at(p) : 0);
      if (atP > out_.peakBytes) {
        out_.peakBytes = atP;
        out_.peakPosition = p;
      }
    }
  }

  // Packs Temp and Scratch buffers into one arena: largest first, each at the
  // lowest aligned offset free of every placed buffer live at the same time.
  void packArena() {
    std::vector<int> order;
    for (int b = 0; b < static_cast<int>(out_.buffers.size()); ++b) {
      Buffer::Kind kind = out_.buffers[b].kind;
      if ((kind == Buffer::Kind::Temp || kind == Buffer::Kind::Scratch) && out_.buffers[b].size > 0)
        order.push_back(b);
    }
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return out_.buffers[a].size > out_.buffers[b].size;
    });
    std::vector<int> placed;
    for (int b : order) {
      Buffer& buffer = out_.buffers[b];
      std::vector<std::pair<int64_t, int64_t>> taken;  // [offset, end) of overlapping placed buffers
      for (int p : placed) {
        const Buffer& other = out_.buffers[p];
        if (other.firstUse <= buffer.lastUse && buffer.firstUse <= other.lastUse)
          taken.emplace_back(other.offset, other.offset + alignUp(other.size));
      }
      std::sort(taken.begin(), taken.end());
      int64_t offset = 0;
      for (auto [from, to] : taken) {
        if (offset + alignUp(buffer.size) <= from) break;
        offset = std::max(offset, to);
      }
      buffer.offset = offset;
      out_.arenaBytes = std::max(out_.arenaBytes, offset + alignUp(buffer.size));
      placed.push_back(b);
    }
  }

  BufferAssignment& out_;
  StorageRoots roots_;
  std::unordered_map<const Value*, int> def_, lastUse_;  // roots only
  std::vector<int> parameterBuffer_;                     // per argument, -1 if none
  std::unordered_map<const Value*, int> reservedFor_;    // output root -> donated parameter buffer
  std::set<int> reserved_;                               // buffers in reservedFor_
  std::unordered_map<int, int64_t> scratchPeak_;         // position -> peak of the bodies run there
};

}  // namespace

int64_t storageBytes(Type t) {
  if (t.isTensor()) return t.numElements() * t.elementType().storageBytes();
  if (!t.isTuple()) return 0;
  int64_t bytes = 0;
  for (Type element : t.tupleTypes()) bytes += storageBytes(element);
  return bytes;
}

bool isViewOp(const Operation& op) {
  if (op.name() == "stablehlo.bitcast_convert") {
    // Element types of whole bytes: a wider element's bytes are its narrower
    // elements', least significant first (little-endian, as the interpreter
    // splits it). A sub-byte type is stored one element a byte (signed ones
    // sign-extended, unsigned ones not): neither its size nor its bytes are
    // the other type's.
    auto wholeBytes = [](Type t) {
      return t.isTensor() && t.elementType().bitWidth() == 8 * t.elementType().storageBytes();
    };
    return op.numOperands() == 1 && op.numResults() == 1 && wholeBytes(op.operand(0)->type()) &&
           wholeBytes(op.result()->type()) && storageBytes(op.operand(0)->type()) == storageBytes(op.result()->type());
  }
  return op.name() == "stablehlo.reshape" || op.name() == "stablehlo.tuple" ||
         op.name() == "stablehlo.get_tuple_element";
}

std::vector<unsigned> inPlaceCandidates(const Operation& op, unsigned resultIndex) {
  if (fusion::isElementwise(op)) {
    std::vector<unsigned> all(op.numOperands());
    for (unsigned i = 0; i < all.size(); ++i) all[i] = i;
    return all;
  }
  if (op.name() == "stablehlo.dynamic_update_slice") return {0};
  // scatter's and while's results correspond one to one to their first operands.
  if (op.name() == "stablehlo.scatter" || op.name() == "stablehlo.while") return {resultIndex};
  // A loop kernel's results over operands read only at the element computed
  // (fusion::updatesInPlace), each result over a different operand.
  std::vector<unsigned> candidates;
  for (unsigned i = 0; i < op.numOperands(); ++i)
    if (fusion::updatesInPlace(op, i, resultIndex)) candidates.push_back(i);
  return candidates;
}

StorageRoots::StorageRoots(const Block& block) {
  bool arguments = isFunctionBody(block);
  for (Value* arg : block.arguments())
    roots_[arg] = arguments && storageBytes(arg->type()) > 0 ? std::vector<const Value*>{arg}
                                                               : std::vector<const Value*>{};
  for (const Operation& op : block) {
    for (Value* r : op.results()) {
      std::vector<const Value*>& rs = roots_[r];
      if (!isViewOp(op)) {
        if (storageBytes(r->type()) > 0) rs.push_back(r);
        continue;
      }
      // get_tuple_element of a stablehlo.tuple views one of its operands.
      const Operation* tuple = op.operand(0)->definingOp();
      Attribute index = op.attr("index");
      if (op.name() == "stablehlo.get_tuple_element" && tuple && tuple->name() == "stablehlo.tuple" && index &&
          index.intValue() >= 0 && index.intValue() < tuple->numOperands()) {
        rs = of(tuple->operand(static_cast<unsigned>(index.intValue())));
        continue;
      }
      for (Value* operand : op.operands())
        for (const Value* root : of(operand))
          if (std::find(rs.begin(), rs.end(), root) == rs.end()) rs.push_back(root);
    }
  }
}

const std::vector<const Value*>& StorageRoots::of(const Value* v) const {
  static const std::vector<const Value*> kNone;
  auto it = roots_.find(v);
  return it == roots_.end() ? kNone : it->second;
}

bool isDonatedParameter(const Operation& fn, unsigned i) {
  Attribute attrs = argAttrs(fn, i);
  if (!attrs || !attrs.is(AttrKind::Dictionary)) return false;
  Attribute donor = attrs.get("jax.buffer_donor");
  if (donor && donor.is(AttrKind::Bool) && donor.boolValue()) return true;
  return static_cast<bool>(attrs.get("tf.aliasing_output"));
}

BufferAssignment assignBuffers(const Block& block, std::span<Operation* const> order) {
  BufferAssignment result;
  result.block = &block;
  result.order = order.empty() ? block.ops() : std::vector<Operation*>(order.begin(), order.end());
  Assigner(result).run();
  return result;
}

Operation* entryFunction(const Module& module) {
  std::vector<Operation*> functions = module.functions();
  if (Operation* main = module.lookupFunction("main")) return main;
  for (Operation* fn : functions)
    if (func::isPublic(*fn)) return fn;
  return functions.empty() ? nullptr : functions.front();
}

}  // namespace kiln
