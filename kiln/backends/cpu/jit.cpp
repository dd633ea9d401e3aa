#include "kiln/backends/cpu/jit.h"

#include <unistd.h>

#include <array>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/OptBisect.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/SmallVectorMemoryBuffer.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/SHA256.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "kiln/backends/cpu/emitter.h"
#include "kiln/backends/cpu/host_isa.h"
#include "kiln/backends/cpu/math_approx.h"
#include "kiln/codegen/optimize.h"
#include "kiln/support/trace.h"

namespace kiln::cpu {

struct KernelJit::Impl {
  llvm::orc::JITTargetMachineBuilder machineBuilder{llvm::Triple()};
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::LLVMContext> ctx;
  std::unique_ptr<llvm::Module> module;  // until finalize()
  std::unique_ptr<llvm::orc::LLJIT> jit;  // after finalize(); owns the code
  bool fromCache = false;
  int compiledParts = 0;
};

namespace {

Status fromLlvm(llvm::Error err, std::string_view context) {
  return error(ErrorCode::Internal, "cpu back end: " + std::string(context) + ": " + llvm::toString(std::move(err)));
}

// The code generator's passes that cost kernels' compile time without
// making their code measurably faster: loop strength reduction (a third of
// code generation on the bench's models, most of it on the many addresses of
// unrolled rows and tiles; x86 addressing folds the index arithmetic it
// would rewrite). Installed on every LLVMContext that holds kernels, so that other users of
// LLVM in the process (the cuda back end) keep LLVM's defaults;
// docs/cpu_backend.md, "Compile time".
constexpr llvm::StringLiteral kSkippedCodegenPasses[] = {"Loop Strength Reduction"};

class KernelPassGate final : public llvm::OptPassGate {
 public:
  bool shouldRunPass(llvm::StringRef pass, llvm::StringRef) override {
    return llvm::find(kSkippedCodegenPasses, pass) == std::end(kSkippedCodegenPasses);
  }
  bool isEnabled() const override { return true; }
};

KernelPassGate& kernelPassGate() {
  static KernelPassGate gate;
  return gate;
}

// Whether `feature` lies above the tier `isa` (host_isa.h). Turning off the
// root of a family (avx, avx512f) turns off what LLVM knows depends on it;
// the names are listed whole so that the dumped feature string says so.
bool aboveTier(llvm::StringRef feature, CpuIsa isa) {
  bool avx512 = feature.starts_with("avx512") || feature.starts_with("avx10") || feature == "evex512";
  bool amx = feature.starts_with("amx");
  bool avx = feature.starts_with("avx") || feature == "fma" || feature == "f16c" || feature == "fma4" ||
             feature == "xop" || feature == "vaes" || feature == "vpclmulqdq";
  switch (isa) {
    case CpuIsa::Sse42: return avx || avx512 || amx;
    case CpuIsa::Avx2: return avx512 || amx;
    case CpuIsa::Avx512: return amx;
    case CpuIsa::Native: break;
  }
  return false;
}

// The host as LLVM sees it: triple, CPU name and the CPU features detected
// at run time (the name alone can be wrong under a hypervisor), less those
// above --cpu_max_isa.
llvm::orc::JITTargetMachineBuilder hostMachine() {
  llvm::orc::JITTargetMachineBuilder machine{llvm::Triple(llvm::sys::getProcessTriple())};
  machine.setCPU(llvm::sys::getHostCPUName().str());
  llvm::SubtargetFeatures features;
  CpuIsa isa = cpuIsa();
  for (const auto& feature : llvm::sys::getHostCPUFeatures())
    features.AddFeature(feature.getKey(), feature.getValue() && !aboveTier(feature.getKey(), isa));
  machine.addFeatures(features.getFeatures());
  machine.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  return machine;
}

// On AVX-512 hosts, lets the vectorizer use 512-bit vectors: LLVM's tuning
// for these CPUs prefers 256 bits (to avoid frequency drops of mixed scalar
// code), but kernel loops are long and all vector: their polynomial math
// runs on 16 lanes instead of 8.
void preferWideVectors(llvm::Module& m, const llvm::TargetMachine& machine) {
  if (machine.getTargetFeatureString().find("+avx512f") == llvm::StringRef::npos) return;
  for (llvm::Function& fn : m)
    if (!fn.isDeclaration()) fn.addFnAttr("prefer-vector-width", "512");
}

// In kernel copies that stream their outputs (kStreamingStoresAttr), makes
// every full vector store that LLVM proved aligned to its size, into memory
// other than the kernel's own scratch, non-temporal: written around the
// cache, without reading the line first. x86's non-temporal stores are weakly
// ordered, so such a copy ends with an sfence: the thread that waits for the
// kernel sees its outputs. Other targets keep plain stores.
void makeStreamingStoresNonTemporal(llvm::Module& m, const llvm::TargetMachine& machine) {
  if (!machine.getTargetTriple().isX86()) return;
  llvm::LLVMContext& ctx = m.getContext();
  llvm::MDNode* nonTemporal =
      llvm::MDNode::get(ctx, {llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), 1))});
  for (llvm::Function& fn : m) {
    if (!fn.hasFnAttribute(kStreamingStoresAttr)) continue;
    bool streams = false;
    std::vector<llvm::ReturnInst*> returns;
    for (llvm::BasicBlock& block : fn)
      for (llvm::Instruction& inst : block) {
        if (auto* ret = llvm::dyn_cast<llvm::ReturnInst>(&inst)) returns.push_back(ret);
        auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst);
        if (!store || !store->getValueOperand()->getType()->isVectorTy()) continue;
        uint64_t bytes = m.getDataLayout().getTypeStoreSize(store->getValueOperand()->getType());
        if (store->getAlign().value() < bytes || llvm::isa<llvm::AllocaInst>(llvm::getUnderlyingObject(store->getPointerOperand())))
          continue;
        store->setMetadata(llvm::LLVMContext::MD_nontemporal, nonTemporal);
        streams = true;
      }
    if (!streams) continue;
    for (llvm::ReturnInst* ret : returns)
      llvm::IRBuilder<>(ret).CreateIntrinsic(llvm::Intrinsic::x86_sse_sfence, {}, {});
  }
}

