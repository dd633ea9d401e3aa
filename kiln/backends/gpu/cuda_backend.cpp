// The cuda back end's runtime: a device's context, streams and pinned
// staging; a program's device regions, modules and launches (see
// cuda_backend.h and cuda_plan.h).
//
// A run: the arguments (host tensors) are copied into pinned staging and
// uploaded on the device's transfer stream; the compute stream waits for
// that upload (an event), launches every kernel in schedule order (the host
// choosing the trips and branches of while/if/case: runSteps), and the
// transfer stream waits for the compute stream (another event) before it
// downloads the results into staging, from where they are copied into new
// host tensors. Values stay on the device only within a run: the runtime's
// buffers are host memory (device-resident buffers are a later step).
#include "kiln/backends/gpu/cuda_backend.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <vector>

#include "kiln/backends/gpu/cublaslt.h"
#include "kiln/backends/gpu/cuda_driver.h"
#include "kiln/backends/gpu/cuda_plan.h"
#include "kiln/backends/gpu/cusolver.h"
#include "kiln/backends/tensor_program.h"
#include "kiln/interp/evaluate_op.h"
#include "kiln/interp/host_buffers.h"
#include "kiln/ir/printer.h"

namespace kiln::gpu {
namespace {

// One CUDA device as the back end uses it: its primary context, one stream
// for kernels and one for host transfers, and pinned host staging. One run
// at a time holds `mutex` (the streams and staging are shared by programs).
class CudaDevice {
 public:
  // Device `ordinal`, set up on first use; the driver's errors otherwise.
  static Expected<CudaDevice*> get(int ordinal) {
    static std::mutex devicesMutex;
    static std::map<int, std::unique_ptr<CudaDevice>> devices;
    std::lock_guard lock(devicesMutex);
    if (auto found = devices.find(ordinal); found != devices.end()) return found->second.get();
    KILN_ASSIGN_OR_RETURN(const CudaDriver* d, cudaDriver());
    int count = 0;
    KILN_RETURN_IF_ERROR(d->check(d->deviceGetCount(&count), "cuDeviceGetCount"));
    if (ordinal >= count)
      return error(ErrorCode::FailedPrecondition, "no CUDA device " + std::to_string(ordinal) + " (the driver sees " +
                                                      std::to_string(count) + ")");
    auto device = std::unique_ptr<CudaDevice>(new CudaDevice(*d));
    CUdevice handle = 0;
    KILN_RETURN_IF_ERROR(d->check(d->deviceGet(&handle, ordinal), "cuDeviceGet"));
    char name[256] = {};
    KILN_RETURN_IF_ERROR(d->check(d->deviceGetName(name, sizeof(name) - 1, handle), "cuDeviceGetName"));
    device->name = name;
    int major = 0, minor = 0;
    KILN_RETURN_IF_ERROR(d->check(d->deviceGetAttribute(&major, kAttributeComputeCapabilityMajor, handle),
                                  "cuDeviceGetAttribute"));
    KILN_RETURN_IF_ERROR(d->check(d->deviceGetAttribute(&minor, kAttributeComputeCapabilityMinor, handle),
                                  "cuDeviceGetAttribute"));
    KILN_ASSIGN_OR_RETURN(device->arch, cudaArchFor(major, minor));
    KILN_RETURN_IF_ERROR(d->check(d->devicePrimaryCtxRetain(&device->context, handle), "cuDevicePrimaryCtxRetain"));
    KILN_RETURN_IF_ERROR(device->makeCurrent());
    KILN_RETURN_IF_ERROR(d->check(d->streamCreate(&device->compute, kStreamNonBlocking), "cuStreamCreate"));
    KILN_RETURN_IF_ERROR(d->check(d->streamCreate(&device->transfer, kStreamNonBlocking), "cuStreamCreate"));
    return (devices[ordinal] = std::move(device)).get();
  }

  Status makeCurrent() const { return driver.check(driver.ctxSetCurrent(context), "cuCtxSetCurrent"); }

  // The device's cuBLASLt handle, made on first use (the caller holds
  // `mutex`, the context current); the error says why there is none.
  Expected<std::pair<const CublasLt*, CublasLtHandle>> cublasLtHandle() {
    Expected<const CublasLt*> lt = cublasLt();
    if (!lt) return error(ErrorCode::FailedPrecondition, "the cuda back end runs dots through cuBLASLt: " +
                                                             lt.status().diag().message);
    if (!lightHandle_) KILN_RETURN_IF_ERROR((*lt)->check((*lt)->create(&lightHandle_), "cublasLtCreate"));
    return std::pair{*lt, lightHandle_};
  }

