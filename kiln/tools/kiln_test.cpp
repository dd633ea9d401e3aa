// `kiln test`: the conformance runner. Runs every public function without
// arguments of each test file (split at `// -----`) and reports
//   PASS file:func
//   FAIL file:func: <check> at index [i,j]: got X, expected Y
//   ERROR file:func: <diagnostic>
// then "N passed, N failed". Each function runs in a child process, so that a
// crash or a hang (killed after --timeout) costs only that function.
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <chrono>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "kiln/backends/backend.h"
#include "kiln/backends/cpu/cpu_executable.h"
#include "kiln/collectives/shared_memory.h"
#include "kiln/distributed/communicator_rendezvous.h"
#include "kiln/distributed/process_run.h"
#include "kiln/distributed/tcp_store.h"
#include "kiln/interp/check_kernels.h"
#include "kiln/interp/run_parallel.h"
#include "kiln/parse/parser.h"
#include "kiln/support/thread_pool.h"
#include "kiln/tools/kiln_commands.h"

namespace kiln::tool {
namespace {

constexpr std::string_view kTestUsage = R"(usage: kiln test FILE... [options]

Runs the tests in each FILE: every public func.func that takes no arguments,
in every part of the file split at `// -----` lines. A directory stands for
the .mlir files under it (recursively, in sorted order). A test passes when it
runs to the end and all its checks hold (check.expect_eq, expect_eq_const,
expect_almost_eq, expect_almost_eq_const, expect_close, and the
`stablehlo.custom_call @check.*` forms of JAX-generated tests).
A test may run a grid of programs with StableHLO's
"interpreter.run_parallel"(...) {programs = [[@f, @g], ...]} (one row per
replica, one function per partition): the test runs on the interpreter and
its programs on the --backend given (interpreter or cpu; on the cpu, with
--processes N, as N processes of this host); the functions it names are not
tests (docs/testing.md).

Prints one line per test, in file order:
  PASS file:func
  FAIL file:func: <check> at index [i,j]: got X, expected Y
  ERROR file:func: <diagnostic>
and finally "N passed, N failed" (errors count as failed). Exits with 0 if and
only if every test passed.

Each test runs in a child process, stopped after --timeout seconds (an
ERROR line). KILN_TEST_TIMEOUT_S (seconds, may be fractional; 0 = no limit)
sets that limit when --timeout is not given: raise it where tests run slowly
(sanitizer builds, a loaded machine) without editing the command lines that
run `kiln test` (scripts/sanitize.sh sets it for lit and the conformance
corpus under ASan).
)";

constexpr double kDefaultTimeoutSeconds = 60;
constexpr std::string_view kCpuBackend = "cpu";

enum class Verdict : char { kPass = 'P', kFail = 'F', kError = 'E' };

// Tests known to fail, by label ("file:func"), with the reason.
using KnownFailures = std::map<std::string, std::string, std::less<>>;

Expected<KnownFailures> readKnownFailures(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(std::string text, readSourceText(path));
  KnownFailures known;
  size_t lineNo = 0, pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    pos = end == std::string::npos ? text.size() : end + 1;
    ++lineNo;
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    size_t hash = line.find('#', first);
    size_t labelEnd = line.find_last_not_of(" \t", hash == std::string::npos ? std::string::npos : hash - 1);
    size_t reasonStart = hash == std::string::npos ? std::string::npos : line.find_first_not_of(" \t#", hash);
    std::string reason = reasonStart == std::string::npos ? "" : line.substr(reasonStart);
    if (reason.empty())
      return error(path + ":" + std::to_string(lineNo) + ": a known failure needs a reason after '#'");
    known[line.substr(first, labelEnd - first + 1)] = reason;
  }
  return known;
}

struct Outcome {
  Verdict verdict;
  std::string detail;  // empty for kPass
};

std::string resultLine(const std::string& label, const Outcome& o) {
  switch (o.verdict) {
    case Verdict::kPass: return "PASS " + label;
    case Verdict::kFail: return "FAIL " + label + ": " + o.detail;
    case Verdict::kError: return "ERROR " + label + ": " + o.detail;
  }
  return {};
}