// Marks every loop of `m` llvm.loop.unroll.runtime.disable: the unroller
// then leaves loops of unknown trip count rolled (the loop vectorizer's
// interleaving already unrolls the vector loops; the scalar loops left are
// the short heads and tails of a thread's chunk and the remainders of
// vector loops), and still unrolls loops of a known trip count.
void disableRuntimeUnrolling(llvm::Module& m) {
  llvm::MDNode* rolled =
      llvm::MDNode::get(m.getContext(), {llvm::MDString::get(m.getContext(), "llvm.loop.unroll.runtime.disable")});
  for (llvm::Function& fn : m) {
    if (fn.isDeclaration()) continue;
    llvm::DominatorTree dominators(fn);
    llvm::LoopInfo loops(dominators);
    for (llvm::Loop* loop : loops.getLoopsInPreorder())
      loop->setLoopID(llvm::makePostTransformationMetadata(m.getContext(), loop->getLoopID(), {}, {rolled}));
  }
}

// LLVM's default O3 pipeline (which vectorizes the kernel loops) without its
// SLP vectorizer (kernels are loops: the loop vectorizer's work) and runtime
// unrolling, then the bodies of the scale functions the vectorized loops
// call (inlined), and the non-temporal stores of streaming kernels.
void optimize(llvm::Module& m, llvm::TargetMachine& machine) {
  disableRuntimeUnrolling(m);
  llvm::PipelineTuningOptions tuning;
  tuning.SLPVectorization = false;
  codegen::ModuleOptimizer optimizer(machine, tuning);
  optimizer.runO3(m);
  llvm::StringRef features = machine.getTargetFeatureString();
  defineVectorizableFunctions(m, features.contains("+avx512f"), features.contains("+avx512vl"));
  llvm::ModulePassManager inliner;
  inliner.addPass(llvm::AlwaysInlinerPass());
  optimizer.run(inliner, m);
  makeStreamingStoresNonTemporal(m, machine);
}