  // The device's cuSOLVER handle (its work on the compute stream) and
  // options, made on first use (the caller holds `mutex`, the context
  // current); the error says why there are none.
  struct SolverHandle {
    const Cusolver* library;
    CusolverDnHandle handle;
    CusolverDnParams params;
    SyevjInfo syevj;    // the batched Jacobi routines' options: cuSOLVER's defaults
    GesvdjInfo gesvdj;
  };
  Expected<SolverHandle> cusolverHandle() {
    Expected<const Cusolver*> s = cusolverLibrary();
    if (!s) return error(ErrorCode::FailedPrecondition, "the cuda back end runs LAPACK's syevd and gesdd through cuSOLVER: " +
                                                            s.status().diag().message);
    if (!solverHandle_) {
      KILN_RETURN_IF_ERROR((*s)->check((*s)->create(&solverHandle_), "cusolverDnCreate"));
      KILN_RETURN_IF_ERROR((*s)->check((*s)->setStream(solverHandle_, compute), "cusolverDnSetStream"));
      KILN_RETURN_IF_ERROR((*s)->check((*s)->createParams(&solverParams_), "cusolverDnCreateParams"));
    }
    if (!syevjInfo_) KILN_RETURN_IF_ERROR((*s)->check((*s)->createSyevjInfo(&syevjInfo_), "cusolverDnCreateSyevjInfo"));
    if (!gesvdjInfo_)
      KILN_RETURN_IF_ERROR((*s)->check((*s)->createGesvdjInfo(&gesvdjInfo_), "cusolverDnCreateGesvdjInfo"));
    return SolverHandle{*s, solverHandle_, solverParams_, syevjInfo_, gesvdjInfo_};
  }

  // At least `bytes` of pinned host memory, grown as needed (the caller
  // holds `mutex`; transfers only use staging on the transfer stream, which
  // is drained before the old staging is freed).
  Expected<uint8_t*> staging(int64_t bytes) {
    if (bytes > stagingBytes_) {
      KILN_RETURN_IF_ERROR(driver.check(driver.streamSynchronize(transfer), "cuStreamSynchronize"));
      if (staging_) KILN_RETURN_IF_ERROR(driver.check(driver.memFreeHost(staging_), "cuMemFreeHost"));
      staging_ = nullptr;
      stagingBytes_ = 0;
      KILN_RETURN_IF_ERROR(driver.check(driver.memAllocHost(&staging_, bytes), "cuMemAllocHost"));
      stagingBytes_ = bytes;
    }
    return static_cast<uint8_t*>(staging_);
  }

  const CudaDriver& driver;
  std::string name;  // "NVIDIA H100 80GB HBM3"
  std::string arch;  // the PTX target
  CUcontext context = nullptr;
  CUstream compute = nullptr, transfer = nullptr;
  std::mutex mutex;

 private:
  explicit CudaDevice(const CudaDriver& d) : driver(d) {}
  void* staging_ = nullptr;
  int64_t stagingBytes_ = 0;
  CublasLtHandle lightHandle_ = nullptr;
  CusolverDnHandle solverHandle_ = nullptr;
  CusolverDnParams solverParams_ = nullptr;
  SyevjInfo syevjInfo_ = nullptr;
  GesvdjInfo gesvdjInfo_ = nullptr;
};

// The most workspace a matmul's algorithm may ask for (cuBLAS's own
// guidance for Hopper is 32 MiB).
constexpr size_t kMatmulWorkspaceBytes = size_t{32} << 20;

// KILN_CUDA_SYNC=1: synchronize after every launch, so a failing kernel is
// named (else a fault shows at the run's next synchronization).
bool syncEachLaunch() {
  const char* value = std::getenv("KILN_CUDA_SYNC");
  return value && std::string_view(value) == "1";
}

class CudaProgram final : public backend::TensorProgram {
 public:
  CudaProgram(CudaPlan plan, CudaDevice& device) : plan_(std::move(plan)), device_(device) {
    text_ = printModule(*plan_.lowered);
  }

  ~CudaProgram() override {
    const CudaDriver& d = device_.driver;
    std::lock_guard lock(device_.mutex);
    if (!device_.makeCurrent().isOk()) return;
    for (CUmodule m : modules_) (void)d.moduleUnload(m);
    for (CUdeviceptr p : allocations_) (void)d.memFree(p);
    for (CUevent e : {uploaded_, computed_})
      if (e) (void)d.eventDestroy(e);
  }