// Runs test function `name` on back end `backendName` (compiled alone: a
// test file's functions are independent programs), on every replica and
// partition the module declares. Constant folding is off, or the interpreter
// would compute the ops under test at compile time.
Expected<std::vector<device::DeviceBuffer>> runOn(const std::string& backendName, const Module& module,
                                            const std::string& name) {
  KILN_ASSIGN_OR_RETURN(const backend::Backend* target, backend::findBackend(backendName));
  backend::CompileOptions options;
  options.foldConstants = false;
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<backend::Program> program, target->compile(module, name, options));
  return program->run({});
}

// run_parallel's programs on the cpu back end: each function compiled once
// for the grid, all instances of all functions running at once, their native
// collectives meeting in one shared-memory world and the rest at one
// rendezvous.
Expected<std::vector<std::vector<interp::Tensor>>> runProgramsOnCpu(interp::ParallelRun run) {
  auto grid = std::make_unique<Module>(run.module->op().clone());
  grid->op().setAttr("mhlo.num_replicas", Attribute::integer(run.numReplicas, Type::si32()));
  grid->op().setAttr("mhlo.num_partitions", Attribute::integer(run.numPartitions, Type::si32()));
  std::map<std::string, std::vector<int>> instancesOf;
  for (size_t i = 0; i < run.programs.size(); ++i) instancesOf[run.programs[i]].push_back(int(i));
  cpu::CpuCompileOptions options;
  options.foldConstants = false;
  std::map<std::string, std::unique_ptr<cpu::CpuExecutable>> executables;
  for (const auto& [name, indices] : instancesOf) {
    KILN_ASSIGN_OR_RETURN(executables[name], cpu::compileForCpu(*grid, name, options));
  }
  int numInstances = int(run.programs.size());
  collectives::SharedMemoryWorld world(numInstances);
  interp::ProgramOrderRendezvous rendezvous(numInstances);
  rendezvous.setInfeed(std::move(run.infeed));
  std::vector<std::vector<interp::Tensor>> results(numInstances);
  std::mutex failureMutex;
  std::optional<Status> failure;
  std::vector<std::thread> threads;
  for (const auto& [name, indices] : instancesOf)
    threads.emplace_back([&, &name = name, &indices = indices] {
      std::vector<std::vector<interp::Tensor>> args;
      std::vector<collectives::Communicator*> communicators;
      for (int i : indices) {
        args.push_back(std::move(run.args[i]));
        communicators.push_back(&world.member(i));
      }
      auto outcome = executables.at(name)->runSomeInstances(
          indices, std::move(args), communicators, rendezvous,
          [&](size_t k, bool) { world.memberExited(indices[k]); });
      if (!outcome) {
        std::lock_guard<std::mutex> lock(failureMutex);
        if (!failure) failure = outcome.takeStatus();
        return;
      }
      for (size_t k = 0; k < indices.size(); ++k) results[indices[k]] = std::move((*outcome)[k]);
    });
  for (std::thread& t : threads) t.join();
  if (failure) return std::move(*failure);
  KILN_RETURN_IF_ERROR(rendezvous.checkAllReceived());
  return results;
}

// --processes: how many processes run_parallel's programs run in on the cpu
// back end (1: threads of the test's own process).
int gParallelProcesses = 1;

bool writeAll(int fd, std::string_view data);

// Results of instances as bytes through a pipe: per tensor its type as text,
// then its bytes.
void appendTensors(std::string& out, const std::vector<interp::Tensor>& tensors) {
  auto number = [&](uint64_t n) { out.append(reinterpret_cast<const char*>(&n), sizeof n); };
  number(tensors.size());
  for (const interp::Tensor& t : tensors) {
    std::string type = t.type().str();
    number(type.size());
    out += type;
    uint64_t bytes = t.type().isTensor() ? uint64_t(t.byteSize()) : 0;
    number(bytes);
    if (bytes) out.append(reinterpret_cast<const char*>(t.bytes()), bytes);
  }
}