// Where the dumps of one module go: DIR/STEM.ll, .opt.ll, .s, with STEM
// the module name (file-name safe) plus a number if DIR already has it.
Expected<std::string> dumpStem(const JitOptions& options) {
  std::error_code ec;
  std::filesystem::create_directories(options.dumpDir, ec);
  if (ec) return error("cannot create the dump directory '" + options.dumpDir + "': " + ec.message());
  std::string name = options.moduleName.empty() ? "kernels" : options.moduleName;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  std::filesystem::path dir(options.dumpDir);
  std::string stem = name;
  for (int n = 1; std::filesystem::exists(dir / (stem + ".ll")); ++n) stem = name + "." + std::to_string(n);
  return (dir / stem).string();
}

Status writeModule(const llvm::Module& m, const std::string& path) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_Text);
  if (ec) return error("cannot write '" + path + "': " + ec.message());
  m.print(out, nullptr);
  return Status::ok();
}

// The host assembly of `m` (compiled from a copy: the JIT compiles the original).
Status writeAssembly(const llvm::Module& m, llvm::TargetMachine& machine, const std::string& path) {
  std::unique_ptr<llvm::Module> copy = llvm::CloneModule(m);
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_Text);
  if (ec) return error("cannot write '" + path + "': " + ec.message());
  out << "# code generation without:";
  for (llvm::StringRef pass : kSkippedCodegenPasses) out << " '" << pass << "'";
  out << "\n";
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, out, nullptr, llvm::CodeGenFileType::AssemblyFile))
    return error(ErrorCode::Internal, "cpu back end: the target cannot print assembly");
  codegen.run(*copy);
  return Status::ok();
}

// Which optimization and code generation pipeline compiled the kernels:
// raise it whenever optimize() or compileToObject() changes what they make
// of the same module, so cached objects of an older pipeline are not reused.
// (2: O3 without SLP, no runtime unrolling, no loop strength reduction.)
constexpr int kKernelPipelineVersion = 2;

// The cache file of `m` for this host: the hash of its text and of what the
// code depends on besides it.
std::string cachePath(const llvm::Module& m, const llvm::TargetMachine& machine, const std::string& dir) {
  std::string key;
  llvm::raw_string_ostream text(key);
  m.print(text, nullptr);
  text << "\n" << machine.getTargetTriple().str() << "\n" << machine.getTargetCPU() << "\n"
       << machine.getTargetFeatureString() << "\nLLVM " << LLVM_VERSION_STRING << "\npipeline "
       << kKernelPipelineVersion;
  std::array<uint8_t, 32> digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef(key));
  std::string hex;
  for (uint8_t byte : digest) {
    static constexpr char kDigits[] = "0123456789abcdef";
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 15];
  }
  return (std::filesystem::path(dir) / ("kiln-" + hex + ".o")).string();
}

// Compiles `m` (optimized) to a relocatable object, as the JIT would.
Expected<std::unique_ptr<llvm::MemoryBuffer>> compileToObject(llvm::Module& m, llvm::TargetMachine& machine) {
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream out(object);
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, out, nullptr, llvm::CodeGenFileType::ObjectFile))
    return error(ErrorCode::Internal, "cpu back end: the target cannot emit object files");
  codegen.run(m);
  return std::unique_ptr<llvm::MemoryBuffer>(
      std::make_unique<llvm::SmallVectorMemoryBuffer>(std::move(object), "kiln kernels", false));
}

