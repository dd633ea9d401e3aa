// A Program that computes on the interpreter's tensors over its buffers' host
// memory (the cpu back end and the interpreter): run and runInstances convert
// at the boundary, without copies, and the back end supplies the tensor runs.
#pragma once

#include "kiln/backends/backend.h"
#include "kiln/interp/host_buffers.h"

namespace kiln::backend {

class TensorProgram : public Program {
 public:
  // The results go back in the arguments' vector (no second allocation per call).
  Expected<std::vector<device::DeviceBuffer>> run(std::vector<device::DeviceBuffer> args) const final {
    KILN_ASSIGN_OR_RETURN(std::vector<interp::Tensor> tensors, interp::toTensors(args));
    KILN_ASSIGN_OR_RETURN(std::vector<interp::Tensor> results, runTensors(std::move(tensors)));
    return interp::toDeviceBuffers(std::move(results), std::move(args));
  }
  Expected<std::vector<std::vector<device::DeviceBuffer>>> runInstances(
      std::vector<std::vector<device::DeviceBuffer>> argsPerInstance) const final {
    KILN_ASSIGN_OR_RETURN(std::vector<std::vector<interp::Tensor>> tensors,
                          interp::toTensors(std::move(argsPerInstance)));
    KILN_ASSIGN_OR_RETURN(std::vector<std::vector<interp::Tensor>> results,
                          runTensorInstances(std::move(tensors)));
    return interp::toDeviceBuffers(std::move(results));
  }

 protected:
  virtual Expected<std::vector<interp::Tensor>> runTensors(std::vector<interp::Tensor> args) const = 0;
  virtual Expected<std::vector<std::vector<interp::Tensor>>> runTensorInstances(
      std::vector<std::vector<interp::Tensor>> argsPerInstance) const = 0;
};

}  // namespace kiln::backend