  // Loads every kernel's PTX (the driver compiles it for the device),
  // allocates the regions and uploads the constants.
  Status load() {
    const CudaDriver& d = device_.driver;
    std::lock_guard lock(device_.mutex);
    KILN_RETURN_IF_ERROR(device_.makeCurrent());
    for (const CudaKernel& kernel : plan_.kernels) {
      char log[8192] = {};
      int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSizeBytes};
      void* values[] = {log, reinterpret_cast<void*>(sizeof(log) - 1)};
      CUmodule module = nullptr;
      Status loaded = d.check(d.moduleLoadDataEx(&module, kernel.ptx.front().second.c_str(), 2, options, values),
                              "cuModuleLoadDataEx");
      if (!loaded.isOk())
        return error(loaded.diag().message + " loading kernel " + kernel.name + " of " + kernel.source + ": " + log);
      modules_.push_back(module);
      CUfunction function = nullptr;
      KILN_RETURN_IF_ERROR(d.check(d.moduleGetFunction(&function, module, kernel.name.c_str()), "cuModuleGetFunction"));
      functions_.push_back(function);
    }
    KILN_ASSIGN_OR_RETURN(regions_.parameters, allocate(plan_.parameterBytes, "parameters"));
    KILN_ASSIGN_OR_RETURN(regions_.arena, allocate(plan_.arenaBytes, "arena"));
    KILN_ASSIGN_OR_RETURN(regions_.constants, allocate(static_cast<int64_t>(plan_.constants.size()), "constants"));
    KILN_RETURN_IF_ERROR(d.check(d.eventCreate(&uploaded_, kEventDisableTiming), "cuEventCreate"));
    KILN_RETURN_IF_ERROR(d.check(d.eventCreate(&computed_, kEventDisableTiming), "cuEventCreate"));
    KILN_RETURN_IF_ERROR(prepareMatmuls());
    KILN_RETURN_IF_ERROR(prepareSolvers());
    if (plan_.constants.empty()) return Status::ok();
    KILN_ASSIGN_OR_RETURN(uint8_t* staging, device_.staging(static_cast<int64_t>(plan_.constants.size())));
    std::memcpy(staging, plan_.constants.data(), plan_.constants.size());
    KILN_RETURN_IF_ERROR(d.check(
        d.memcpyHtoDAsync(regions_.constants, staging, plan_.constants.size(), device_.transfer), "cuMemcpyHtoDAsync"));
    return d.check(d.streamSynchronize(device_.transfer), "cuStreamSynchronize");
  }

  backend::Instances instances() const override { return {}; }
  const std::string& optimizedModuleText() const override { return text_; }
  backend::CompileStats stats() const override {
    backend::CompileStats s;
    s.kernels = static_cast<int>(plan_.kernels.size());
    return s;
  }
  bool mayRunInline() const override { return false; }

 protected:
  Expected<std::vector<interp::Tensor>> runTensors(std::vector<interp::Tensor> args) const override {
    std::lock_guard lock(device_.mutex);
    Expected<std::vector<interp::Tensor>> results = runLocked(args);
    if (results) return results;
    Status failed = results.takeStatus();
    failed.diag().message = "running @" + plan_.entry + " on cuda (" + device_.name + "): " + failed.diag().message;
    return failed;
  }

  Expected<std::vector<std::vector<interp::Tensor>>> runTensorInstances(
      std::vector<std::vector<interp::Tensor>> argsPerInstance) const override {
    if (argsPerInstance.size() != 1)
      return error(ErrorCode::Unimplemented, "the cuda back end runs one instance");
    KILN_ASSIGN_OR_RETURN(std::vector<interp::Tensor> results, runTensors(std::move(argsPerInstance.front())));
    std::vector<std::vector<interp::Tensor>> all;
    all.push_back(std::move(results));
    return all;
  }