// Splits `m` into at most `parts` modules to optimize and compile on as
// many threads, returned as bitcode: each is read back into an LLVMContext of
// its own, since a context may not be used by two threads. Definitions go
// largest first to the part with the fewest instructions so far. Each part
// gets every global variable (private copies of constant tables, the used
// list) and declarations of the others' functions; internal functions become
// external so that a kernel in one part may call one in another (the JIT
// links the parts' objects, and each executable has a JIT of its own).
std::vector<llvm::SmallVector<char, 0>> splitToBitcode(llvm::Module& m, int parts) {
  std::vector<std::pair<unsigned, llvm::Function*>> definitions;
  for (llvm::Function& fn : m)
    if (!fn.isDeclaration()) definitions.push_back({fn.getInstructionCount(), &fn});
  std::stable_sort(definitions.begin(), definitions.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  parts = std::max(1, std::min(parts, static_cast<int>(definitions.size())));
  std::vector<uint64_t> instructions(parts, 0);
  llvm::DenseMap<const llvm::Function*, int> partOf;
  for (auto [size, fn] : definitions) {
    int lightest = static_cast<int>(std::min_element(instructions.begin(), instructions.end()) - instructions.begin());
    instructions[lightest] += size + 1;
    partOf[fn] = lightest;
    if (fn->hasLocalLinkage()) fn->setLinkage(llvm::GlobalValue::ExternalLinkage);
  }
  std::vector<llvm::SmallVector<char, 0>> bitcode(parts);
  for (int i = 0; i < parts; ++i) {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> part = llvm::CloneModule(m, map, [&](const llvm::GlobalValue* value) {
      auto* fn = llvm::dyn_cast<llvm::Function>(value);
      return !fn || partOf.lookup(fn) == i;
    });
    llvm::raw_svector_ostream out(bitcode[i]);
    llvm::WriteBitcodeToFile(*part, out);
  }
  return bitcode;
}

// Optimizes and compiles one part from splitToBitcode, on the calling thread.
Expected<std::unique_ptr<llvm::MemoryBuffer>> compilePart(llvm::StringRef bitcode,
                                                          llvm::orc::JITTargetMachineBuilder builder) {
  llvm::LLVMContext ctx;
  ctx.setOptPassGate(kernelPassGate());
  auto part = llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode, "kiln kernels"), ctx);
  if (!part) return fromLlvm(part.takeError(), "cannot read a part of the kernels back");
  auto machine = builder.createTargetMachine();
  if (!machine) return fromLlvm(machine.takeError(), "no target machine for the host");
  optimize(**part, **machine);
  return compileToObject(**part, **machine);
}

// Compiles `m` to objects: in parts on `threads` threads (the caller one of
// them) when it has several functions, else whole on the caller.
Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>> compileToObjects(
    llvm::Module& m, const llvm::orc::JITTargetMachineBuilder& builder, llvm::TargetMachine& machine, int threads) {
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects;
  std::vector<llvm::SmallVector<char, 0>> parts;
  if (threads > 1) parts = splitToBitcode(m, threads);
  if (parts.size() <= 1) {
    trace::Scope scope("codegen", "LLVM: optimize and compile the kernels");
    optimize(m, machine);
    KILN_ASSIGN_OR_RETURN(std::unique_ptr<llvm::MemoryBuffer> object, compileToObject(m, machine));
    objects.push_back(std::move(object));
    return objects;
  }
  objects.resize(parts.size());
  std::vector<Status> statuses(parts.size());
  auto compile = [&](size_t i) {
    trace::Scope scope("codegen", [&] { return "LLVM: optimize and compile part " + std::to_string(i); });
    llvm::StringRef bitcode(parts[i].data(), parts[i].size());
    auto object = compilePart(bitcode, builder);
    if (object) objects[i] = std::move(*object);
    else statuses[i] = object.takeStatus();
  };
  std::vector<std::thread> workers;
  for (size_t i = 1; i < parts.size(); ++i)
    workers.emplace_back([&, i] {
      trace::setThreadName("LLVM codegen");
      compile(i);
    });
  compile(0);
  for (std::thread& worker : workers) worker.join();
  for (Status& status : statuses) KILN_RETURN_IF_ERROR(std::move(status));
  return objects;
}