Expected<std::vector<interp::Tensor>> readTensors(std::string_view& in) {
  auto number = [&]() -> Expected<uint64_t> {
    uint64_t n = 0;
    if (in.size() < sizeof n) return error(ErrorCode::Internal, "a truncated result from a process of the run");
    std::memcpy(&n, in.data(), sizeof n);
    in.remove_prefix(sizeof n);
    return n;
  };
  KILN_ASSIGN_OR_RETURN(uint64_t count, number());
  std::vector<interp::Tensor> tensors;
  for (uint64_t i = 0; i < count; ++i) {
    KILN_ASSIGN_OR_RETURN(uint64_t typeSize, number());
    if (in.size() < typeSize) return error(ErrorCode::Internal, "a truncated result from a process of the run");
    KILN_ASSIGN_OR_RETURN(Type type, parseType(in.substr(0, typeSize)));
    in.remove_prefix(typeSize);
    KILN_ASSIGN_OR_RETURN(uint64_t bytes, number());
    interp::Tensor t(type);
    if (in.size() < bytes || (type.isTensor() && uint64_t(t.byteSize()) != bytes) || (!type.isTensor() && bytes))
      return error(ErrorCode::Internal, "a result of other size than its type from a process of the run");
    if (bytes) std::memcpy(t.bytes(), in.data(), bytes);
    in.remove_prefix(bytes);
    tensors.push_back(std::move(t));
  }
  return tensors;
}

// One process's share of a run across processes: its instances (a
// contiguous block, as kiln launch gives), each distinct function compiled
// here, collectives over the run's communicators (shared memory between
// processes of this host, Gloo otherwise) and the interpreter-evaluated rest
// through them. The results of its instances in order.
Expected<std::vector<std::vector<interp::Tensor>>> runProcessShare(interp::ParallelRun& run, const Module& grid,
                                                                    const distributed::ProcessGroupInfo& process) {
  int numInstances = int(run.programs.size());
  KILN_ASSIGN_OR_RETURN(distributed::LocalInstances local,
                        distributed::joinRun(process, numInstances, "kiln test run_parallel"));
  std::map<std::string, std::vector<size_t>> localOf;  // function -> positions in local.instances
  for (size_t k = 0; k < local.instances.size(); ++k) localOf[run.programs[local.instances[k]]].push_back(k);
  cpu::CpuCompileOptions options;
  options.foldConstants = false;
  std::map<std::string, std::unique_ptr<cpu::CpuExecutable>> executables;
  for (const auto& [name, positions] : localOf) {
    KILN_ASSIGN_OR_RETURN(executables[name], cpu::compileForCpu(grid, name, options));
  }
  std::vector<collectives::Communicator*> all;
  for (auto& c : local.communicators) all.push_back(c.get());
  distributed::CommunicatorRendezvous rendezvous(numInstances, all);
  // The infeed queue, computed before the processes were forked, is in each
  // of them; the run's store hands out its elements in turn.
  if (!run.infeed.empty()) rendezvous.shareInfeed(std::move(run.infeed), local.store, "kiln test run_parallel/infeed");
  std::vector<std::vector<interp::Tensor>> results(local.instances.size());
  std::mutex failureMutex;
  std::optional<Status> failure;
  std::vector<std::thread> threads;
  for (const auto& [name, positions] : localOf)
    threads.emplace_back([&, &name = name, &positions = positions] {
      std::vector<int> indices;
      std::vector<std::vector<interp::Tensor>> args;
      std::vector<collectives::Communicator*> communicators;
      for (size_t k : positions) {
        indices.push_back(local.instances[k]);
        args.push_back(std::move(run.args[local.instances[k]]));
        communicators.push_back(local.communicators[k].get());
      }
      auto outcome = executables.at(name)->runSomeInstances(indices, std::move(args), communicators, rendezvous,
                                                            [&](size_t j, bool failed) {
                                                              // Closing a failed instance's connections fails
                                                              // its peers' next collective with it at once.
                                                              if (failed) local.communicators[positions[j]].reset();
                                                            });
      if (!outcome) {
        std::lock_guard<std::mutex> lock(failureMutex);
        if (!failure) failure = outcome.takeStatus();
        return;
      }
      for (size_t j = 0; j < positions.size(); ++j) results[positions[j]] = std::move((*outcome)[j]);
    });
  for (std::thread& t : threads) t.join();
  if (failure) return std::move(*failure);
  for (auto& c : local.communicators)
    if (c) KILN_RETURN_IF_ERROR(c->finishSends());
  return results;
}

