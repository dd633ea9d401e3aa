// `kiln run`: runs one function of a StableHLO file on .npy or literal inputs.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <iostream>

#include "kiln/backends/backend.h"
#include "kiln/backends/cpu/cpu_executable.h"
#include "kiln/distributed/communicator_rendezvous.h"
#include "kiln/distributed/process_run.h"
#include "kiln/interp/host_buffers.h"
#include "kiln/interp/tensor.h"
#include "kiln/ir/printer.h"
#include "kiln/parse/parser.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/refine_shapes.h"
#include "kiln/passes/sharding_annotations.h"
#include "kiln/support/trace.h"
#include "kiln/tools/kiln_commands.h"
#include "kiln/tools/kiln_profile.h"
#include "kiln/tools/npy.h"

namespace kiln::tool {
namespace {

constexpr std::string_view kRunUsage = R"(usage: kiln run FILE [options]

Runs one function of FILE (StableHLO MLIR text or a portable artifact, the MLIR
bytecode jax.export writes; '-' reads it from stdin) and prints its results as StableHLO literals (`dense<...> : tensor<...>`, one line
per result) or saves them as .npy files.

A module of several replicas or partitions runs them all, one thread each,
and reports instance 0 (--all-instances: every one). Under `kiln launch -n N`
(KILN_NUM_PROCESSES set) each process runs its share of the instances, with
their collectives over Gloo, and reports those (docs/distributed.md).

--spmd partitions a program whose values carry Shardy shardings (kiln-opt
--pipeline=spmd, docs/spmd.md), gives each device its block of every input
(the inputs are whole), runs every device and prints the whole results put
together from the devices' blocks: what the program prints unpartitioned.
)";

constexpr std::string_view kRunFooter = R"(.npy dtypes: bool, (u)int8..64, float16/32/64, complex64/128; bf16, the f8,
f6 and f4 types and (u)int2/4 as ml_dtypes names them ('bfloat16',
'float8_e4m3fn', ...: np.load reads such files after `import ml_dtypes`).
Arrays numpy saved from ml_dtypes types (descr '<V2', '<V1', '<f1') are read
as the type of the parameter they feed. Quantized tensors are saved, and may be
given (as .npy or as a literal), as their storage integers.
)";

constexpr std::string_view kCpuBackend = "cpu";

// One --input or --input-literal, in command-line order.
struct InputSpec {
  bool isLiteral;
  std::string text;  // a path or a literal
};

struct RunOptions {
  std::string file;
  std::string entry;
  std::vector<InputSpec> inputs;
  std::string outputDir;
  bool print = false;
  std::string backend = "cpu";
  bool stats = false;
  int profileRuns = 0;  // --profile N
  std::string profileJson;  // --profile-json FILE
  std::string tracePath;    // --trace OUT.json
  Roofs roofs;              // measured before anything else runs when profiling (and so left out of traces)
  cpu::CpuCompileOptions cpuOptions;
  bool allInstances = false;  // --all-instances
  bool spmd = false;          // --spmd
  // Set when this process is one of a multi-process run (kiln launch).
  std::optional<distributed::ProcessGroupInfo> process;
};

// The results of the instances of the module's grid a run reports: instance
// 0 alone, unless --all-instances or a multi-process run lists instances.
struct InstanceResults {
  int instance;  // replica * partitions + partition
  std::vector<interp::Tensor> results;
};
struct RunResults {
  bool perInstance = false;  // print "// instance I ..." headers, save under instance<I>/
  std::vector<InstanceResults> instances;
};

// "%arg1", naming the parameter as MLIR prints it.
std::string paramName(size_t i) { return "%arg" + std::to_string(i); }