// The cache file's contents: a header line, the objects' sizes, then the
// objects one after another.
constexpr llvm::StringLiteral kCacheMagic = "kiln objects 1\n";

std::string packObjects(const std::vector<std::unique_ptr<llvm::MemoryBuffer>>& objects) {
  std::string packed(kCacheMagic);
  packed += std::to_string(objects.size());
  for (const auto& object : objects) packed += " " + std::to_string(object->getBufferSize());
  packed += "\n";
  for (const auto& object : objects) packed += object->getBuffer();
  return packed;
}

// The objects of a cache file; empty when it is not one packObjects wrote
// (a file cut short, an older format), which makes it a miss.
std::vector<std::unique_ptr<llvm::MemoryBuffer>> unpackObjects(llvm::StringRef packed) {
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects;
  if (!packed.consume_front(kCacheMagic)) return {};
  auto [header, rest] = packed.split('\n');
  llvm::SmallVector<llvm::StringRef, 8> fields;
  header.split(fields, ' ');
  size_t count = 0;
  if (fields.empty() || fields[0].getAsInteger(10, count) || count != fields.size() - 1) return {};
  for (size_t i = 1; i < fields.size(); ++i) {
    size_t size = 0;
    if (fields[i].getAsInteger(10, size) || size > rest.size()) return {};
    objects.push_back(llvm::MemoryBuffer::getMemBufferCopy(rest.take_front(size), "kiln kernels"));
    rest = rest.drop_front(size);
  }
  if (!rest.empty()) return {};
  return objects;
}

// Writes `data` to `path` through a temporary file and a rename, so that a
// process reading the cache never sees half a file. Failing to write only
// loses the cache entry.
void writeCacheFile(const std::string& path, llvm::StringRef data) {
  std::string temporary = path + ".tmp" + std::to_string(llvm::sys::Process::getProcessId());
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(temporary, ec, llvm::sys::fs::OF_None);
    if (ec) return;
    out << data;
    if (out.has_error()) {
      out.clear_error();
      return;
    }
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) std::filesystem::remove(temporary, ec);
}

}  // namespace