// Whether an error is a peer's failure seen from here (not the root cause).
bool seenFromAPeer(const std::string& text) {
  return text.find(" failed in shared memory: ") != std::string::npos ||
         text.find(" failed over Gloo: ") != std::string::npos;
}

// run_parallel's programs on the cpu back end in gParallelProcesses
// processes of this host: a key-value store here, each process forked from
// this one (so the run needs nothing from a file), process p running the
// p-th contiguous block of instances as `kiln launch` would, its results
// coming back through a pipe. The run's infeed queue is shared by every
// program in the order they reach it, as in one process: each process has
// the whole queue (it is computed before they are forked) and the store's
// counter gives each infeed op of any process the index of the next element.
Expected<std::vector<std::vector<interp::Tensor>>> runProgramsAcrossProcesses(interp::ParallelRun run) {
  int processes = gParallelProcesses;
  int numInstances = int(run.programs.size());
  if (numInstances % processes != 0)
    return error(ErrorCode::InvalidArgument, "--processes " + std::to_string(processes) + " cannot share the run's " +
                                                 std::to_string(numInstances) + " instance(s) evenly");
  auto grid = std::make_unique<Module>(run.module->op().clone());
  grid->op().setAttr("mhlo.num_replicas", Attribute::integer(run.numReplicas, Type::si32()));
  grid->op().setAttr("mhlo.num_partitions", Attribute::integer(run.numPartitions, Type::si32()));
  auto timeout = std::chrono::milliseconds(int64_t(collectives::defaultTimeoutSeconds() * 1000));
  // The processes are forked before the key-value store starts its threads,
  // and learn its port through a pipe: a child forked while another thread
  // of this process holds a lock keeps that lock held forever. Under ASan
  // (GCC 12's runtime takes no allocator locks around fork) a child forked
  // while a store thread allocated hung at its first allocation
  // (tools/kiln-test-run-parallel-processes.test, Gloo runs).
  struct sigaction current {};
  if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL)
    ::signal(SIGPIPE, SIG_IGN);  // a child gone before reading its port fails its write, not this process
  std::vector<std::pair<pid_t, int>> children;  // pid, read end
  std::vector<int> portPipes;                   // write ends, one per child
  std::cout.flush();
  for (int p = 0; p < processes; ++p) {
    int fds[2], portFds[2];
    if (::pipe(fds) != 0) return error(ErrorCode::Internal, std::string("cannot create a pipe: ") + strerror(errno));
    if (::pipe(portFds) != 0) return error(ErrorCode::Internal, std::string("cannot create a pipe: ") + strerror(errno));
    pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid < 0) return error(ErrorCode::Internal, std::string("cannot fork: ") + strerror(errno));
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // goes when the test does (its timeout kills it)
      if (::getppid() != parent) ::_exit(1);
      ::close(fds[0]);
      ::close(portFds[1]);
      for (auto& [otherPid, otherFd] : children) ::close(otherFd);
      for (int otherPort : portPipes) ::close(otherPort);
      std::string port;
      char text[32];
      for (ssize_t n; (n = ::read(portFds[0], text, sizeof text)) != 0;)
        if (n > 0) port.append(text, size_t(n));
        else if (errno != EINTR) break;
      ::close(portFds[0]);
      if (port.empty()) {
        writeAll(fds[1], "Ethe run's key-value store did not start");
        ::_exit(0);
      }
      distributed::ProcessGroupInfo info{.processId = p, .numProcesses = processes,
                                         .coordinator = "127.0.0.1:" + port,
                                         .timeout = timeout};
      auto results = runProcessShare(run, *grid, info);
      std::string out;
      if (results) {
        out = "R";
        for (const auto& r : *results) appendTensors(out, r);
      } else {
        out = "E" + results.status().message();
      }
      writeAll(fds[1], out);
      ::_exit(0);
    }
    ::close(fds[1]);
    ::close(portFds[0]);
    children.push_back({pid, fds[0]});
    portPipes.push_back(portFds[1]);
  }
  Expected<std::unique_ptr<distributed::TcpStoreServer>> store = distributed::TcpStoreServer::start("127.0.0.1", 0);
  for (int fd : portPipes) {
    if (store) writeAll(fd, std::to_string((*store)->port()));
    ::close(fd);  // without a store: end of file, and the child reports it
  }
  // Every child's answer (each is read to its end before the next: a child
  // writes only after its collectives, so none waits for another's reader).
  std::vector<std::string> answers;
  for (auto& [pid, fd] : children) {
    std::string answer;
    char buffer[1 << 16];
    while (true) {
      ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      answer.append(buffer, size_t(n));
    }
    ::close(fd);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (answer.empty())
      answer = "Eprocess " + std::to_string(answers.size()) + " of the run " +
               (WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                    : "exited with status " + std::to_string(WEXITSTATUS(status))) +
               " without reporting";
    answers.push_back(std::move(answer));
  }
  if (!store) return Status(store.status().diag());
  std::optional<std::string> firstError, rootCause;
  for (size_t p = 0; p < answers.size(); ++p) {
    if (answers[p][0] != 'E') continue;
    std::string text = "process " + std::to_string(p) + " of " + std::to_string(processes) + ": " +
                       answers[p].substr(1);
    if (!firstError) firstError = text;
    if (!rootCause && !seenFromAPeer(text)) rootCause = text;
  }
  if (firstError) return error(ErrorCode::FailedPrecondition, rootCause ? *rootCause : *firstError);
  std::vector<std::vector<interp::Tensor>> results;
  for (const std::string& answer : answers) {
    std::string_view in(answer);
    in.remove_prefix(1);
    for (int k = 0; k < numInstances / processes; ++k) {
      KILN_ASSIGN_OR_RETURN(std::vector<interp::Tensor> tensors, readTensors(in));
      results.push_back(std::move(tensors));
    }
  }
  return results;
}