Expected<const Operation*> findEntry(const Module& module, const RunOptions& opts) {
  if (!opts.entry.empty()) {
    const Operation* fn = module.lookupFunction(opts.entry);
    if (!fn) return error("no function @" + opts.entry + " in " + opts.file);
    return fn;
  }
  if (const Operation* main = module.lookupFunction("main")) return main;
  std::vector<const Operation*> candidates;
  std::string names;
  for (const Operation* fn : module.functions()) {
    if (!func::isPublic(*fn)) continue;
    candidates.push_back(fn);
    names += (names.empty() ? "@" : ", @") + std::string(func::name(*fn));
  }
  if (candidates.size() == 1) return candidates.front();
  if (candidates.empty()) return error(opts.file + " has no public function to run");
  return error(opts.file + " has no @main and several public functions (" + names +
               "); choose one with --entry");
}

// Whether a tensor of `shape` fits parameter type `type`: the same rank and
// the same size wherever `type` has one (a '?' takes any size).
bool fitsShape(Type type, std::span<const int64_t> shape) {
  if (type.rank() != static_cast<int64_t>(shape.size())) return false;
  for (size_t d = 0; d < shape.size(); ++d)
    if (type.shape()[d] != Type::kDynamic && type.shape()[d] != shape[d]) return false;
  return true;
}

// The tensor for parameter `i` of type `type` from `spec`. A parameter with
// '?' dimensions takes its sizes from the input (refine_shapes then makes
// the program static for them).
Expected<interp::Tensor> loadInput(const InputSpec& spec, size_t i, Type type) {
  std::string which = "input " + std::to_string(i) + " (" + paramName(i) + "): ";
  auto fail = [&](std::string_view message) { return error(which + std::string(message)); };
  if (!type.isTensor()) return fail("parameters of type " + type.str() + " cannot be given");
  bool dynamic = std::ranges::count(type.shape(), Type::kDynamic) > 0;
  if (spec.isLiteral) {
    if (dynamic) {
      Expected<Attribute> literal = parseAttribute(spec.text);
      if (literal && literal->is(AttrKind::DenseElements) && fitsShape(type, literal->valueType().shape()))
        type = Type::tensor(literal->valueType().shape(), type.elementType());
    }
    Expected<Attribute> literal = parseAttribute(spec.text);
    if (!literal) return fail(oneLine(literal.status().diag()));
    if (!literal->is(AttrKind::DenseElements))
      return fail("expected a literal `dense<...> : " + type.str() + "`, got '" + spec.text + "'");
    interp::Tensor tensor = interp::Tensor::fromDense(*literal);
    if (tensor.type() == type) return tensor;
    // A quantized parameter also takes a literal of its storage integers.
    Type element = type.elementType();
    if (element.isQuantized() && tensor.type() == type.withElementType(element.quant().storageType))
      return interp::Tensor(type, std::vector<uint8_t>(tensor.bytes(), tensor.bytes() + tensor.byteSize()));
    return fail("expected " + type.str() + ", got a literal of type " + tensor.type().str());
  }
  Expected<npy::Array> array = npy::readFile(spec.text);
  if (!array) return fail(array.status().diag().message);
  if (dynamic && fitsShape(type, array->shape)) type = Type::tensor(array->shape, type.elementType());
  Expected<std::vector<uint8_t>> storage = npy::toStorage(*array, type);
  if (!storage) return fail(storage.status().diag().message + " (from " + spec.text + ")");
  return interp::Tensor(type, std::move(*storage));
}

// Prints and/or saves one result (recursing into tuples); `name` is
// "result0", "result0_1", ...
Status emitResult(const interp::Tensor& result, const std::string& name, const RunOptions& opts,
                  bool print) {
  Type type = result.type();
  if (type.isTuple()) {
    std::span<const interp::Tensor> elements = result.tupleElements();
    for (size_t j = 0; j < elements.size(); ++j)
      KILN_RETURN_IF_ERROR(emitResult(elements[j], name + "_" + std::to_string(j), opts, print));
    return Status::ok();
  }
  if (!type.isTensor()) {  // a token carries no data
    if (print) std::cout << type.str() << "\n";
    return Status::ok();
  }
  if (print) std::cout << printAttribute(result.toDense()) << "\n";
  if (opts.outputDir.empty()) return Status::ok();
  std::string path = (std::filesystem::path(opts.outputDir) / (name + ".npy")).string();
  return npy::writeFile(path, type, std::span<const uint8_t>(result.bytes(), result.byteSize()));
}