 private:
  // Each matmul's descriptors and cuBLASLt's choice of algorithm, the bias
  // pointers (the regions are allocated by now) and one workspace for the
  // largest choice.
  Status prepareMatmuls() {
    if (plan_.matmuls.empty()) return Status::ok();
    KILN_ASSIGN_OR_RETURN(auto library, device_.cublasLtHandle());
    auto [lt, handle] = library;
    CublasLtMatmulPreference preference = nullptr;
    KILN_RETURN_IF_ERROR(lt->check(lt->matmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate"));
    std::unique_ptr<void, std::function<void(void*)>> destroyPreference(
        preference, [lt](void* p) { (void)lt->matmulPreferenceDestroy(static_cast<CublasLtMatmulPreference>(p)); });
    uint64_t limit = kMatmulWorkspaceBytes;
    KILN_RETURN_IF_ERROR(lt->check(lt->matmulPreferenceSetAttribute(preference, cublaslt::kPrefMaxWorkspaceBytes,
                                                                    &limit, sizeof(limit)),
                                   "cublasLtMatmulPreferenceSetAttribute"));
    size_t workspace = 0;
    for (const MatmulCall* call : matmulCalls(plan_)) {  // in the order of plan_.matmuls
      const CudaMatmul& matmul = plan_.matmuls[call->matmul];
      auto located = [&](const Status& s) {
        return error(s.diag().message + " for " + matmul.source + " (cuBLASLt " + matmul.plan.str() + ")");
      };
      Expected<std::unique_ptr<MatmulDescriptors>> made = MatmulDescriptors::make(*lt, matmul.plan);
      if (!made) return located(made.status());
      if (call->bias) {
        Status biased = (*made)->setBias(deviceAddress(*call->bias, regions_));
        if (!biased.isOk()) return located(biased);
      }
      CublasLtHeuristicResult chosen{};
      int found = 0;
      Status asked = lt->check(lt->matmulAlgoGetHeuristic(handle, (*made)->desc, (*made)->a, (*made)->b, (*made)->d,
                                                          (*made)->d, preference, 1, &chosen, &found),
                               "cublasLtMatmulAlgoGetHeuristic");
      if (!asked.isOk()) return located(asked);
      if (found == 0) return located(error("cuBLASLt has no algorithm"));
      workspace = std::max(workspace, chosen.workspaceSize);
      matmulAlgos_.push_back(chosen.algo);
      matmulDescriptors_.push_back(std::move(*made));
    }
    KILN_ASSIGN_OR_RETURN(workspace_, allocate(int64_t(workspace), "cuBLASLt workspace"));
    workspaceBytes_ = workspace;
    matmulLibrary_ = lt;
    matmulHandle_ = handle;
    return Status::ok();
  }

  // D = epilogue(alpha op(A) op(B) + bias) on the compute stream (beta 0:
  // C is D, never read).
  Status runMatmul(const MatmulCall& call, bool sync) const {
    const CudaMatmul& matmul = plan_.matmuls[call.matmul];
    const MatmulDescriptors& m = *matmulDescriptors_[call.matmul];
    const CublasLt& lt = *matmulLibrary_;
    float alpha32 = float(matmul.plan.alpha), beta32 = 0;
    double alpha64 = matmul.plan.alpha, beta64 = 0;
    bool f64 = matmul.plan.computeType == TypeKind::F64;
    auto* d = reinterpret_cast<void*>(deviceAddress(call.d, regions_));
    Status ran = lt.check(lt.matmul(matmulHandle_, m.desc, f64 ? static_cast<const void*>(&alpha64) : &alpha32,
                                    reinterpret_cast<const void*>(deviceAddress(call.a, regions_)), m.a,
                                    reinterpret_cast<const void*>(deviceAddress(call.b, regions_)), m.b,
                                    f64 ? static_cast<const void*>(&beta64) : &beta32, d, m.d, d, m.d,
                                    &matmulAlgos_[call.matmul], reinterpret_cast<void*>(workspace_), workspaceBytes_,
                                    device_.compute),
                          "cublasLtMatmul");
    if (ran.isOk() && sync)
      ran = device_.driver.check(device_.driver.streamSynchronize(device_.compute), "cuStreamSynchronize");
    if (!ran.isOk()) return error(matmul.source + " (cuBLASLt " + matmul.plan.str() + "): " + ran.diag().message);
    return Status::ok();
  }

  // The pointers of matrix `b` of a solver call: its copy of a, then its
  // results' (syevd: W, w, info; gesvd: s, U, VT, info).
  struct SolverPointers {
    void* a;
    std::vector<void*> results;
  };
  SolverPointers solverPointers(const SolverCall& call, int64_t b) const {
    const SolverProblem& p = call.problem;
    int64_t element = p.element.storageBytes(), real = p.element.isComplex() ? element / 2 : element;
    int64_t k = std::min(p.rows, p.cols);
    auto at = [&](const DeviceSlot& slot, int64_t offset) {
      return reinterpret_cast<void*>(deviceAddress(slot, regions_) + uint64_t(offset));
    };
    SolverPointers ptrs{at(call.work, b * p.rows * p.cols * element), {}};
    if (p.eigen()) {
      ptrs.results = {ptrs.a, at(call.results[1], b * p.rows * real), at(call.results[2], b * 4)};
      return ptrs;
    }
    if (p.routine == SolverProblem::Routine::GesvdjBatched) {  // all of U (rows x rows) and V (cols x cols)
      ptrs.results = {at(call.results[0], b * k * real), at(call.results[1], b * p.rows * p.rows * element),
                      at(call.results[2], b * p.cols * p.cols * element), at(call.results[3], b * 4)};
      return ptrs;
    }
    int64_t uCols = p.jobu == 'A' ? p.rows : k, vtRows = p.jobvt == 'A' ? p.cols : k;
    ptrs.results = {at(call.results[0], b * k * real), at(call.results[1], b * p.rows * uCols * element),
                    at(call.results[2], b * vtRows * p.cols * element), at(call.results[3], b * 4)};
    return ptrs;
  }

  // cuSOLVER's workspaces for every solver call (the largest it asks for,
  // on the device and the host), asked with the calls' own pointers (the
  // regions are allocated by now).
  Status prepareSolvers() {
    std::vector<const SolverCall*> calls = solverCalls(plan_);
    if (calls.empty()) return Status::ok();
    KILN_ASSIGN_OR_RETURN(solver_, device_.cusolverHandle());
    size_t deviceBytes = 0, hostBytes = 0;
    for (const SolverCall* call : calls) {
      const SolverProblem& p = call->problem;
      if (p.batch == 0) continue;  // empty matrices: nothing to ask (or to run)
      const Cusolver& s = *solver_.library;
      SolverPointers ptrs = solverPointers(*call, 0);
      int type = cusolverDataType(p.element), real = cusolverRealDataType(p.element);
      size_t d = 0, h = 0;
      int lwork = 0;  // the batched Jacobi routines': elements
      int uplo = p.lower ? cusolver::kFillLower : cusolver::kFillUpper;
      Status asked =
          p.routine == SolverProblem::Routine::SyevjBatched
          ? s.check(s.syevjBatchedBufferSize(p.element, solver_.handle, uplo, int(p.rows), &lwork, solver_.syevj,
                                             int(p.batch)),
                    "cusolverDn<t>syevjBatched_bufferSize")
          : p.routine == SolverProblem::Routine::GesvdjBatched
          ? s.check(s.gesvdjBatchedBufferSize(p.element, solver_.handle, int(p.rows), int(p.cols), &lwork,
                                              solver_.gesvdj, int(p.batch)),
                    "cusolverDn<t>gesvdjBatched_bufferSize")
          : p.routine == SolverProblem::Routine::Syevd
          ? s.check(s.xsyevdBufferSize(solver_.handle, solver_.params, cusolver::kEigVector,
                                       p.lower ? cusolver::kFillLower : cusolver::kFillUpper, p.rows, type, ptrs.a,
                                       p.rows, real, ptrs.results[1], type, &d, &h),
                    "cusolverDnXsyevd_bufferSize")
          : s.check(s.xgesvdBufferSize(solver_.handle, solver_.params, static_cast<signed char>(p.jobu),
                                       static_cast<signed char>(p.jobvt), p.rows, p.cols, type, ptrs.a, p.rows, real,
                                       ptrs.results[0], type, ptrs.results[1], p.rows, type, ptrs.results[2],
                                       p.jobvt == 'A' ? p.cols : std::min(p.rows, p.cols), type, &d, &h),
                    "cusolverDnXgesvd_bufferSize");
      if (!asked.isOk())
        return error(asked.diag().message + " for " + call->op->name() + " (" + call->op->loc().str() + ", cuSOLVER " +
                     p.str() + ")");
      if (p.jacobiBatched()) d = size_t(std::max(lwork, 0)) * size_t(p.element.storageBytes());
      deviceBytes = std::max(deviceBytes, d);
      hostBytes = std::max(hostBytes, h);
    }
    KILN_ASSIGN_OR_RETURN(solverWorkspace_, allocate(int64_t(deviceBytes), "cuSOLVER workspace"));
    solverWorkspaceBytes_ = deviceBytes;
    solverHostWorkspace_.assign(hostBytes, 0);
    return Status::ok();
  }

  // The operand copied into the call's work bytes, then cuSOLVER on each
  // matrix, on the compute stream (the caller holds the device's mutex).
  Status runSolver(const SolverCall& call, bool sync) const {
    const CudaDriver& d = device_.driver;
    const SolverProblem& p = call.problem;
    const Cusolver& s = *solver_.library;
    auto located = [&](const Status& failed) {
      return error(call.op->name() + " (" + call.op->loc().str() + ", cuSOLVER " + p.str() + "): " +
                   failed.diag().message);
    };
    if (!(call.a == call.work) && call.a.bytes) {
      Status copied = d.check(d.memcpyDtoDAsync(deviceAddress(call.work, regions_), deviceAddress(call.a, regions_),
                                                call.a.bytes, device_.compute),
                              "cuMemcpyDtoDAsync");
      if (!copied.isOk()) return located(copied);
    }
    int type = cusolverDataType(p.element), real = cusolverRealDataType(p.element);
    void* host = solverHostWorkspace_.empty() ? nullptr : solverHostWorkspace_.data();
    if (p.jacobiBatched() && p.batch > 0) {
      // One call for the whole batch (its matrices, values and infos are
      // consecutive); the workspace holds at least the elements it asked for.
      SolverPointers ptrs = solverPointers(call, 0);
      void* work = reinterpret_cast<void*>(solverWorkspace_);
      int lwork = int(std::min<size_t>(solverWorkspaceBytes_ / size_t(p.element.storageBytes()),
                                       size_t(std::numeric_limits<int>::max())));
      Status ran = p.routine == SolverProblem::Routine::SyevjBatched
          ? s.check(s.syevjBatched(p.element, solver_.handle, p.lower ? cusolver::kFillLower : cusolver::kFillUpper,
                                   int(p.rows), ptrs.a, ptrs.results[1], work, lwork,
                                   static_cast<int*>(ptrs.results[2]), solver_.syevj, int(p.batch)),
                    "cusolverDn<t>syevjBatched")
          : s.check(s.gesvdjBatched(p.element, solver_.handle, int(p.rows), int(p.cols), ptrs.a, ptrs.results[0],
                                    ptrs.results[1], ptrs.results[2], work, lwork, static_cast<int*>(ptrs.results[3]),
                                    solver_.gesvdj, int(p.batch)),
                    "cusolverDn<t>gesvdjBatched");
      if (!ran.isOk()) return located(ran);
    }
    for (int64_t b = 0; b < (p.jacobiBatched() ? 0 : p.batch); ++b) {
      SolverPointers ptrs = solverPointers(call, b);
      Status ran = p.routine == SolverProblem::Routine::Syevd
          ? s.check(s.xsyevd(solver_.handle, solver_.params, cusolver::kEigVector,
                             p.lower ? cusolver::kFillLower : cusolver::kFillUpper, p.rows, type, ptrs.a, p.rows, real,
                             ptrs.results[1], type, reinterpret_cast<void*>(solverWorkspace_), solverWorkspaceBytes_,
                             host, solverHostWorkspace_.size(), static_cast<int*>(ptrs.results[2])),
                    "cusolverDnXsyevd")
          : s.check(s.xgesvd(solver_.handle, solver_.params, static_cast<signed char>(p.jobu),
                             static_cast<signed char>(p.jobvt), p.rows, p.cols, type, ptrs.a, p.rows, real,
                             ptrs.results[0], type, ptrs.results[1], p.rows, type, ptrs.results[2],
                             p.jobvt == 'A' ? p.cols : std::min(p.rows, p.cols), type,
                             reinterpret_cast<void*>(solverWorkspace_), solverWorkspaceBytes_, host,
                             solverHostWorkspace_.size(), static_cast<int*>(ptrs.results[3])),
                    "cusolverDnXgesvd");
      if (!ran.isOk()) return located(ran);
    }
    if (sync) {
      Status synced = d.check(d.streamSynchronize(device_.compute), "cuStreamSynchronize");
      if (!synced.isOk()) return located(synced);
    }
    return Status::ok();
  }

  Expected<CUdeviceptr> allocate(int64_t bytes, const char* what) {
    if (bytes == 0) return CUdeviceptr(0);
    CUdeviceptr pointer = 0;
    Status allocated = device_.driver.check(device_.driver.memAlloc(&pointer, bytes), "cuMemAlloc");
    if (!allocated.isOk())
      return error(ErrorCode::ResourceExhausted, allocated.diag().message + " allocating the " + std::to_string(bytes) +
                                                     "-byte " + what + " region of @" + plan_.entry + " on " +
                                                     device_.name);
    allocations_.push_back(pointer);
    return pointer;
  }

  Expected<std::vector<interp::Tensor>> runLocked(const std::vector<interp::Tensor>& args) const {
    const CudaDriver& d = device_.driver;
    if (args.size() != plan_.parameterTypes.size())
      return error(ErrorCode::InvalidArgument, "@" + plan_.entry + " takes " +
                                                   std::to_string(plan_.parameterTypes.size()) + " arguments, " +
                                                   std::to_string(args.size()) + " given");
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i].type() != plan_.parameterTypes[i])
        return error(ErrorCode::InvalidArgument, "argument " + std::to_string(i) + " is " + args[i].type().str() +
                                                     ", @" + plan_.entry + " takes " + plan_.parameterTypes[i].str());
    KILN_RETURN_IF_ERROR(device_.makeCurrent());
    KILN_ASSIGN_OR_RETURN(uint8_t* staging, device_.staging(std::max<int64_t>(plan_.parameterBytes, 1)));
    for (size_t i = 0; i < args.size(); ++i)
      if (plan_.parameters[i].bytes)
        std::memcpy(staging + plan_.parameters[i].offset, args[i].bytes(), plan_.parameters[i].bytes);
    if (plan_.parameterBytes)
      KILN_RETURN_IF_ERROR(d.check(d.memcpyHtoDAsync(regions_.parameters, staging, plan_.parameterBytes,
                                                     device_.transfer), "cuMemcpyHtoDAsync"));
    KILN_RETURN_IF_ERROR(d.check(d.eventRecord(uploaded_, device_.transfer), "cuEventRecord"));
    KILN_RETURN_IF_ERROR(d.check(d.streamWaitEvent(device_.compute, uploaded_, 0), "cuStreamWaitEvent"));
    Runner runner(*this, syncEachLaunch());
    KILN_RETURN_IF_ERROR(runSteps(plan_, plan_.steps, runner));
    return download(plan_.results, plan_.resultTypes);
  }

