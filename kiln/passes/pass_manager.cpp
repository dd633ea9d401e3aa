#include <cstdio>
#include <filesystem>
#include <fstream>

#include "kiln/ir/printer.h"
#include "kiln/ir/verifier.h"
#include "kiln/passes/pass.h"
#include "kiln/support/trace.h"

namespace kiln {

std::vector<std::string> PassManager::passNames() const {
  std::vector<std::string> names;
  for (auto& p : passes_) names.emplace_back(p->name());
  return names;
}

namespace {

Status writeDump(const std::string& dir, int index, const char* when, std::string_view pass,
                 const Module& module) {
  char prefix[16];
  std::snprintf(prefix, sizeof prefix, "%03d_", index);
  std::filesystem::path path =
      std::filesystem::path(dir) / (prefix + std::string(when) + "_" + std::string(pass) + ".mlir");
  std::ofstream out(path);
  if (!out) return error("cannot write IR dump '" + path.string() + "'");
  out << printModule(module);
  return Status::ok();
}

}  // namespace

Status PassManager::run(Module& module) {
  if (!options_.dumpDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options_.dumpDir, ec);
    if (ec) return error("cannot create dump directory '" + options_.dumpDir + "': " + ec.message());
  }
  int dumpIndex = 0;
  for (auto& pass : passes_) {
    if (!options_.dumpDir.empty())
      KILN_RETURN_IF_ERROR(writeDump(options_.dumpDir, dumpIndex++, "before", pass->name(), module));
    auto start = std::chrono::steady_clock::now();
    Expected<bool> changed = [&] {
      trace::Scope scope("pass", pass->name());
      return pass->run(module);
    }();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!changed) {
      Status s = changed.takeStatus();
      s.diag().message = "in pass '" + std::string(pass->name()) + "': " + s.diag().message;
      return s;
    }
    if (options_.timing)
      std::fprintf(stderr, "pass-timing: %-24s %9.3f ms%s\n", std::string(pass->name()).c_str(), ms,
                   *changed ? "  (changed)" : "");
    if (!options_.dumpDir.empty())
      KILN_RETURN_IF_ERROR(writeDump(options_.dumpDir, dumpIndex++, "after", pass->name(), module));
    if (options_.printAfter.count("all") || options_.printAfter.count(std::string(pass->name())))
      std::fprintf(stderr, "// -----// IR after %s //----- //\n%s\n", std::string(pass->name()).c_str(),
                   printModule(module).c_str());
    if (options_.verifyEach) {
      Status s = verifyModule(module, options_.verify);
      if (!s.isOk()) {
        s.diag().message = "IR is invalid after pass '" + std::string(pass->name()) + "': " + s.diag().message;
        return s;
      }
    }
  }
  return Status::ok();
}

Expected<PassManager> parsePassList(std::string_view spec, PassManagerOptions options) {
  PassManager pm(std::move(options));
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    std::string_view name = spec.substr(pos, comma == std::string_view::npos ? spec.npos : comma - pos);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (!name.empty()) {
      const PassInfo* info = lookupPass(name);
      if (!info) {
        std::string known;
        for (const PassInfo& p : allPasses()) known += (known.empty() ? "" : ", ") + std::string(p.name);
        return error("unknown pass '" + std::string(name) + "' (known passes: " + known + ")");
      }
      pm.add(info->create());
    }
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return pm;
}

}  // namespace kiln