bool runsInParallel(const Module& module, const std::string& name) {
  bool found = false;
  if (Operation* fn = module.lookupFunction(name))
    fn->walk([&](Operation& op) { found |= op.name() == "interpreter.run_parallel"; });
  return found;
}

// The functions run_parallel ops name as programs: not tests of their own.
std::set<std::string> parallelPrograms(const Module& module) {
  std::set<std::string> names;
  std::function<void(const Attribute&)> collect = [&](const Attribute& a) {
    if (a.is(AttrKind::SymbolRef) && !a.symbolPath().empty()) names.insert(a.symbolPath().back());
    if (a.is(AttrKind::Array))
      for (const Attribute& element : a.arrayValue()) collect(element);
  };
  for (const Operation* fn : module.functions())
    const_cast<Operation*>(fn)->walk([&](Operation& op) {
      if (op.name() != "interpreter.run_parallel") return;
      for (const char* attr : {"programs", "infeed"})
        if (Attribute a = op.attr(attr)) collect(a);
    });
  return names;
}

Outcome runTest(const Module& module, const std::string& name, const std::string& backend) {
  // A test of run_parallel runs on the interpreter, its programs on the
  // back end under test.
  std::string harness = backend;
  if (runsInParallel(module, name)) {
    if (backend != "interpreter" && backend != kCpuBackend)
      return {Verdict::kError, "interpreter.run_parallel runs its programs on the interpreter and cpu back ends, not " +
                                   backend};
    if (backend == kCpuBackend)
      interp::setParallelRunner(gParallelProcesses > 1 ? runProgramsAcrossProcesses : runProgramsOnCpu);
    harness = "interpreter";
  }
  auto results = runOn(harness, module, name);
  if (results) return {Verdict::kPass, {}};
  const Diagnostic& diag = results.status().diag();
  if (std::optional<std::string_view> failure = interp::checkFailureText(diag))
    return {Verdict::kFail, std::string(*failure)};
  return {Verdict::kError, oneLine(diag)};
}