  // The steps on the device: kernels, matmuls and copies on the compute
  // stream; assertions, predicates and indices read back to the host.
  class Runner final : public StepRunner {
   public:
    Runner(const CudaProgram& program, bool sync) : program_(program), sync_(sync) {}
    Status launch(const KernelLaunch& launch) override { return program_.launch(launch, sync_); }
    Status matmul(const MatmulCall& call) override { return program_.runMatmul(call, sync_); }
    Status solve(const SolverCall& call) override { return program_.runSolver(call, sync_); }
    Status copy(const CopyStep& copy) override {
      const CudaDriver& d = program_.device_.driver;
      return d.check(d.memcpyDtoDAsync(deviceAddress(copy.to, program_.regions_),
                                       deviceAddress(copy.from, program_.regions_), copy.from.bytes,
                                       program_.device_.compute),
                     "cuMemcpyDtoDAsync");
    }
    Status check(const HostCheck& check) override {
      std::vector<Type> types;
      for (const Value* operand : check.op->operands()) types.push_back(operand->type());
      KILN_ASSIGN_OR_RETURN(std::vector<interp::Tensor> operands, program_.download(check.operands, types));
      Expected<std::vector<interp::Tensor>> checked = interp::evaluateOp(*check.op, std::move(operands));
      return checked ? Status::ok() : checked.takeStatus();
    }
    Status read(const DeviceSlot& slot, void* host) override {
      Type bytes = Type::tensor({slot.bytes}, Type::integer(8, true));
      KILN_ASSIGN_OR_RETURN(std::vector<interp::Tensor> read, program_.download({slot}, {bytes}));
      std::memcpy(host, read.front().bytes(), slot.bytes);
      return Status::ok();
    }

