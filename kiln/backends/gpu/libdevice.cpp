// libdevice, found and linked (see libdevice.h).
#include "kiln/backends/gpu/libdevice.h"

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <vector>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

namespace kiln::gpu {
namespace {

constexpr const char* kLibdeviceUnderHome = "nvvm/libdevice/libdevice.10.bc";

bool readable(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

bool callsLibdevice(const llvm::Module& m) {
  for (const llvm::Function& fn : m)
    if (fn.isDeclaration() && fn.getName().starts_with(kLibdevicePrefix)) return true;
  return false;
}

}  // namespace

Expected<std::string> findLibdevice() {
  if (const char* chosen = std::getenv("KILN_LIBDEVICE")) {
    if (readable(chosen)) return std::string(chosen);
    return error(std::string("no libdevice at KILN_LIBDEVICE=") + chosen);
  }
  std::vector<std::string> tried;
  for (const char* home : {static_cast<const char*>(std::getenv("CUDA_HOME")), "/usr/local/cuda"}) {
    if (!home || !*home) continue;
    std::string path = (std::filesystem::path(home) / kLibdeviceUnderHome).string();
    if (readable(path)) return path;
    tried.push_back(path);
  }
  std::string where;
  for (const std::string& path : tried) where += (where.empty() ? "" : ", ") + path;
  return error("no libdevice found (looked for " + where +
               "; set CUDA_HOME to the CUDA toolkit or KILN_LIBDEVICE to libdevice.10.bc)");
}

Status linkLibdevice(llvm::Module& m) {
  if (!callsLibdevice(m)) return Status::ok();
  KILN_ASSIGN_OR_RETURN(std::string path, findLibdevice());
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file = llvm::MemoryBuffer::getFile(path);
  if (!file) return error("cannot read libdevice '" + path + "': " + file.getError().message());
  // Lazily: only the functions the kernel calls (and theirs) are read.
  llvm::Expected<std::unique_ptr<llvm::Module>> library =
      llvm::getLazyBitcodeModule((*file)->getMemBufferRef(), m.getContext());
  if (!library) return error("cannot read libdevice '" + path + "': " + llvm::toString(library.takeError()));
  // libdevice says "nvptx64-nvidia-gpulibs" and a shorter data layout; the
  // kernel's are the ones that hold (and the linker would warn otherwise).
  (*library)->setTargetTriple(m.getTargetTriple());
  (*library)->setDataLayout(m.getDataLayout());
  bool failed = llvm::Linker::linkModules(m, std::move(*library), llvm::Linker::Flags::LinkOnlyNeeded);
  if (failed) return error("cannot link libdevice '" + path + "' into the kernel");
  for (llvm::Function& fn : m)
    if (!fn.isDeclaration() && fn.getCallingConv() != llvm::CallingConv::PTX_Kernel)
      fn.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable& global : m.globals())
    if (!global.isDeclaration()) global.setLinkage(llvm::GlobalValue::InternalLinkage);
  return Status::ok();
}

}  // namespace kiln::gpu