// `--stats`: what compiling took and produced, on stderr.
void printStats(const cpu::CpuCompileStats& stats) {
  std::cerr << "compile: pipeline " << stats.pipelineSeconds << " s, codegen " << stats.codegenSeconds
            << " s (LLVM in " << stats.codegenParts << " part" << (stats.codegenParts == 1 ? "" : "s")
            << " at once)\nsteps: " << stats.kernels << " kernels (" << stats.parallelKernels << " multi-threaded), " << stats.libraryCalls << " library calls, "
            << stats.routines << " routines, " << stats.controlFlow << " control flow (" << stats.flatLoops
            << " flat loops, " << stats.loopVariablesInPlace << " variables in place), "
            << stats.fusionsRunOpByOp << " fusions run op by op, " << stats.splitOutputFusions
            << " output fusions split into a library call and an epilogue kernel, " << stats.fusionsSplitByRoot
            << " multi-output fusions split into a kernel per output; " << stats.rowKernels << " row kernels, "
            << stats.columnKernels << " column kernels, " << stats.streamingKernels << " streaming; arena: " << stats.arenaValues << " values in "
            << stats.arenaBytes << " bytes"
            << (stats.loadedFromDiskCache ? "\ncode: from the cache directory" : "") << "\n";
  std::map<std::string, int> routines;
  for (const std::string& op : stats.routineOps) ++routines[op];
  for (const auto& [op, count] : routines) std::cerr << "routine: " << op << " x" << count << "\n";
}

// `--profile N`: N more runs timing every step, reported against the roofs
// measured first, as a table on stderr and as JSON in --profile-json.
Status profile(const cpu::CpuExecutable& executable, const std::vector<interp::Tensor>& args,
               const RunOptions& opts) {
  std::vector<std::vector<cpu::StepProfile>> runs(opts.profileRuns);
  for (std::vector<cpu::StepProfile>& run : runs) {
    Expected<std::vector<interp::Tensor>> timed = executable.runProfiled(args, run);
    if (!timed) return timed.takeStatus();
  }
  ProfileReport report = buildReport(runs, opts.roofs);
  std::cerr << profileTable(report);
  if (opts.profileJson.empty()) return Status::ok();
  std::ofstream out(opts.profileJson, std::ios::binary);
  if (!out || !(out << profileJson(report))) return error("cannot write '" + opts.profileJson + "'");
  return Status::ok();
}

// This process's instances of a multi-process run, each on `args`, with
// collectives over Gloo to the other processes' instances.
Expected<RunResults> runOurInstances(const cpu::CpuExecutable& executable, std::vector<interp::Tensor> args,
                                     const distributed::ProcessGroupInfo& process) {
  int numInstances = executable.numInstances();
  KILN_ASSIGN_OR_RETURN(distributed::LocalInstances local, distributed::joinRun(process, numInstances, "kiln run"));
  std::vector<collectives::Communicator*> communicators;
  for (auto& c : local.communicators) communicators.push_back(c.get());
  distributed::CommunicatorRendezvous rendezvous(numInstances, communicators);
  std::vector<std::vector<interp::Tensor>> argsPerInstance(local.instances.size(), args);
  KILN_ASSIGN_OR_RETURN(std::vector<std::vector<interp::Tensor>> results,
                        executable.runSomeInstances(local.instances, std::move(argsPerInstance), communicators,
                                                    rendezvous, [&](size_t k, bool) {
                                                      // Closing its connections fails its peers' next
                                                      // collective with it at once.
                                                      local.communicators[k].reset();
                                                    }));
  RunResults run{.perInstance = true};
  for (size_t k = 0; k < results.size(); ++k) run.instances.push_back({local.instances[k], std::move(results[k])});
  return run;
}

