#include "kiln/ir/memory_limit.h"

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>

namespace kiln {
namespace {

// The bytes of `type`'s dense storage (tuples: the sum); -1 when unknown
// (dynamic dimensions) and INT64_MAX when it overflows.
int64_t storageBytes(Type type) {
  if (type.isTuple()) {
    int64_t sum = 0;
    for (Type t : type.tupleTypes()) {
      int64_t b = storageBytes(t);
      if (b == INT64_MAX) return INT64_MAX;
      if (b > 0 && __builtin_add_overflow(sum, b, &sum)) return INT64_MAX;
    }
    return sum;
  }
  if (!type.isTensor()) return 0;
  int64_t n = type.numElements();
  if (n < 0) return -1;
  int64_t bytes;
  if (n == INT64_MAX || __builtin_mul_overflow(n, int64_t(type.elementType().storageBytes()), &bytes))
    return INT64_MAX;
  return bytes;
}

// The memory of this machine, or of this process's cgroup (v2) when lower.
int64_t machineMemoryBytes() {
  int64_t bytes = int64_t(sysconf(_SC_PHYS_PAGES)) * int64_t(sysconf(_SC_PAGESIZE));
  std::ifstream cgroup("/sys/fs/cgroup/memory.max");
  int64_t cgroupBytes;
  if (cgroup >> cgroupBytes && cgroupBytes > 0 && (bytes <= 0 || cgroupBytes < bytes)) bytes = cgroupBytes;
  return bytes > 0 ? bytes : INT64_MAX;
}

std::string limitSource() {
  return std::getenv("KILN_MEMORY_LIMIT") ? "KILN_MEMORY_LIMIT" : "the machine's memory; set KILN_MEMORY_LIMIT to change it";
}

}  // namespace

Expected<int64_t> memoryLimitBytes() {
  const char* text = std::getenv("KILN_MEMORY_LIMIT");
  static const int64_t machine = machineMemoryBytes();  // read once: the interpreter asks on every run
  if (!text || !*text) return machine;
  std::string_view s = text;
  int64_t value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  std::string_view suffix(end, s.data() + s.size() - end);
  int shift = suffix.empty() ? 0 : suffix == "K" ? 10 : suffix == "M" ? 20 : suffix == "G" ? 30 : suffix == "T" ? 40 : -1;
  if (ec != std::errc() || value < 0 || shift < 0 || value > (INT64_MAX >> shift))
    return error(ErrorCode::InvalidArgument, "KILN_MEMORY_LIMIT='" + std::string(s) +
                                                 "' is not a byte count (such as 8G, 512M or 1000000; 0: no limit)");
  return value == 0 ? INT64_MAX : value << shift;
}

std::string formatBytes(int64_t bytes) {
  if (bytes == INT64_MAX) return "more than 2^63 bytes";
  if (bytes < 1024) return std::to_string(bytes) + " B";
  static const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = double(bytes);
  int unit = -1;
  while (v >= 1024 && unit < 5) v /= 1024, ++unit;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f %s", v, units[unit]);
  return buf;
}

Status checkBytesFitMemory(int64_t bytes, std::string_view what, Location loc) {
  KILN_ASSIGN_OR_RETURN(int64_t limit, memoryLimitBytes());
  if (bytes <= limit) return Status::ok();
  Status s = error(loc, std::string(what) + " needs " + formatBytes(bytes) + ", more than the memory limit of " +
                            formatBytes(limit) + " (" + limitSource() + ")");
  s.diag().code = ErrorCode::ResourceExhausted;
  s.diag().snippet = sourceSnippet(loc);
  return s;
}

Status checkValuesFitMemory(const Module& module, std::string_view entry) {
  KILN_ASSIGN_OR_RETURN(int64_t limit, memoryLimitBytes());
  if (limit == INT64_MAX) return Status::ok();
  std::set<const Operation*> seen;
  std::vector<Operation*> work;
  if (Operation* fn = module.lookupFunction(entry)) work.push_back(fn);
  Status failed;
  auto check = [&](Type type, const std::string& what, Location loc) {
    int64_t bytes = storageBytes(type);
    if (failed.isOk() && bytes > limit) failed = checkBytesFitMemory(bytes, what + " (" + type.str() + ")", loc);
  };
  while (!work.empty() && failed.isOk()) {
    Operation* fn = work.back();
    work.pop_back();
    if (!seen.insert(fn).second) continue;
    Attribute symName = fn->attr("sym_name");
    std::string fnName = symName.is(AttrKind::String) ? symName.stringValue() : "?";
    fn->walk([&](Operation& walked) {
      Operation* op = &walked;
      for (unsigned i = 0; i < op->numResults(); ++i)
        check(op->result(i)->type(), "'" + op->name() + "' op result " + std::to_string(i), op->loc());
      for (const auto& region : op->regions())
        for (const auto& block : region->blocks())
          for (unsigned i = 0; i < block->numArguments(); ++i)
            check(block->argument(i)->type(),
                  (op == fn ? "@" + fnName + " argument " : "'" + op->name() + "' op block argument ") + std::to_string(i),
                  op->loc());
      if (op->name() == "func.call")
        if (Attribute callee = op->attr("callee"); callee.is(AttrKind::SymbolRef) && !callee.symbolPath().empty())
          if (Operation* target = module.lookupFunction(callee.symbolPath().back())) work.push_back(target);
    });
  }
  return failed;
}

}  // namespace kiln