KernelJit::KernelJit(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
KernelJit::~KernelJit() = default;

Expected<std::unique_ptr<KernelJit>> KernelJit::create() {
  static std::once_flag llvmInitialized;
  std::call_once(llvmInitialized, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  auto impl = std::make_unique<Impl>();
  impl->machineBuilder = hostMachine();
  auto machine = impl->machineBuilder.createTargetMachine();
  if (!machine) return fromLlvm(machine.takeError(), "no target machine for the host");
  impl->machine = std::move(*machine);
  impl->ctx = std::make_unique<llvm::LLVMContext>();
  impl->ctx->setOptPassGate(kernelPassGate());
  impl->module = std::make_unique<llvm::Module>("kiln_kernels", *impl->ctx);
  impl->module->setDataLayout(impl->machine->createDataLayout());
  impl->module->setTargetTriple(impl->machine->getTargetTriple().str());
  return std::unique_ptr<KernelJit>(new KernelJit(std::move(impl)));
}

llvm::Module& KernelJit::module() { return *impl_->module; }

Status KernelJit::finalize(const JitOptions& options) {
  std::string stem;
  if (!options.dumpDir.empty()) {
    KILN_ASSIGN_OR_RETURN(stem, dumpStem(options));
    KILN_RETURN_IF_ERROR(writeModule(*impl_->module, stem + ".ll"));
  }
  preferWideVectors(*impl_->module, *impl_->machine);
  std::string verifierMessage;
  llvm::raw_string_ostream verifierStream(verifierMessage);
  if (llvm::verifyModule(*impl_->module, &verifierStream))
    return error(ErrorCode::Internal, "cpu back end: emitted invalid LLVM IR: " + verifierMessage);
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects;
  std::string cacheFile;
  if (!options.cacheDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.cacheDir, ec);
    if (ec) return error("cannot create the cache directory '" + options.cacheDir + "': " + ec.message());
    cacheFile = cachePath(*impl_->module, *impl_->machine, options.cacheDir);
    if (auto cached = llvm::MemoryBuffer::getFile(cacheFile)) objects = unpackObjects((*cached)->getBuffer());
    impl_->fromCache = !objects.empty();
  }
  if (!stem.empty()) {
    // Dumps show the whole module, optimized and compiled in one piece.
    optimize(*impl_->module, *impl_->machine);
    KILN_RETURN_IF_ERROR(writeModule(*impl_->module, stem + ".opt.ll"));
    KILN_RETURN_IF_ERROR(writeAssembly(*impl_->module, *impl_->machine, stem + ".s"));
    if (objects.empty()) {
      KILN_ASSIGN_OR_RETURN(std::unique_ptr<llvm::MemoryBuffer> object, compileToObject(*impl_->module, *impl_->machine));
      objects.push_back(std::move(object));
    }
  } else if (objects.empty()) {
    KILN_ASSIGN_OR_RETURN(objects, compileToObjects(*impl_->module, impl_->machineBuilder, *impl_->machine,
                                                   std::max(1, options.threads)));
  }
  if (!impl_->fromCache) impl_->compiledParts = static_cast<int>(objects.size());
  if (!cacheFile.empty() && !impl_->fromCache) writeCacheFile(cacheFile, packObjects(objects));
  impl_->module.reset();
  impl_->ctx.reset();

  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(impl_->machineBuilder).create();
  if (!jit) return fromLlvm(jit.takeError(), "cannot create the JIT");
  // Kernels call libm (exp, log, tanh), resolved in this process.
  auto libm = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!libm) return fromLlvm(libm.takeError(), "cannot search this process for symbols");
  (*jit)->getMainJITDylib().addGenerator(std::move(*libm));
  for (auto& object : objects)
    if (llvm::Error err = (*jit)->addObjectFile(std::move(object)))
      return fromLlvm(std::move(err), "cannot load the compiled kernels");
  impl_->jit = std::move(*jit);
  return Status::ok();
}

// Linux describes each cache of a core in sysfs; the C library's figure for
// L3 can be a whole package's (ten CCX caches on an AMD EPYC), not the
// slice one core shares.
int64_t hostLastLevelCacheBytes() {
  static const int64_t bytes = [] {
    int64_t largest = 0;
    int level = 0;
    for (int i = 0;; ++i) {
      std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
      std::ifstream levelFile(dir + "level"), typeFile(dir + "type"), sizeFile(dir + "size");
      if (!levelFile || !typeFile || !sizeFile) break;
      int l = 0;
      std::string type, size;
      levelFile >> l;
      typeFile >> type;
      sizeFile >> size;  // "32768K"
      if (type == "Instruction" || size.empty() || l < level) continue;
      int64_t value = std::atoll(size.c_str());
      if (size.back() == 'K') value <<= 10;
      if (size.back() == 'M') value <<= 20;
      if (l > level || value > largest) largest = value;
      level = l;
    }
    if (largest > 0) return largest;
    if (long size = sysconf(_SC_LEVEL3_CACHE_SIZE); size > 0) return int64_t(size);
    return int64_t(32) << 20;
  }();
  return bytes;
}

bool KernelJit::loadedFromCache() const { return impl_->fromCache; }
int KernelJit::compiledParts() const { return impl_->compiledParts; }

Expected<void*> KernelJit::lookup(const std::string& name) {
  if (!impl_->jit) return error(ErrorCode::Internal, "cpu back end: lookup before the kernels were compiled");
  auto address = impl_->jit->lookup(name);
  if (!address) return fromLlvm(address.takeError(), "cannot compile the kernels");
  return address->toPtr<void*>();
}

}  // namespace kiln::cpu