// --spmd: the partitioned program's devices, and how its parameters and
// results are split over them (nullopt: whole on every device).
struct SpmdPlan {
  sharding::Mesh mesh;
  int numInstances = 1;
  std::vector<std::optional<sharding::TensorSharding>> params, results;
};

// Partitions `module` for the devices of its mesh; nullopt when it has no
// mesh of several devices (the program runs as it is).
Expected<std::optional<SpmdPlan>> partitionForSpmd(Module& module, const std::string& fnName) {
  // Sub-axes made whole axes for good, so that the blocks below are read
  // off whole axes (spmd_partition then finds none to refine); those that
  // propagation cuts (a reshape's) blockOf reads off their axes.
  KILN_ASSIGN_OR_RETURN(auto refined, sharding::refineSubAxes(module));
  (void)refined;
  KILN_ASSIGN_OR_RETURN(auto mesh, sharding::moduleMesh(module));
  if (!mesh || mesh->second.numDevices() < 2) return std::optional<SpmdPlan>();
  KILN_ASSIGN_OR_RETURN(PassManager pipeline, namedPipeline("spmd"));
  KILN_RETURN_IF_ERROR(pipeline.run(module));
  const Operation* fn = module.lookupFunction(fnName);
  if (!fn) return error("--spmd: partitioning left no function @" + fnName);
  SpmdPlan plan;
  plan.mesh = mesh->second;
  plan.numInstances = static_cast<int>(plan.mesh.numDevices());
  Type type = func::type(*fn);
  for (unsigned i = 0; i < type.inputs().size(); ++i) {
    KILN_ASSIGN_OR_RETURN(auto s, sharding::argumentSharding(*fn, i));
    plan.params.push_back(s && !s->isReplicated() ? s : std::nullopt);
  }
  for (unsigned i = 0; i < type.results().size(); ++i) {
    KILN_ASSIGN_OR_RETURN(auto s, sharding::resultSharding(*fn, i));
    plan.results.push_back(s && !s->isReplicated() ? s : std::nullopt);
  }
  return std::optional<SpmdPlan>(std::move(plan));
}

// The block of a tensor sharded by `s` that instance (partition) `instance`
// holds: its index along each dimension, and the number of blocks.
struct BlockPlace {
  std::vector<int64_t> index, blocks;
};
BlockPlace blockOf(const sharding::TensorSharding& s, const sharding::Mesh& mesh, int instance) {
  // Partition p is the device with id p: its position in the mesh.
  int64_t position = instance;
  if (!mesh.deviceIds.empty())
    position = std::find(mesh.deviceIds.begin(), mesh.deviceIds.end(), instance) - mesh.deviceIds.begin();
  BlockPlace place;
  for (const sharding::DimSharding& d : s.dims) {
    int64_t index = 0, blocks = 1;
    for (const std::string& axis : d.axes) {
      int a = mesh.axisIndex(axis);
      int64_t size = mesh.axisSize(axis), coordinate = 0;
      if (a >= 0) {
        coordinate = mesh.coordinate(position, a);
      } else if (std::optional<sharding::SubAxis> sub = sharding::parseSubAxisRef(axis);
                 sub && (a = mesh.axisIndex(sub->axis)) >= 0) {
        // A sub-axis propagation cut ("x":(p)s): the middle factor of the
        // axis's p x s x rest devices.
        coordinate = mesh.coordinate(position, a) / (mesh.axes[a].size / (sub->preSize * sub->size)) % sub->size;
      }
      index = index * size + coordinate;
      blocks *= size;
    }
    place.index.push_back(index);
    place.blocks.push_back(blocks);
  }
  return place;
}