   private:
    const CudaProgram& program_;
    bool sync_;
  };

  Status launch(const KernelLaunch& launch, bool sync) const {
    const CudaDriver& d = device_.driver;
    const CudaKernel& kernel = plan_.kernels[launch.kernel];
    std::vector<uint64_t> addresses = launchArguments(launch, regions_);
    std::vector<void*> parameters;
    for (uint64_t& address : addresses) parameters.push_back(&address);
    Status launched = d.check(d.launchKernel(functions_[launch.kernel], unsigned(kernel.launch.blocks), 1, 1,
                                             unsigned(kernel.launch.threadsPerBlock), 1, 1, 0, device_.compute,
                                             parameters.data(), nullptr),
                              "cuLaunchKernel");
    if (launched.isOk() && sync) launched = d.check(d.streamSynchronize(device_.compute), "cuStreamSynchronize");
    if (!launched.isOk())
      return error(kernel.name + " (" + kernel.source + ", " + kernel.launch.str() + "): " + launched.diag().message);
    return Status::ok();
  }

  // The values in `slots` (of `types`), copied to the host once every
  // launch so far has finished.
  Expected<std::vector<interp::Tensor>> download(const std::vector<DeviceSlot>& slots,
                                                 const std::vector<Type>& types) const {
    const CudaDriver& d = device_.driver;
    int64_t total = 0;
    for (const DeviceSlot& slot : slots) total += (slot.bytes + kSlotAlignment - 1) / kSlotAlignment * kSlotAlignment;
    KILN_RETURN_IF_ERROR(d.check(d.eventRecord(computed_, device_.compute), "cuEventRecord"));
    KILN_RETURN_IF_ERROR(d.check(d.streamWaitEvent(device_.transfer, computed_, 0), "cuStreamWaitEvent"));
    // The upload from staging is ordered before these downloads on the transfer stream.
    KILN_ASSIGN_OR_RETURN(uint8_t* staging, device_.staging(std::max<int64_t>(total, 1)));
    std::vector<int64_t> offsets;
    int64_t offset = 0;
    for (const DeviceSlot& slot : slots) {
      offsets.push_back(offset);
      if (slot.bytes)
        KILN_RETURN_IF_ERROR(d.check(d.memcpyDtoHAsync(staging + offset, deviceAddress(slot, regions_), slot.bytes,
                                                       device_.transfer), "cuMemcpyDtoHAsync"));
      offset += (slot.bytes + kSlotAlignment - 1) / kSlotAlignment * kSlotAlignment;
    }
    // A kernel's fault surfaces here (the transfer stream waited for it).
    KILN_RETURN_IF_ERROR(d.check(d.streamSynchronize(device_.transfer), "cuStreamSynchronize"));
    std::vector<interp::Tensor> tensors;
    for (size_t i = 0; i < slots.size(); ++i) {
      interp::Tensor t = interp::Tensor::uninitialized(types[i]);
      if (slots[i].bytes) std::memcpy(t.bytes(), staging + offsets[i], slots[i].bytes);
      tensors.push_back(std::move(t));
    }
    return tensors;
  }

