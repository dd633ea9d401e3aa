#include "kiln/passes/memory_stats.h"

#include <unordered_map>

#include "kiln/passes/buffer_assignment.h"
#include "kiln/passes/fusion.h"
#include "kiln/passes/fusion_util.h"

namespace kiln {
namespace {

// Totals over an assignment and the assignments of the bodies nested in it.
int64_t countTempBuffers(const BufferAssignment& ba) {
  int64_t n = 0;
  for (const Buffer& b : ba.buffers) n += b.kind == Buffer::Kind::Temp;
  for (const auto& [op, bodies] : ba.nested)
    for (const BufferAssignment& body : bodies) n += countTempBuffers(body);
  return n;
}

int64_t countFusions(Operation& fn) {
  int64_t n = 0;
  fn.walk([&](Operation& op) { n += fusion::isFusion(op); });
  return n;
}

const char* kindName(Buffer::Kind kind) {
  switch (kind) {
    case Buffer::Kind::Parameter: return "parameter";
    case Buffer::Kind::Constant: return "constant";
    case Buffer::Kind::Temp: return "temp";
    case Buffer::Kind::Scratch: return "scratch";
  }
  return "?";
}

// Names values by where they are in the schedule: `%argN` for arguments,
// `#P name` for the result of the op at position P (`#P:R` for result R).
class ValueNames {
 public:
  explicit ValueNames(const BufferAssignment& ba) {
    for (size_t p = 0; p < ba.order.size(); ++p) position_[ba.order[p]] = static_cast<int>(p);
  }
  std::string op(const Operation& op) const { return "#" + std::to_string(position_.at(&op)) + " " + op.name(); }
  std::string value(const Value& v) const {
    if (v.isBlockArgument()) return "%arg" + std::to_string(v.index());
    const Operation& def = *v.definingOp();
    std::string name = "#" + std::to_string(position_.at(&def));
    if (def.numResults() > 1) name += ":" + std::to_string(v.index());
    return name + " " + def.name();
  }

 private:
  std::unordered_map<const Operation*, int> position_;
};

void reportAssignment(const BufferAssignment& ba, const std::string& indent, std::string& out) {
  ValueNames names(ba);
  out += indent + "peak_bytes=" + std::to_string(ba.peakBytes) + " at " +
         (ba.peakPosition < 0 ? std::string("entry") : names.op(*ba.order[ba.peakPosition])) +
         ", arena_bytes=" + std::to_string(ba.arenaBytes) + "\n";
  for (size_t id = 0; id < ba.buffers.size(); ++id) {
    const Buffer& b = ba.buffers[id];
    out += indent + "buffer " + std::to_string(id) + ": " + kindName(b.kind);
    if (b.kind == Buffer::Kind::Parameter) out += " " + std::to_string(b.parameter) + (b.donated ? " (donated)" : "");
    out += ", " + std::to_string(b.size) + " bytes";
    if (b.offset >= 0) out += " at offset " + std::to_string(b.offset);
    out += ", live " + std::to_string(b.firstUse) + ".." + std::to_string(b.lastUse);
    if (b.kind == Buffer::Kind::Scratch) out += ", bodies of " + names.op(*b.scratchOf);
    for (size_t v = 0; v < b.values.size(); ++v) out += (v == 0 ? ": " : ", ") + names.value(*b.values[v]);
    out += "\n";
    if (b.kind != Buffer::Kind::Scratch) continue;
    const std::vector<BufferAssignment>& bodies = ba.nested.at(b.scratchOf);
    for (size_t r = 0; r < bodies.size(); ++r) {
      out += indent + "  body " + std::to_string(r) + " (offsets relative to buffer " + std::to_string(id) + "):\n";
      reportAssignment(bodies[r], indent + "    ", out);
    }
  }
  for (const BufferAssignment::Alias& alias : ba.aliases)
    out += indent + "parameter " + std::to_string(alias.parameter) + " aliases output " +
           std::to_string(alias.output) + (alias.realized ? "" : " (not in place: needs a copy)") + "\n";
}

}  // namespace

std::string memoryStatsLines(const Module& module) {
  Operation* entry = entryFunction(module);
  int64_t kernels = 0, fusions = 0, parameterBytes = 0;
  BufferAssignment ba;
  if (entry) {
    const Block& body = func::body(*entry);
    kernels = countKernels(body);
    fusions = countFusions(*entry);
    ba = assignBuffers(body);
    for (const Buffer& b : ba.buffers) parameterBytes += b.kind == Buffer::Kind::Parameter ? b.size : 0;
  }
  std::string out;
  auto line = [&](const char* key, int64_t value) { out += std::string(key) + "=" + std::to_string(value) + "\n"; };
  line("kernels", kernels);
  line("fusions", fusions);
  line("peak_bytes", ba.peakBytes);
  line("arena_bytes", ba.arenaBytes);
  line("buffers", countTempBuffers(ba));
  line("parameter_bytes", parameterBytes);
  line("intermediate_bytes_total", ba.intermediateBytes);
  return out;
}

std::string memoryReport(const Module& module) {
  Operation* entry = entryFunction(module);
  if (!entry) return "memory report: no function\n";
  std::string out = "memory report for @" + std::string(func::name(*entry)) + "\n";
  reportAssignment(assignBuffers(func::body(*entry)), "  ", out);
  return out;
}

}  // namespace kiln