// Copies between a whole tensor and one of its blocks (`toBlock`: whole to block).
Status copyBlock(interp::Tensor& whole, interp::Tensor& block, const BlockPlace& place, bool toBlock,
                 const std::string& what) {
  std::span<const int64_t> shape = whole.shape(), local = block.shape();
  if (place.index.size() != shape.size() || local.size() != shape.size())
    return error("--spmd: " + what + " has a sharding of " + std::to_string(place.index.size()) +
                 " dimension(s) for a tensor of rank " + std::to_string(shape.size()));
  for (size_t d = 0; d < shape.size(); ++d)
    if (local[d] * place.blocks[d] != shape[d])
      return error("--spmd: " + what + ": dimension " + std::to_string(d) + " of size " + std::to_string(shape[d]) +
                   " is not " + std::to_string(place.blocks[d]) + " blocks of " + std::to_string(local[d]));
  std::vector<int64_t> at(shape.size());
  for (int64_t i = 0; i < block.numElements(); ++i) {
    std::vector<int64_t> index = block.multiIndex(i);
    for (size_t d = 0; d < shape.size(); ++d) at[d] = place.index[d] * local[d] + index[d];
    int64_t j = whole.linearIndex(at);
    if (toBlock) block.copyElement(i, whole, j);
    else whole.copyElement(j, block, i);
  }
  return Status::ok();
}

// Runs every instance of the partitioned program on its blocks of `args`
// and puts the whole results together. Instances holding the same block
// of a result must agree on it bit for bit.
Expected<RunResults> runSpmd(const Module& module, const std::string& fnName, std::vector<interp::Tensor> args,
                             const SpmdPlan& plan, const RunOptions& opts) {
  const Operation* fn = module.lookupFunction(fnName);
  Type type = func::type(*fn);
  std::vector<std::vector<interp::Tensor>> perInstance(plan.numInstances);
  for (int inst = 0; inst < plan.numInstances; ++inst)
    for (size_t k = 0; k < args.size(); ++k) {
      if (!plan.params[k] || !args[k].type().isTensor()) {
        perInstance[inst].push_back(args[k]);
        continue;
      }
      interp::Tensor block(type.inputs()[k]);
      KILN_RETURN_IF_ERROR(copyBlock(args[k], block, blockOf(*plan.params[k], plan.mesh, inst), true,
                                     "input " + std::to_string(k)));
      perInstance[inst].push_back(std::move(block));
    }
  std::vector<std::vector<interp::Tensor>> outs;
  if (opts.backend == kCpuBackend) {
    KILN_ASSIGN_OR_RETURN(std::unique_ptr<cpu::CpuExecutable> executable,
                          cpu::compileForCpu(module, fnName, opts.cpuOptions));
    if (opts.stats) printStats(executable->stats());
    KILN_ASSIGN_OR_RETURN(outs, executable->runInstances(std::move(perInstance)));
  } else {
    KILN_ASSIGN_OR_RETURN(const backend::Backend* target, backend::findBackend(opts.backend));
    KILN_ASSIGN_OR_RETURN(std::unique_ptr<backend::Program> program, target->compile(module, fnName, {}));
    std::vector<std::vector<device::DeviceBuffer>> buffers;
    for (std::vector<interp::Tensor>& a : perInstance) buffers.push_back(interp::toDeviceBuffers(std::move(a)));
    KILN_ASSIGN_OR_RETURN(std::vector<std::vector<device::DeviceBuffer>> all, program->runInstances(std::move(buffers)));
    KILN_ASSIGN_OR_RETURN(outs, interp::toTensors(std::move(all)));
  }
  if (static_cast<int>(outs.size()) != plan.numInstances) return error("--spmd: not every instance ran");
  RunResults run;
  run.instances.push_back({0, {}});
  for (size_t r = 0; r < plan.results.size(); ++r) {
    const interp::Tensor& first = outs[0][r];
    if (!plan.results[r] || !first.type().isTensor()) {
      for (int inst = 1; inst < plan.numInstances; ++inst)
        if (!(outs[inst][r] == first))
          return error("--spmd: result " + std::to_string(r) + " is replicated, but instance " +
                       std::to_string(inst) + " returned other values than instance 0");
      run.instances[0].results.push_back(first);
      continue;
    }
    std::vector<int64_t> wholeShape;
    BlockPlace place0 = blockOf(*plan.results[r], plan.mesh, 0);
    for (size_t d = 0; d < place0.blocks.size() && d < first.shape().size(); ++d)
      wholeShape.push_back(first.shape()[d] * place0.blocks[d]);
    interp::Tensor whole(Type::tensor(wholeShape, first.elementType()));
    std::map<std::vector<int64_t>, int> holder;  // block index -> the first instance holding it
    for (int inst = 0; inst < plan.numInstances; ++inst) {
      BlockPlace place = blockOf(*plan.results[r], plan.mesh, inst);
      auto [it, fresh] = holder.emplace(place.index, inst);
      if (!fresh) {
        if (!(outs[inst][r] == outs[it->second][r]))
          return error("--spmd: instances " + std::to_string(it->second) + " and " + std::to_string(inst) +
                       " hold the same block of result " + std::to_string(r) + " with other values");
        continue;
      }
      KILN_RETURN_IF_ERROR(copyBlock(whole, outs[inst][r], place, false, "result " + std::to_string(r)));
    }
    run.instances[0].results.push_back(std::move(whole));
  }
  return run;
}

