// The reference interpreter: kiln's oracle for every op.
//
// Readability first: one function per op, written from the StableHLO spec.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/interp/tensor.h"
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::interp {

struct InterpreterOptions {
  int numReplicas = 1;
  int numPartitions = 1;
};

// The replica and partition counts `module` declares in its attributes
// mhlo.num_replicas and mhlo.num_partitions (JAX's; 1 when absent); an error
// at the module's location if either is below 1.
Expected<InterpreterOptions> declaredInstances(const Module& module);

// Runs function `name` of `module` on `args`; returns its results.
Expected<std::vector<Tensor>> runFunction(const Module& module, std::string_view name,
                                          std::vector<Tensor> args,
                                          const InterpreterOptions& options = {});
// Runs function `name` on every instance (numReplicas x numPartitions, one
// thread each) and returns each instance's results; instance i is replica
// i / numPartitions, partition i % numPartitions. runFunction returns
// instance 0's results.
Expected<std::vector<std::vector<Tensor>>> runFunctionOnAllInstances(
    const Module& module, std::string_view name, std::vector<Tensor> args,
    const InterpreterOptions& options = {});
// Like runFunctionOnAllInstances, with one argument list per instance (list i
// for instance i): an SPMD program whose instances hold different shards.
Expected<std::vector<std::vector<Tensor>>> runFunctionOnInstances(
    const Module& module, std::string_view name, std::vector<std::vector<Tensor>> argsPerInstance,
    const InterpreterOptions& options = {});

// Ok if the interpreter can run every stablehlo.custom_call that function
// `entry` of `module` can reach (through calls, composites and called
// computations); otherwise an error at the first other call's location
// naming its target (and, for JAX's host callbacks, what they are). Back
// ends call this when they compile, so a program with a target kiln lacks
// fails then, not when one of its results is read.
Status checkCustomCallTargets(const Module& module, std::string_view entry);

class Interpreter;

// What an op's kernel sees: the op, its evaluated operands, and a way to run
// the op's regions (reduce bodies, comparators, branches).
struct OpEval {
  const Operation& op;
  std::vector<Tensor> operands;
  Interpreter& interp;

  // Runs region `i` of `op` with `args` bound to its entry block arguments and
  // returns the operands of its terminator.
  Expected<std::vector<Tensor>> runRegion(unsigned i, std::vector<Tensor> args);
  // "'op name' <message>" at the op's location.
  Status error(std::string message) const;
  // Replica/partition this evaluation runs as (for replica_id, collectives).
  int replicaId() const;
  int partitionId() const;
};

// A kernel evaluates one op. Kernels live in files by op family, each with a
// registration function adding its entries to the table.
using Kernel = std::function<Expected<std::vector<Tensor>>(OpEval&)>;
using KernelTable = std::map<std::string, Kernel, std::less<>>;

void registerElementwiseKernels(KernelTable& t);   // ops_elementwise.cpp
void registerDataMovementKernels(KernelTable& t);  // ops_data_movement.cpp
void registerReductionKernels(KernelTable& t);     // ops_reduction.cpp
void registerLinalgKernels(KernelTable& t);        // ops_linalg.cpp (dot, conv, fft, ...)
void registerMiscKernels(KernelTable& t);          // ops_misc.cpp (rng, quant, custom_call, ...)
void registerCheckKernels(KernelTable& t);         // ops_check.cpp (check.* and @check.* custom calls)
void registerChloKernels(KernelTable& t);          // ops_chlo.cpp (the chlo.* ops JAX exports)

}  // namespace kiln::interp