bool writeAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Runs tests in child processes, at most `jobs` at a time, and prints their
// result lines in the order the tests were submitted.
class TestScheduler {
 public:
  TestScheduler(int jobs, double timeoutSeconds, KnownFailures known, bool quiet)
      : jobs_(jobs), timeoutSeconds_(timeoutSeconds), known_(std::move(known)), quiet_(quiet) {}

  // Records an outcome known without running anything (a file that fails to parse).
  void report(const std::string& label, Outcome outcome) {
    complete(nextSeq_++, label, std::move(outcome));
  }

  // Runs `test` in a child process once fewer than `jobs` are running.
  void start(const std::string& label, const std::function<Outcome()>& test) {
    while (running_.size() >= static_cast<size_t>(jobs_)) pollChildren();
    size_t seq = nextSeq_++;
    int fds[2];
    if (pipe(fds) != 0) {
      complete(seq, label, {Verdict::kError, std::string("cannot create a pipe: ") + strerror(errno)});
      return;
    }
    std::cout.flush();  // or the child would print the parent's buffered lines again
    pid_t pid = fork();
    if (pid < 0) {
      close(fds[0]);
      close(fds[1]);
      complete(seq, label, {Verdict::kError, std::string("cannot fork: ") + strerror(errno)});
      return;
    }
    if (pid == 0) {
      close(fds[0]);
      runChild(fds[1], test);
    }
    close(fds[1]);
    Child child{pid, fds[0], seq, label, {}, Clock::now()};
    running_.push_back(std::move(child));
  }

  // Waits for every running test.
  void finish() {
    while (!running_.empty()) pollChildren();
  }

  int passed() const { return passed_; }
  int failed() const { return failed_; }
  int knownFailures() const { return xfailed_; }

 private:
  using Clock = std::chrono::steady_clock;

  struct Child {
    pid_t pid;
    int fd;  // read end of the pipe carrying the child's Outcome
    size_t seq;
    std::string label;
    std::string message;  // what the child wrote so far
    Clock::time_point started;
  };

  // In the child: runs the test and sends its outcome, encoded as the
  // verdict character followed by the detail text.
  [[noreturn]] static void runChild(int fd, const std::function<Outcome()>& test) {
    dup2(STDERR_FILENO, STDOUT_FILENO);  // stray prints must not mix with result lines
    Outcome outcome = test();
    std::string message = static_cast<char>(outcome.verdict) + outcome.detail;
    _exit(writeAll(fd, message) ? 0 : 1);
  }

  // Waits until some child has data, ended or timed out, and handles it.
  void pollChildren() {
    std::vector<pollfd> fds;
    for (const Child& c : running_) fds.push_back({c.fd, POLLIN, 0});
    int rc = poll(fds.data(), fds.size(), pollTimeoutMs());
    if (rc < 0 && errno != EINTR) {
      std::cerr << "kiln test: poll failed: " << strerror(errno) << "\n";
      return;
    }
    Clock::time_point now = Clock::now();
    for (size_t i = fds.size(); i-- > 0;) {
      Child& c = running_[i];
      if (fds[i].revents != 0 && !readFromChild(c)) {
        finishChild(i, std::nullopt);
      } else if (timeoutSeconds_ > 0 &&
                 std::chrono::duration<double>(now - c.started).count() >= timeoutSeconds_) {
        kill(c.pid, SIGKILL);
        finishChild(i, Outcome{Verdict::kError, "timed out after " + formatSeconds() + " s"});
      }
    }
  }

  // Milliseconds until the earliest deadline (-1: wait without limit).
  int pollTimeoutMs() const {
    if (timeoutSeconds_ <= 0) return -1;
    double earliest = timeoutSeconds_;
    Clock::time_point now = Clock::now();
    for (const Child& c : running_)
      earliest = std::min(earliest, timeoutSeconds_ - std::chrono::duration<double>(now - c.started).count());
    // At most a day per poll: a limit of any size (--timeout 1e12) stays an int.
    return std::max(0, static_cast<int>(std::min(earliest, 86400.0) * 1000) + 1);
  }