// Runs `fnName` on the chosen back end.
Expected<RunResults> runOnBackend(const Module& module, const std::string& fnName, std::vector<interp::Tensor> args,
                                  const RunOptions& opts) {
  if (opts.backend == kCpuBackend) {
    KILN_ASSIGN_OR_RETURN(std::unique_ptr<cpu::CpuExecutable> executable,
                          cpu::compileForCpu(module, fnName, opts.cpuOptions));
    if (opts.stats) printStats(executable->stats());
    bool severalInstances = executable->numInstances() > 1;
    if (opts.process && severalInstances) return runOurInstances(*executable, std::move(args), *opts.process);
    if (opts.allInstances && severalInstances) {
      KILN_ASSIGN_OR_RETURN(std::vector<std::vector<interp::Tensor>> all, executable->runOnAllInstances(args));
      RunResults run{.perInstance = true};
      for (size_t i = 0; i < all.size(); ++i) run.instances.push_back({int(i), std::move(all[i])});
      return run;
    }
    RunResults run;
    if (opts.profileRuns == 0) {
      KILN_ASSIGN_OR_RETURN(std::vector<interp::Tensor> results, executable->run(std::move(args)));
      run.instances.push_back({0, std::move(results)});
      return run;
    }
    KILN_ASSIGN_OR_RETURN(std::vector<interp::Tensor> results, executable->run(args));
    KILN_RETURN_IF_ERROR(profile(*executable, args, opts));
    run.instances.push_back({0, std::move(results)});
    return run;
  }
  KILN_ASSIGN_OR_RETURN(interp::InterpreterOptions grid, interp::declaredInstances(module));
  if (grid.numReplicas * grid.numPartitions > 1 && opts.process)
    return error(ErrorCode::Unimplemented, "the " + opts.backend +
                                               " back end runs every instance in one process: run the module's "
                                               "several instances across processes on the cpu back end");
  // Every other back end through the back-end interface.
  KILN_ASSIGN_OR_RETURN(const backend::Backend* target, backend::findBackend(opts.backend));
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<backend::Program> program, target->compile(module, fnName, {}));
  if (opts.allInstances && grid.numReplicas * grid.numPartitions > 1) {
    std::vector<std::vector<device::DeviceBuffer>> argsPerInstance;
    for (int i = 0; i < grid.numReplicas * grid.numPartitions; ++i)
      argsPerInstance.push_back(interp::toDeviceBuffers(args));
    KILN_ASSIGN_OR_RETURN(std::vector<std::vector<device::DeviceBuffer>> all,
                          program->runInstances(std::move(argsPerInstance)));
    KILN_ASSIGN_OR_RETURN(std::vector<std::vector<interp::Tensor>> tensors, interp::toTensors(std::move(all)));
    RunResults run{.perInstance = true};
    for (size_t i = 0; i < tensors.size(); ++i) run.instances.push_back({int(i), std::move(tensors[i])});
    return run;
  }
  std::vector<device::DeviceBuffer> buffers = [&] {
    trace::Scope slice("transfer", "host to device");
    return interp::toDeviceBuffers(std::move(args));
  }();
  KILN_ASSIGN_OR_RETURN(std::vector<device::DeviceBuffer> results, [&] {
    trace::Scope slice("run", "run on " + opts.backend);
    return program->run(std::move(buffers));
  }());
  trace::Scope slice("transfer", "device to host");
  KILN_ASSIGN_OR_RETURN(std::vector<interp::Tensor> tensors, interp::toTensors(results));
  RunResults run;
  run.instances.push_back({0, std::move(tensors)});
  return run;
}

