// interpreter.run_parallel, the op of StableHLO's reference interpreter that
// multi-process tests are written with:
//
//   %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@f, @g]]}
//            : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
//
// runs a grid of programs at once, one row per replica and one function per
// partition (here replica 0's partition 0 runs @f, partition 1 @g), their
// collectives meeting as one run's do. Each program takes the next operands
// in order (as many as its function has arguments) and its results follow
// the previous program's. `infeed = [@q0, @q1, ...]` fills the run's
// infeed queue: each names a function without arguments, whose results are
// one element, taken by the next infeed op any program runs.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "kiln/interp/instance.h"

namespace kiln::interp {

struct ParallelRun {
  const Module* module = nullptr;
  int numReplicas = 1;
  int numPartitions = 1;
  std::vector<std::string> programs;      // by instance index (replica * numPartitions + partition)
  std::vector<std::vector<Tensor>> args;  // by instance index
  std::vector<std::vector<Tensor>> infeed;  // the infeed queue, next first
};

// Runs every program of `run`, returning each instance's results.
using ParallelRunner = std::function<Expected<std::vector<std::vector<Tensor>>>(ParallelRun run)>;

// Where run_parallel's programs run: the interpreter unless a runner is set
// (`kiln test --backend cpu` sets one that compiles them for the cpu). The
// setting is process-wide.
void setParallelRunner(ParallelRunner runner);
Expected<std::vector<std::vector<Tensor>>> runParallelOnInterpreter(ParallelRun run);

// A rendezvous for instances that may run different functions: the k-th
// collective op (in the function's walk order) of each function meets the
// k-th of the others, as the spec's processes meet in program order. Where
// every instance runs the same function this is Rendezvous itself.
class ProgramOrderRendezvous : public Rendezvous {
 public:
  using Rendezvous::Rendezvous;
  Expected<std::vector<std::vector<Tensor>>> exchange(const Operation& op, int64_t occurrence, int instance,
                                                      std::vector<Tensor> operands) override;

 private:
  const Operation& canonical(const Operation& op);
  std::mutex mutex_;
  std::map<const Operation*, const Operation*> canonical_;
  std::map<int64_t, const Operation*> byIndex_;
};

}  // namespace kiln::interp
