// `kiln launch`: starts the processes of a multi-process run on this host,
// serves the key-value store they meet at, prefixes their output with their
// process id, and stops them all when one fails.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <iostream>

#include "kiln/distributed/tcp_store.h"
#include "kiln/tools/kiln_commands.h"

namespace kiln::tool {
namespace {

constexpr std::string_view kLaunchUsage = R"(usage: kiln launch -n N [--port N] -- COMMAND [ARGS...]

Starts N processes of COMMAND on this host, as one run: process i gets
  KILN_PROCESS_ID=i  KILN_NUM_PROCESSES=N  KILN_COORDINATOR=127.0.0.1:PORT
(the key-value store this launcher serves, where the processes meet to
connect over Gloo). Each line a process prints comes out prefixed with
"[i] ", on stdout or stderr as it was printed. When a process fails, the
others are stopped and kiln launch exits with status 1; when all succeed, 0.

  kiln launch -n 2 -- kiln run prog.mlir --input x.npy

runs a program that declares 2 replicas or partitions (mhlo.num_replicas,
mhlo.num_partitions) as two processes, instance i in process i, with their
collectives over Gloo (docs/distributed.md).
)";

constexpr std::string_view kLaunchFooter = R"(KILN_COLLECTIVE_TIMEOUT_S (seconds, default 300) bounds how long a process waits
for the others at start-up and in each collective before it fails.
)";

// A started process and the output it has not finished a line of.
struct Child {
  int id;
  pid_t pid = -1;
  int stdoutFd = -1, stderrFd = -1;
  std::string stdoutPartial, stderrPartial;
  bool exited = false;
  int status = 0;  // as waitpid gives it
};

volatile std::sig_atomic_t interrupted = 0;
void onInterrupt(int) { interrupted = 1; }

// Writes every complete line of `partial` + `data` to `out` with the child's
// prefix, keeping the unfinished rest (all of it when `flush`).
void emitLines(int id, std::string& partial, std::string_view data, std::ostream& out, bool flush) {
  partial += data;
  size_t start = 0;
  for (size_t nl; (nl = partial.find('\n', start)) != std::string::npos; start = nl + 1)
    out << '[' << id << "] " << std::string_view(partial).substr(start, nl + 1 - start);
  partial.erase(0, start);
  if (flush && !partial.empty()) {
    out << '[' << id << "] " << partial << '\n';
    partial.clear();
  }
  out.flush();
}

Expected<Child> startChild(int id, int count, const std::string& coordinator,
                           const std::vector<std::string>& command) {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
    return error(std::string("pipe: ") + std::strerror(errno));
  // Everything the child needs is made before the fork: the launcher has
  // threads (the key-value store's), and a child forked while one of them
  // holds a lock (an allocator's: ASan's runtime takes none around fork)
  // would wait on it forever at its first allocation. Between fork and exec
  // the child allocates nothing.
  std::vector<std::string> ownVariables = {"KILN_PROCESS_ID=" + std::to_string(id),
                                           "KILN_NUM_PROCESSES=" + std::to_string(count),
                                           "KILN_COORDINATOR=" + coordinator};
  std::vector<char*> envp;
  for (char** e = environ; *e; ++e) {
    std::string_view entry(*e);
    bool replaced = std::any_of(ownVariables.begin(), ownVariables.end(), [&](const std::string& own) {
      return entry.substr(0, entry.find('=') + 1) == std::string_view(own).substr(0, own.find('=') + 1);
    });
    if (!replaced) envp.push_back(*e);
  }
  for (std::string& own : ownVariables) envp.push_back(own.data());
  envp.push_back(nullptr);
  std::vector<char*> argv;
  for (const std::string& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  const std::string cannotRun = "kiln launch: cannot run '" + command[0] + "': ";
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) return error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // The child leads a process group of its own, so that stopping it stops
    // whatever it started too; and it goes when the launcher does, however
    // the launcher ends (even by SIGKILL).
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(1);  // the launcher went before prctl
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    ::execvpe(argv[0], argv.data(), envp.data());
    const char* reason = std::strerror(errno);
    (void)!::write(STDERR_FILENO, cannotRun.data(), cannotRun.size());
    (void)!::write(STDERR_FILENO, reason, std::strlen(reason));
    (void)!::write(STDERR_FILENO, "\n", 1);
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, so that it holds before we might signal it
  ::close(out[1]);
  ::close(err[1]);
  Child child{id};
  child.pid = pid;
  child.stdoutFd = out[0];
  child.stderrFd = err[0];
  return child;
}

std::string describeStatus(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("was killed by signal ") + strsignal(WTERMSIG(status));
  return "stopped";
}

bool failed(int status) { return !WIFEXITED(status) || WEXITSTATUS(status) != 0; }