  // Reads what the child sent; false at end of stream.
  static bool readFromChild(Child& c) {
    char buf[4096];
    ssize_t n = read(c.fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) return true;
    if (n <= 0) return false;
    c.message.append(buf, static_cast<size_t>(n));
    return true;
  }

  // Reaps child `i` and records its outcome: `forced` when the parent
  // decided it (a timeout), otherwise what the child sent or how it died.
  void finishChild(size_t i, std::optional<Outcome> forced) {
    Child c = std::move(running_[i]);
    running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(i));
    close(c.fd);
    int status = 0;
    while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
    }
    complete(c.seq, c.label, forced ? *forced : outcomeOf(c.message, status));
  }

  static Outcome outcomeOf(const std::string& message, int status) {
    bool exitedCleanly = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (exitedCleanly && !message.empty()) {
      Verdict v = static_cast<Verdict>(message[0]);
      if (v == Verdict::kPass || v == Verdict::kFail || v == Verdict::kError)
        return {v, message.substr(1)};
    }
    if (WIFSIGNALED(status)) {
      int sig = WTERMSIG(status);
      return {Verdict::kError,
              "crashed (signal " + std::to_string(sig) + ": " + strsignal(sig) + ")"};
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
      return {Verdict::kError, "exited with status " + std::to_string(WEXITSTATUS(status))};
    return {Verdict::kError, "ended without reporting a result"};
  }

  std::string formatSeconds() const {
    std::string s = std::to_string(timeoutSeconds_);
    s.erase(s.find_last_not_of('0') + 1);
    if (s.ends_with('.')) s.pop_back();
    return s;
  }

  // Records the outcome of test `seq` and prints every line that is now due.
  void complete(size_t seq, const std::string& label, Outcome outcome) {
    auto known = known_.find(label);
    bool pass = outcome.verdict == Verdict::kPass;
    std::string line;
    if (known == known_.end()) {
      (pass ? passed_ : failed_) += 1;
      if (!pass || !quiet_) line = resultLine(label, outcome);
    } else if (pass) {
      failed_ += 1;
      line = "XPASS " + label + ": passes but is listed as a known failure (" + known->second + ")";
    } else {
      xfailed_ += 1;
      if (!quiet_) line = "XFAIL " + label + ": " + known->second;
    }
    done_[seq] = std::move(line);
    for (auto it = done_.find(nextToPrint_); it != done_.end(); it = done_.find(nextToPrint_)) {
      if (!it->second.empty()) std::cout << it->second << std::endl;
      done_.erase(it);
      ++nextToPrint_;
    }
  }

  int jobs_;
  double timeoutSeconds_;
  std::vector<Child> running_;
  std::map<size_t, std::string> done_;  // result lines waiting for earlier tests
  size_t nextSeq_ = 0, nextToPrint_ = 0;
  KnownFailures known_;
  bool quiet_;
  int passed_ = 0, failed_ = 0, xfailed_ = 0;
};

// `path`, or the .mlir files under it when it is a directory, sorted.
std::vector<std::string> expandTestPath(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return {path};
  std::vector<std::string> files;
  for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ".mlir") files.push_back(it->path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// Submits the tests of one file.
void scheduleFile(const std::string& path, const std::string& backend, TestScheduler& scheduler) {
  Expected<std::string> text = readSourceText(path);
  if (!text) {
    scheduler.report(path, {Verdict::kError, text.status().diag().message});
    return;
  }
  int tests = 0;
  bool brokenPart = false;
  for (const SourceChunk& chunk : splitInputFile(*text)) {
    Expected<std::unique_ptr<Module>> loaded = loadModule(chunk.text, path);
    if (!loaded) {
      scheduler.report(path, {Verdict::kError, oneLine(loaded.status().diag())});
      brokenPart = true;
      continue;
    }
    std::shared_ptr<const Module> module = std::move(*loaded);
    std::set<std::string> programs = parallelPrograms(*module);
    for (const Operation* fn : module->functions()) {
      if (!func::isPublic(*fn) || !func::type(*fn).inputs().empty()) continue;
      std::string name(func::name(*fn));
      if (programs.count(name)) continue;
      scheduler.start(path + ":" + name, [module, name, &backend] { return runTest(*module, name, backend); });
      ++tests;
    }
  }
  if (tests == 0 && !brokenPart)
    std::cerr << "kiln test: warning: " << path
              << " has no tests (public functions without arguments)\n";
}

}  // namespace