Status run(const RunOptions& opts) {
  KILN_ASSIGN_OR_RETURN(std::string text, readSourceText(opts.file));
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, [&] {
    trace::Scope slice("compile", "parse and verify");
    return loadModule(text, sourceDisplayName(opts.file));
  }());
  KILN_ASSIGN_OR_RETURN(const Operation* fn, findEntry(*module, opts));

  std::string fnName(func::name(*fn));
  std::span<const Type> params = func::type(*fn).inputs();
  if (opts.inputs.size() != params.size()) {
    std::string signature;
    for (size_t i = 0; i < params.size(); ++i)
      signature += (i ? ", " : "") + paramName(i) + ": " + params[i].str();
    return error("@" + fnName + "(" + signature + ") takes " + std::to_string(params.size()) +
                 " input(s), " + std::to_string(opts.inputs.size()) + " given");
  }
  std::vector<interp::Tensor> args;
  {
    trace::Scope slice("io", "read inputs");
    for (size_t i = 0; i < params.size(); ++i) {
      KILN_ASSIGN_OR_RETURN(interp::Tensor arg, loadInput(opts.inputs[i], i, params[i]));
      args.push_back(std::move(arg));
    }
  }

  if (!std::ranges::all_of(params, isStaticType)) {
    trace::Scope slice("compile", "refine shapes");
    std::vector<Type> argumentTypes;
    for (const interp::Tensor& arg : args) argumentTypes.push_back(arg.type());
    KILN_RETURN_IF_ERROR(refineShapes(*module, fnName, std::span<const Type>(argumentTypes)));
  }
  std::optional<SpmdPlan> spmd;
  if (opts.spmd) {
    trace::Scope slice("compile", "partition");
    KILN_ASSIGN_OR_RETURN(spmd, partitionForSpmd(*module, fnName));
  }
  KILN_ASSIGN_OR_RETURN(RunResults run, spmd ? runSpmd(*module, fnName, std::move(args), *spmd, opts)
                                             : runOnBackend(*module, fnName, std::move(args), opts));
  KILN_ASSIGN_OR_RETURN(interp::InterpreterOptions grid, interp::declaredInstances(*module));

  bool print = opts.print || opts.outputDir.empty();
  trace::Scope slice("io", "write results");
  for (InstanceResults& instance : run.instances) {
    RunOptions where = opts;  // results of several instances go to instance<I>/ under --output-dir
    if (run.perInstance) {
      if (print)
        std::cout << "// instance " << instance.instance << " (replica " << instance.instance / grid.numPartitions
                  << ", partition " << instance.instance % grid.numPartitions << ")\n";
      if (!opts.outputDir.empty())
        where.outputDir = (std::filesystem::path(opts.outputDir) / ("instance" + std::to_string(instance.instance))).string();
    }
    if (!where.outputDir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(where.outputDir, ec);
      if (ec) return error("cannot create '" + where.outputDir + "': " + ec.message());
    }
    for (size_t i = 0; i < instance.results.size(); ++i)
      KILN_RETURN_IF_ERROR(emitResult(instance.results[i], "result" + std::to_string(i), where, print));
  }
  return Status::ok();
}

// run() under a trace written to opts.tracePath.
Status runTraced(const RunOptions& opts) {
  trace::start();
  Status status = run(opts);
  trace::stop();
  if (!status.isOk()) return status;
  return trace::writeJson(opts.tracePath);
}

}  // namespace