// Runs the children to the end; returns the launcher's exit status.
int supervise(std::vector<Child>& children) {
  using Clock = std::chrono::steady_clock;
  // After a failure the others get a moment to report their own errors (a
  // failure usually fails its peers at once), then SIGTERM, then SIGKILL.
  constexpr auto kReportGrace = std::chrono::seconds(2);
  constexpr auto kTermGrace = std::chrono::seconds(3);
  std::optional<Clock::time_point> stopAt;  // when to send SIGTERM
  bool termSent = false;
  std::string firstFailure;
  auto stopOthers = [&](int signal) {
    for (Child& c : children)
      if (!c.exited) ::kill(-c.pid, signal);
  };
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<std::pair<Child*, bool>> owners;  // (child, is stdout)
    for (Child& c : children) {
      if (c.stdoutFd >= 0) fds.push_back({c.stdoutFd, POLLIN, 0}), owners.push_back({&c, true});
      if (c.stderrFd >= 0) fds.push_back({c.stderrFd, POLLIN, 0}), owners.push_back({&c, false});
    }
    bool allExited = std::ranges::all_of(children, [](const Child& c) { return c.exited; });
    if (fds.empty() && allExited) break;
    ::poll(fds.data(), fds.size(), 100);
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      auto [child, isStdout] = owners[i];
      char buffer[65536];
      ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      std::ostream& out = isStdout ? std::cout : std::cerr;
      std::string& partial = isStdout ? child->stdoutPartial : child->stderrPartial;
      if (n > 0) {
        emitLines(child->id, partial, std::string_view(buffer, size_t(n)), out, false);
        continue;
      }
      emitLines(child->id, partial, "", out, true);
      ::close(fds[i].fd);
      (isStdout ? child->stdoutFd : child->stderrFd) = -1;
    }
    for (Child& c : children) {
      if (c.exited || ::waitpid(c.pid, &c.status, WNOHANG) != c.pid) continue;
      c.exited = true;
      if (failed(c.status) && firstFailure.empty()) {
        firstFailure = "process " + std::to_string(c.id) + " " + describeStatus(c.status);
        bool othersRunning = std::ranges::any_of(children, [](const Child& o) { return !o.exited; });
        std::cerr << "kiln launch: " << firstFailure << (othersRunning ? "; stopping the others" : "") << "\n";
        stopAt = Clock::now() + kReportGrace;
      }
    }
    if (interrupted && !termSent) {
      if (firstFailure.empty()) firstFailure = "interrupted";
      std::cerr << "kiln launch: interrupted; stopping the processes\n";
      stopAt = Clock::now();
    }
    if (stopAt && !termSent && Clock::now() >= *stopAt) {
      stopOthers(SIGTERM);
      termSent = true;
    }
    if (termSent && Clock::now() >= *stopAt + kTermGrace) stopOthers(SIGKILL);
  }
  if (firstFailure.empty()) return kExitSuccess;
  std::cerr << "kiln launch: failed: " << firstFailure << "\n";
  return kExitFailure;
}

}  // namespace

void printLaunchHelp() { printCommandHelp(kKilnLaunch, kLaunchUsage, kLaunchFooter); }

int launchCommand(std::span<const std::string> args) {
  // The words after "--" are the command, not options of ours.
  auto dashes = std::ranges::find(args, "--");
  std::span<const std::string> own(args.begin(), dashes);
  std::vector<std::string> command(dashes == args.end() ? dashes : dashes + 1, args.end());
  Expected<ParsedFlags> parsed = parseFlags(kKilnLaunch, own, environmentFlags());
  if (!parsed) return usageError("launch", parsed.status().diag().message);
  if (std::optional<int> exit = helpOrVersion(*parsed, printLaunchHelp)) return *exit;
  if (!parsed->positionals.empty())
    return usageError("launch", "put the command after '--' (kiln launch -n N -- " + parsed->positionals[0] + " ...)");
  if (command.empty()) return usageError("launch", "no command to start (kiln launch -n N -- COMMAND [ARGS...])");
  const FlagValue* count = parsed->last("--num-processes");
  if (!count) return usageError("launch", "how many processes? give -n N");
  const FlagValue* port = parsed->last("--port");
  const std::string address = "127.0.0.1";  // the processes run on this host

  Expected<std::unique_ptr<distributed::TcpStoreServer>> store =
      distributed::TcpStoreServer::start(address, port ? int(port->number) : 0);
  if (!store) {
    std::cerr << "kiln launch: " << store.status().diag().message << "\n";
    return kExitFailure;
  }
  std::string coordinator = address + ":" + std::to_string((*store)->port());
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);

  std::vector<Child> children;
  for (int i = 0; i < int(count->number); ++i) {
    Expected<Child> child = startChild(i, int(count->number), coordinator, command);
    if (!child) {
      std::cerr << "kiln launch: " << child.status().diag().message << "\n";
      for (Child& c : children) ::kill(-c.pid, SIGKILL);
      return kExitFailure;
    }
    children.push_back(std::move(*child));
  }
  return supervise(children);
}

}  // namespace kiln::tool
