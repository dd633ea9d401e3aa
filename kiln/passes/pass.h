// Passes and the pass manager.
//
// A pass is a named transformation of a module that says whether it changed
// anything; most transform each function on its own (FunctionPass). The pass
// manager runs a list of them, verifying between passes when asked, timing
// them, and dumping the IR before/after each one.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/ir/ir.h"
#include "kiln/ir/verifier.h"
#include "kiln/support/diagnostic.h"

namespace kiln {

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;
  // Returns whether the module changed, or an error.
  virtual Expected<bool> run(Module& module) = 0;
};

// A pass that transforms each defined function's body on its own: it
// implements runOnBody, and run() calls it on every function.
class FunctionPass : public Pass {
 public:
  Expected<bool> run(Module& module) final {
    bool changed = false;
    for (Operation* fn : module.definedFunctions()) changed |= runOnBody(func::body(*fn));
    return changed;
  }

 protected:
  // Returns whether `body` (a function's entry block) changed.
  virtual bool runOnBody(Block& body) = 0;
};

struct PassInfo {
  std::string_view name;
  std::string_view description;
  std::function<std::unique_ptr<Pass>()> create;
};

// Every registered pass, in registration order (see passes/registry.cpp).
const std::vector<PassInfo>& allPasses();
const PassInfo* lookupPass(std::string_view name);

struct PassManagerOptions {
  bool verifyEach = false;           // run the verifier after every pass
  VerifyOptions verify;              // ... with these options
  bool timing = false;               // report per-pass wall time to stderr
  std::string dumpDir;               // write NNN_before_<pass>.mlir / NNN_after_<pass>.mlir
  std::set<std::string> printAfter;  // pass names, or "all"; printed to stderr
};

class PassManager {
 public:
  explicit PassManager(PassManagerOptions options = {}) : options_(std::move(options)) {}
  void add(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }
  size_t size() const { return passes_.size(); }
  std::vector<std::string> passNames() const;
  Status run(Module& module);

 private:
  PassManagerOptions options_;
  std::vector<std::unique_ptr<Pass>> passes_;
};

// Builds a pass manager from a comma-separated list of pass names
// ("inline,canonicalize,cse") or a named pipeline (see pipelines.cpp).
Expected<PassManager> parsePassList(std::string_view spec, PassManagerOptions options = {});
Expected<PassManager> namedPipeline(std::string_view name, PassManagerOptions options = {});
// Names of the named pipelines, for --help.
std::vector<std::string> pipelineNames();

}  // namespace kiln