void printTestHelp() { printCommandHelp(kKilnTest, kTestUsage); }

int testCommand(std::span<const std::string> args) {
  Expected<ParsedFlags> parsed = parseFlags(kKilnTest, args, environmentFlags());
  if (!parsed) return usageError("test", parsed.status().diag().message);
  if (std::optional<int> exit = helpOrVersion(*parsed, printTestHelp)) return *exit;
  std::string backend(kCpuBackend), timeoutText;
  std::vector<std::string> xfailPaths;
  int jobs = ThreadPool::defaultSize();
  bool quiet = false;
  for (const FlagValue& f : parsed->flags) {
    if (f.is("--help") || f.is("--version")) continue;
    if (f.is("--quiet")) quiet = f.on();
    else if (f.is("--jobs")) jobs = static_cast<int>(f.number);
    else if (f.is("--timeout")) timeoutText = f.text;
    else if (f.is("--backend")) backend = f.text;
    else if (f.is("--xfail")) xfailPaths.push_back(f.text);
    else if (f.is("--processes")) gParallelProcesses = static_cast<int>(f.number);
    else return usageError("test", "internal error: " + std::string(f.spec->name) + " is not handled");
  }
  std::vector<std::string> files;
  for (const std::string& path : parsed->positionals)
    for (std::string& file : expandTestPath(path)) files.push_back(std::move(file));
  if (files.empty()) return usageError("test", "no test FILE");
  if (gParallelProcesses > 1 && backend != kCpuBackend)
    return usageError("test", "--processes runs interpreter.run_parallel's programs on the cpu back end, not " +
                                  backend);
  Expected<const backend::Backend*> target = backend::findBackend(backend);
  if (!target) return usageError("test", target.status().diag().message);
  // Asked here, once, rather than by every test: the cuda back end's answer
  // loads the driver without initializing it (the tests run in forked children).
  if (Status here = (*target)->available(); !here.isOk()) {
    std::cerr << "kiln test: " << here.diag().str() << "\n";
    return kExitFailure;
  }

  // --timeout, else $KILN_TEST_TIMEOUT_S, else 60 s.
  double timeout = kDefaultTimeoutSeconds;
  std::string timeoutSource = "--timeout";
  if (timeoutText.empty())
    if (const char* env = std::getenv("KILN_TEST_TIMEOUT_S"); env && *env)
      timeoutText = env, timeoutSource = "KILN_TEST_TIMEOUT_S";
  if (!timeoutText.empty()) {
    char* end = nullptr;
    timeout = std::strtod(timeoutText.c_str(), &end);
    if (end == timeoutText.c_str() || *end != '\0' || !(timeout >= 0))
      return usageError("test", timeoutSource + " needs a number of seconds (0 = no limit), got '" +
                                    timeoutText + "'");
  }

  KnownFailures known;
  for (const std::string& path : xfailPaths) {
    Expected<KnownFailures> read = readKnownFailures(path);
    if (!read) return usageError("test", read.status().diag().message);
    known.merge(*read);  // a label listed twice keeps its first reason
  }
  TestScheduler scheduler(jobs, timeout, std::move(known), quiet);
  for (const std::string& file : files) scheduleFile(file, backend, scheduler);
  scheduler.finish();
  if (scheduler.knownFailures())
    std::cout << scheduler.knownFailures() << " known failures (not counted)" << std::endl;
  std::cout << scheduler.passed() << " passed, " << scheduler.failed() << " failed" << std::endl;
  return scheduler.failed() == 0 ? kExitSuccess : kExitFailure;
}

}  // namespace kiln::tool