  CudaPlan plan_;
  CudaDevice& device_;
  std::string text_;
  std::vector<CUmodule> modules_;
  std::vector<CUfunction> functions_;
  std::vector<CUdeviceptr> allocations_;
  DeviceRegions regions_;
  CUevent uploaded_ = nullptr, computed_ = nullptr;
  // Indexed like plan_.matmuls (a plan calls each matmul once).
  std::vector<std::unique_ptr<MatmulDescriptors>> matmulDescriptors_;
  std::vector<CublasLtMatmulAlgo> matmulAlgos_;
  const CublasLt* matmulLibrary_ = nullptr;
  CublasLtHandle matmulHandle_ = nullptr;
  CUdeviceptr workspace_ = 0;
  size_t workspaceBytes_ = 0;
  CudaDevice::SolverHandle solver_{};
  CUdeviceptr solverWorkspace_ = 0;
  size_t solverWorkspaceBytes_ = 0;
  // cuSOLVER's host workspace (its calls run one at a time: the device's mutex).
  mutable std::vector<uint8_t> solverHostWorkspace_;
};

class CudaBackend final : public backend::Backend {
 public:
  std::string_view name() const override { return "cuda"; }
  std::string_view description() const override { return "LLVM NVPTX kernels on the CUDA driver API"; }
  const device::Allocator& allocator() const override { return interp::tensorAllocator(); }
  Status available() const override {
    Status loads = cudaDriverLoads();
    if (loads.isOk()) return loads;
    return error(ErrorCode::FailedPrecondition, "the cuda back end cannot run here: " + loads.diag().message);
  }
  Expected<std::unique_ptr<backend::Program>> compile(const Module& module, std::string_view entry,
                                                      const backend::CompileOptions& options) const override {
    Expected<CudaDevice*> device = CudaDevice::get(0);
    if (!device)
      return error(ErrorCode::FailedPrecondition, "the cuda back end cannot run here: " + device.status().diag().message);
    CudaPlanOptions planOptions;
    planOptions.arch = (*device)->arch;
    planOptions.foldConstants = options.foldConstants;
    planOptions.dumpDir = options.dumpDir;
    KILN_ASSIGN_OR_RETURN(CudaPlan plan, planForCuda(module, entry, planOptions));
    auto program = std::make_unique<CudaProgram>(std::move(plan), **device);
    KILN_RETURN_IF_ERROR(program->load());
    return std::unique_ptr<backend::Program>(std::move(program));
  }
};

}  // namespace

const backend::Backend* cudaBackend() {
  static const CudaBackend backend;
  return &backend;
}

}  // namespace kiln::gpu