void printRunHelp() { printCommandHelp(kKilnRun, kRunUsage, kRunFooter); }

int runCommand(std::span<const std::string> args) {
  Expected<ParsedFlags> parsed = parseFlags(kKilnRun, args, environmentFlags());
  if (!parsed) return usageError("run", parsed.status().diag().message);
  if (std::optional<int> exit = helpOrVersion(*parsed, printRunHelp)) return *exit;
  RunOptions opts;
  bool cpuOptionGiven = false;
  for (const FlagValue& f : parsed->flags) {
    if (f.is("--help") || f.is("--version")) continue;
    if (f.is("--entry")) opts.entry = f.text;
    else if (f.is("--input")) opts.inputs.push_back({false, f.text});
    else if (f.is("--input-literal")) opts.inputs.push_back({true, f.text});
    else if (f.is("--output-dir")) opts.outputDir = f.text;
    else if (f.is("--print")) opts.print = f.on();
    else if (f.is("--backend")) opts.backend = f.text;
    else if (f.is("--trace")) opts.tracePath = f.text;
    else if (f.is("--all-instances")) opts.allInstances = f.on();
    else if (f.is("--spmd")) opts.spmd = f.on();
    else {
      // The rest configure the cpu back end; given on the command line with
      // another back end they are a mistake, from KILN_FLAGS they are not.
      cpuOptionGiven |= !f.fromEnvironment;
      if (f.is("--stats")) opts.stats = f.on();
      else if (f.is("--profile")) opts.profileRuns = static_cast<int>(f.number);
      else if (f.is("--profile-json")) opts.profileJson = f.text;
      else if (f.is("--threads")) opts.cpuOptions.numThreads = static_cast<int>(f.number);
      else if (f.is("--dump-dir")) opts.cpuOptions.dumpDir = f.text;
      else if (f.is("--cache-dir")) opts.cpuOptions.cacheDir = f.text;
      else return usageError("run", "internal error: " + std::string(f.spec->name) + " is not handled");
    }
  }
  if (parsed->positionals.empty()) return usageError("run", "no input FILE");
  if (parsed->positionals.size() > 1)
    return usageError("run", "expected one FILE, got '" + parsed->positionals[0] + "' and '" +
                                 parsed->positionals[1] + "'");
  opts.file = parsed->positionals[0];
  if (Expected<const backend::Backend*> known = backend::findBackend(opts.backend); !known)
    return usageError("run", known.status().diag().message);
  if (cpuOptionGiven && opts.backend != kCpuBackend)
    return usageError("run",
                      "--stats, --profile, --profile-json, --threads, --dump-dir and --cache-dir apply to the cpu back "
                      "end only");
  Expected<std::optional<distributed::ProcessGroupInfo>> process = distributed::processGroupFromEnvironment();
  if (!process) return usageError("run", process.status().diag().message);
  opts.process = std::move(*process);
  if (opts.spmd && (opts.process || opts.allInstances || opts.profileRuns > 0))
    return usageError("run", "--spmd runs every device in this process and prints the whole results: not with "
                             "kiln launch, --all-instances or --profile");
  constexpr int kDefaultProfileRuns = 10;
  if (!opts.profileJson.empty() && opts.profileRuns == 0) opts.profileRuns = kDefaultProfileRuns;

  // A back end that cannot run here (cuda without a driver) says so before anything is read.
  Status status = (*backend::findBackend(opts.backend))->available();
  if (status.isOk() && opts.profileRuns > 0) {
    Expected<Roofs> roofs = measureRoofs(opts.cpuOptions.numThreads);
    if (roofs) opts.roofs = *roofs;
    else status = roofs.takeStatus();
  }
  if (status.isOk()) status = opts.tracePath.empty() ? run(opts) : runTraced(opts);
  if (status.isOk()) return kExitSuccess;
  std::cerr << "kiln run: " << status.diag().str() << "\n";
  return kExitFailure;
}

}  // namespace kiln::tool
