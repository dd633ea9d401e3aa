// The extension module kiln._kiln: kiln's runtime (kiln/runtime/runtime.h)
// for Python. The contract with the pure-Python package is
// /work/notes/python_api.md, described in docs/runtime.md.
//
// Every call that compiles, executes or waits releases the GIL. Errors are
// raised as kiln._kiln.KilnError with the runtime's error code.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <cstring>

#include "dtypes.h"
#include "kiln/parse/bytecode_reader.h"
#include "kiln/parse/parser.h"
#include "kiln/runtime/runtime.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace kiln::python {
namespace {

namespace rt = kiln::runtime;

// --- Errors ------------------------------------------------------------------

PyObject* gKilnError = nullptr;

struct KilnException : std::exception {
  std::string code;
  std::string message;
  KilnException(std::string c, std::string m) : code(std::move(c)), message(std::move(m)) {}
  const char* what() const noexcept override { return message.c_str(); }
};

std::string describe(const Diagnostic& d) {
  if (d.loc.known() || !d.notes.empty()) return d.str();
  return d.message;
}

[[noreturn]] void raise(const Status& s) { throw KilnException(errorCodeName(s.code()), describe(s.diag())); }
[[noreturn]] void raise(ErrorCode code, std::string message) {
  throw KilnException(errorCodeName(code), std::move(message));
}
void check(const Status& s) {
  if (!s.isOk()) raise(s);
}
// Waits for `event` with the GIL released, looking for Python signals every
// 50 ms: Ctrl-C (KeyboardInterrupt) ends the wait and raises. The
// computation goes on to its end on its worker (a compiled loop cannot stop
// midway); its results, unread, are dropped with their Arrays.
void awaitInterruptibly(const rt::Event& event) {
  if (event.isReady()) return;
  struct Wait {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
  };
  auto wait = std::make_shared<Wait>();
  event.onReady([wait](const Status&) {
    std::lock_guard<std::mutex> lock(wait->mu);
    wait->done = true;
    wait->cv.notify_all();
  });
  for (;;) {
    {
      nb::gil_scoped_release unlocked;
      std::unique_lock<std::mutex> lock(wait->mu);
      if (wait->cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return wait->done; })) return;
    }
    if (PyErr_CheckSignals() != 0) throw nb::python_error();
  }
}

template <typename T>
T unwrap(Expected<T> e) {
  if (!e) raise(e.status());
  return std::move(*e);
}

void translateKilnException(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const KilnException& e) {
    nb::object instance = nb::borrow(gKilnError)(e.message);
    instance.attr("code") = e.code;
    instance.attr("message") = e.message;
    PyErr_SetObject(gKilnError, instance.ptr());
  }
}

bool pythonIsFinalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing();
#else
  return _Py_IsFinalizing();
#endif
}

// --- Holders: every Python object keeps its client alive ----------------------

using ClientRef = std::shared_ptr<rt::Client>;

struct PyClient {
  ClientRef client;
};
struct PyDevice {
  ClientRef client;
  rt::Device* device;
};
struct PyArray {
  ClientRef client;
  rt::BufferRef buffer;
  bool weakType = false;  // JAX's weak type of a kiln.jit result (a Python scalar's type)
};
struct PyExecutable {
  ClientRef client;
  std::shared_ptr<rt::Executable> executable;
};

// The client's destructor joins its worker threads, which may need the GIL
// to release zero-copy arrays: let go of it meanwhile.
ClientRef adoptClient(std::unique_ptr<rt::Client> client) {
  return ClientRef(client.release(), [](rt::Client* c) {
    if (PyGILState_Check()) {
      nb::gil_scoped_release unlocked;
      delete c;
    } else {
      delete c;
    }
  });
}

// Compiles StableHLO text or a portable artifact. Parsed here, not by
// Client::compile(text), so that diagnostics name `filename` (kiln.compile
// passes the path).
PyExecutable compileProgram(const PyClient& c, const std::string& program, std::string entry, std::string dumpDir,
                            const std::string& filename) {
  rt::CompileOptions options;
  options.entry = std::move(entry);
  options.dumpDir = std::move(dumpDir);
  std::optional<Expected<std::unique_ptr<rt::Executable>>> compiled;
  {
    nb::gil_scoped_release unlocked;
    Expected<std::unique_ptr<Module>> module = parseProgram(program, filename);
    if (!module)
      compiled.emplace(module.takeStatus());
    else
      compiled.emplace(c.client->compile(**module, options));
  }
  return PyExecutable{c.client, std::shared_ptr<rt::Executable>(unwrap(std::move(*compiled)))};
}

// --- numpy <-> buffers -----------------------------------------------------

nb::module_ numpy() { return nb::module_::import_("numpy"); }

nb::tuple shapeTuple(Type type) {
  nb::list dims;
  if (type.isTensor())
    for (int64_t d : type.shape()) dims.append(d);
  return nb::tuple(dims);
}

nb::tuple typeTuple(Type type) {
  return nb::make_tuple(shapeTuple(type), type.isTensor() ? dtypeOf(type.elementType()) : nb::none());
}

uintptr_t dataPointer(nb::handle array) {
  return nb::cast<uintptr_t>(array.attr("__array_interface__")["data"][0]);
}

// `x` as a numpy array: numpy arrays as they are, DLPack producers through
// numpy.from_dlpack, anything else (and what from_dlpack rejects) through
// numpy.asarray.
nb::object asNumpy(nb::handle x) {
  nb::module_ np = numpy();
  if (nb::isinstance(x, np.attr("ndarray"))) return nb::borrow(x);
  if (nb::hasattr(x, "__dlpack__")) {
    try {
      return np.attr("from_dlpack")(x);
    } catch (const nb::python_error&) {
      // DLPack has no code for some dtypes numpy knows (bfloat16, float8):
      // such producers usually convert through __array__.
    }
  }
  return np.attr("asarray")(x);
}

// A copy of `buffer` on `device`, waiting for it with the GIL released.
rt::BufferRef copyTo(rt::Client& client, const rt::Buffer& buffer, rt::Device* device) {
  awaitInterruptibly(buffer.readyEvent());
  std::optional<Expected<rt::BufferRef>> copy;
  {
    nb::gil_scoped_release unlocked;
    Expected<device::Literal> literal = buffer.toLiteral();
    if (literal)
      copy.emplace(client.bufferFromLiteral(*literal, device));
    else
      copy.emplace(literal.takeStatus());
  }
  return unwrap(std::move(*copy));
}

rt::BufferRef bufferFromPyval(rt::Client& client, nb::handle x, rt::Device* device, bool zeroCopy) {
  if (nb::isinstance<PyArray>(x)) {
    const rt::BufferRef& buffer = nb::cast<const PyArray&>(x).buffer;
    if (!device || &buffer->device() == device) return buffer;
    return copyTo(client, *buffer, device);
  }
  nb::object array = asNumpy(x);
  // kiln's layout is little-endian: swap '>f4' and the like first.
  if (!nb::cast<bool>(array.attr("dtype").attr("isnative")))
    array = array.attr("astype")(array.attr("dtype").attr("newbyteorder")("="));
  std::string dtypeName = nb::cast<std::string>(array.attr("dtype").attr("name"));
  std::optional<Type> element = elementTypeOfDtypeName(dtypeName);
  if (!element) raise(ErrorCode::InvalidArgument, "kiln has no element type for numpy dtype '" + dtypeName + "'");
  std::vector<int64_t> shape;
  for (nb::handle d : array.attr("shape")) shape.push_back(nb::cast<int64_t>(d));
  Type type = Type::tensor(shape, *element);

  // int2/int4 differ in layout (see dtypes.h), so they are always copied.
  bool subByteSigned = isSubByteSignedInteger(*element);
  if (zeroCopy && !subByteSigned) {
    if (!nb::cast<bool>(array.attr("flags")["C_CONTIGUOUS"]))
      raise(ErrorCode::InvalidArgument, "zero_copy needs a C-contiguous array");
    int64_t bytes = nb::cast<int64_t>(array.attr("nbytes"));
    PyObject* keep = array.release().ptr();  // our reference, dropped by the release callback
    auto release = [keep] {
      if (!Py_IsInitialized() || pythonIsFinalizing()) return;
      nb::gil_scoped_acquire locked;
      Py_DECREF(keep);
    };
    return unwrap(client.bufferFromHost(reinterpret_cast<const void*>(dataPointer(keep)), bytes, type, device,
                                        rt::Client::HostSemantics::kZeroCopy, release));
  }
  array = numpy().attr("ascontiguousarray")(array);
  int64_t bytes = nb::cast<int64_t>(array.attr("nbytes"));
  const void* data = reinterpret_cast<const void*>(dataPointer(array));
  if (subByteSigned) {
    std::vector<uint8_t> copy(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + bytes);
    signExtendSubByte(copy.data(), bytes, element->bitWidth());
    return unwrap(client.bufferFromHost(copy.data(), bytes, type, device, rt::Client::HostSemantics::kCopy));
  }
  return unwrap(client.bufferFromHost(data, bytes, type, device, rt::Client::HostSemantics::kCopy));
}

// A numpy array over the buffer's memory (waiting for it), which keeps that
// memory alive. Read-only unless `writable` (DLPack export).
nb::object numpyView(const PyArray& a, bool writable) {
  Type type = a.buffer->type();
  if (!type.isTensor()) raise(ErrorCode::InvalidArgument, "a " + type.str() + " has no array value");
  awaitInterruptibly(a.buffer->readyEvent());
  std::optional<Expected<device::Literal>> literal;
  {
    nb::gil_scoped_release unlocked;
    literal.emplace(a.buffer->toLiteral());
  }
  device::Literal data = unwrap(std::move(*literal));
  nb::object dtype = dtypeOf(type.elementType());
  nb::tuple shape = shapeTuple(type);
  if (data.byteSize() == 0) return numpy().attr("empty")(shape, dtype);
  nb::object view;
  if (isSubByteSignedInteger(type.elementType())) {
    // A converted copy: ml_dtypes keeps only the low bits.
    std::string bytes(reinterpret_cast<const char*>(data.bytes()), data.byteSize());
    truncateSubByte(reinterpret_cast<uint8_t*>(bytes.data()), bytes.size(), type.elementType().bitWidth());
    view = numpy().attr("frombuffer")(nb::bytes(bytes.data(), bytes.size()), "uint8").attr("copy")();
  } else {
    // The array's memory is the buffer's; the capsule keeps it alive.
    auto* owner = new device::Literal(std::move(data));
    nb::capsule capsule(owner, [](void* p) noexcept { delete static_cast<device::Literal*>(p); });
    size_t n = owner->byteSize();
    nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>> bytes(const_cast<uint8_t*>(owner->bytes()), {n}, capsule);
    view = nb::cast(bytes);
  }
  view = view.attr("view")(dtype).attr("reshape")(shape);
  if (!writable) view.attr("setflags")("write"_a = false);
  return view;
}

PyTypeObject* ndarrayType() {
  static PyObject* type = nb::object(numpy().attr("ndarray")).release().ptr();  // held until exit
  return reinterpret_cast<PyTypeObject*>(type);
}

// A C-contiguous numpy array of a dtype kiln has, as a buffer over the
// array's own memory (no copy: executions only read their arguments); the
// buffer holds a reference to the array until it goes. Null when `x` is not
// such an array: the caller copies it instead.
rt::BufferRef borrowNumpy(rt::Client& client, nb::handle x, rt::Device* device) {
  if (Py_TYPE(x.ptr()) != ndarrayType()) return nullptr;
  nb::object dtype = x.attr("dtype");
  std::optional<Type> element = elementTypeOfDtype(dtype);
  if (!element || isSubByteSignedInteger(*element)) return nullptr;
  Py_buffer view;
  if (PyObject_GetBuffer(x.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) {
    PyErr_Clear();  // not C-contiguous, or a dtype numpy cannot describe as a buffer
    return nullptr;
  }
  std::vector<int64_t> shape(view.shape, view.shape + view.ndim);
  const void* data = view.buf;
  int64_t bytes = view.len;
  PyBuffer_Release(&view);  // the reference taken below keeps the memory
  Py_INCREF(x.ptr());
  PyObject* keep = x.ptr();
  auto release = [keep] {
    if (!Py_IsInitialized() || pythonIsFinalizing()) return;
    nb::gil_scoped_acquire locked;
    Py_DECREF(keep);
  };
  return unwrap(client.bufferFromHost(data, bytes, Type::tensor(shape, *element), device,
                                      rt::Client::HostSemantics::kZeroCopy, release));
}

std::vector<rt::BufferRef> argumentBuffers(rt::Client& client, nb::handle args, rt::Device* device) {
  std::vector<rt::BufferRef> buffers;
  for (nb::handle x : args) {
    if (nb::isinstance<PyArray>(x))
      buffers.push_back(nb::cast<const PyArray&>(x).buffer);  // the runtime checks its device
    else
      buffers.push_back(bufferFromPyval(client, x, device, false));
  }
  return buffers;
}

// `weak[i]` marks result i weakly typed (empty: none is).
nb::list wrapBuffers(const ClientRef& client, const std::vector<rt::BufferRef>& buffers,
                     const std::vector<bool>& weak = {}) {
  nb::list out;
  for (size_t i = 0; i < buffers.size(); ++i)
    out.append(nb::cast(PyArray{client, buffers[i], i < weak.size() && weak[i]}));
  return out;
}

nb::list typeList(std::span<const Type> types) {
  nb::list out;
  for (Type t : types) out.append(typeTuple(t));
  return out;
}

rt::ExecuteOptions executeOptions(const std::vector<int>& donate) {
  rt::ExecuteOptions options;
  options.donatedArguments = donate;
  return options;
}

// --- Tensors of other frameworks through DLPack (kiln.torch's calls) --------
//
// A DLPackCall runs one executable on framework tensors (PyTorch's) and gives
// framework tensors back, all in one C++ call: the arguments' memory is
// borrowed through DLPack capsules (torch._C._to_dlpack, ~0.4 µs each) and
// each result is handed over as a capsule owning the result's memory
// (torch._C._from_dlpack). No numpy, no per-argument Python code.

// The DLPack ABI (dlpack.h, unversioned "dltensor" capsules).
struct DLDevice {
  int32_t deviceType;
  int32_t deviceId;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null: compact row-major
  uint64_t byteOffset;
};
struct DLManagedTensor {
  DLTensor tensor;
  void* managerContext;
  void (*deleter)(DLManagedTensor* self);
};
constexpr int32_t kDLCPU = 1;
enum DLTypeCode : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLComplex = 5, kDLBool = 6 };

struct DLPackElement {
  TypeKind kind;
  DLDataType dtype;
};
constexpr DLPackElement kDLPackElements[] = {
    {TypeKind::I1, {kDLBool, 8, 1}},         {TypeKind::SI8, {kDLInt, 8, 1}},
    {TypeKind::SI16, {kDLInt, 16, 1}},       {TypeKind::SI32, {kDLInt, 32, 1}},
    {TypeKind::SI64, {kDLInt, 64, 1}},       {TypeKind::UI8, {kDLUInt, 8, 1}},
    {TypeKind::UI16, {kDLUInt, 16, 1}},      {TypeKind::UI32, {kDLUInt, 32, 1}},
    {TypeKind::UI64, {kDLUInt, 64, 1}},      {TypeKind::F16, {kDLFloat, 16, 1}},
    {TypeKind::BF16, {kDLBfloat, 16, 1}},    {TypeKind::F32, {kDLFloat, 32, 1}},
    {TypeKind::F64, {kDLFloat, 64, 1}},      {TypeKind::Complex64, {kDLComplex, 64, 1}},
    {TypeKind::Complex128, {kDLComplex, 128, 1}},
};

std::optional<DLDataType> dlpackDtypeOf(Type element) {
  for (const DLPackElement& e : kDLPackElements)
    if (element.kind() == e.kind) return e.dtype;  // by kind: Type::element takes the uniquer's lock
  return std::nullopt;
}

std::string describeDLPackDtype(DLDataType d) {
  for (const DLPackElement& e : kDLPackElements)
    if (e.dtype.code == d.code && e.dtype.bits == d.bits && e.dtype.lanes == d.lanes)
      return Type::element(e.kind).str();
  return "DLPack dtype (code " + std::to_string(d.code) + ", " + std::to_string(d.bits) + " bits, " +
         std::to_string(d.lanes) + " lanes)";
}

std::string describeShape(const int64_t* dims, int64_t rank) {
  std::string s = "[";
  for (int64_t i = 0; i < rank; ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

// Row-major without gaps (strides of size-1 dimensions do not matter).
bool isCompact(const DLTensor& t) {
  if (!t.strides) return true;
  int64_t expected = 1;
  for (int32_t i = t.ndim - 1; i >= 0; --i) {
    if (t.shape[i] == 0) return true;
    if (t.shape[i] != 1 && t.strides[i] != expected) return false;
    expected *= t.shape[i];
  }
  return true;
}

struct PyDLPackCall {
  ClientRef client;
  std::shared_ptr<rt::Executable> executable;
  std::vector<int> positions;  // the call argument each program parameter is
  std::vector<int> outputs;    // per output: the program result it is, -1: the next of `values`,
                               // -2 - i: call argument i itself
  nb::list values;             // outputs that are Python values, in order
  nb::object toDLPack, fromDLPack;
};

// A zero-copy buffer over framework tensor `x`'s memory, which must be
// program parameter `index` of type `expected`; the buffer holds the DLPack
// export (and so the tensor's memory) until it goes.
rt::BufferRef borrowDLPack(const PyDLPackCall& call, nb::handle x, size_t index, Type expected,
                           rt::Device* device) {
  nb::object capsule = call.toDLPack(x);
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (!managed) throw nb::python_error();
  const DLTensor& t = managed->tensor;
  auto where = [&] {  // for errors only: this runs for every argument of every call
    return "argument " + std::to_string(call.positions[index]) + " of " + call.executable->name();
  };
  if (t.device.deviceType != kDLCPU)
    raise(ErrorCode::InvalidArgument, where() + " is not in CPU memory (DLPack device type " +
                                          std::to_string(t.device.deviceType) + ")");
  std::optional<DLDataType> dtype = dlpackDtypeOf(expected.elementType());
  std::span<const int64_t> shape = expected.shape();
  bool sameShape = t.ndim == static_cast<int32_t>(shape.size()) && std::equal(shape.begin(), shape.end(), t.shape);
  if (!dtype || t.dtype.code != dtype->code || t.dtype.bits != dtype->bits || t.dtype.lanes != 1 || !sameShape)
    raise(ErrorCode::InvalidArgument, where() + " is " + describeDLPackDtype(t.dtype) + describeShape(t.shape, t.ndim) +
                                          ", the program was compiled for " + expected.elementType().str() +
                                          describeShape(shape.data(), static_cast<int64_t>(shape.size())));
  if (!isCompact(t)) return borrowDLPack(call, x.attr("contiguous")(), index, expected, device);
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");  // the buffer's now: we call its deleter
  auto release = [managed] {
    if (!managed->deleter || !Py_IsInitialized() || pythonIsFinalizing()) return;
    nb::gil_scoped_acquire locked;
    managed->deleter(managed);
  };
  const void* data = static_cast<const char*>(t.data) + t.byteOffset;
  int64_t bytes = expected.numElements() * expected.elementType().storageBytes();
  Expected<rt::BufferRef> buffer =
      call.client->bufferFromHost(data, bytes, expected, device, rt::Client::HostSemantics::kZeroCopy, release);
  if (!buffer) release();
  return unwrap(std::move(buffer));
}

// What a result capsule owns: the result's memory and the DLPack description.
struct DLPackResult {
  DLManagedTensor managed;
  device::Literal literal;
  std::vector<int64_t> shape, strides;
};

// Result `buffer` (ready, of tensor type `type`) as a framework tensor
// sharing its memory.
nb::object exportDLPack(const PyDLPackCall& call, device::Literal literal, Type type) {
  std::optional<DLDataType> dtype = dlpackDtypeOf(type.elementType());
  if (!dtype)
    raise(ErrorCode::Unimplemented, "a result of " + call.executable->name() + " is " + type.str() +
                                        ", which DLPack has no dtype for");
  auto* owner = new DLPackResult{{}, std::move(literal), {}, {}};
  std::span<const int64_t> shape = type.shape();
  owner->shape.assign(shape.begin(), shape.end());
  owner->strides.resize(shape.size());
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    owner->strides[i] = stride;
    stride *= shape[i];
  }
  static uint64_t emptyData = 0;  // an empty tensor still needs a pointer
  DLTensor& t = owner->managed.tensor;
  t.data = owner->literal.byteSize() ? static_cast<void*>(const_cast<uint8_t*>(owner->literal.bytes()))
                                     : static_cast<void*>(&emptyData);
  t.device = {kDLCPU, 0};
  t.ndim = static_cast<int32_t>(shape.size());
  t.dtype = *dtype;
  t.shape = owner->shape.data();
  t.strides = owner->strides.data();
  t.byteOffset = 0;
  owner->managed.managerContext = owner;
  owner->managed.deleter = [](DLManagedTensor* self) { delete static_cast<DLPackResult*>(self->managerContext); };
  PyObject* capsule = PyCapsule_New(&owner->managed, "dltensor", [](PyObject* c) {
    // Never consumed (the consumer renames what it takes): ours to free.
    if (auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, "dltensor"))) m->deleter(m);
    else PyErr_Clear();
  });
  if (!capsule) {
    delete owner;
    throw nb::python_error();
  }
  return call.fromDLPack(nb::steal(capsule));
}

nb::list runDLPackCall(const PyDLPackCall& call, nb::handle args, bool boxed) {
  if (!PyList_Check(args.ptr()) && !PyTuple_Check(args.ptr()))
    raise(ErrorCode::InvalidArgument, "a DLPackCall takes its arguments as a list or tuple");
  size_t count = static_cast<size_t>(PySequence_Fast_GET_SIZE(args.ptr()));
  std::span<const Type> params = call.executable->parameterTypes();
  rt::Device* device = call.client->devices()[0];
  std::vector<rt::BufferRef> buffers;
  buffers.reserve(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    size_t at = static_cast<size_t>(call.positions[i]);
    if (at >= count)
      raise(ErrorCode::InvalidArgument, call.executable->name() + " takes at least " + std::to_string(at + 1) +
                                            " arguments, got " + std::to_string(count));
    buffers.push_back(borrowDLPack(call, PySequence_Fast_GET_ITEM(args.ptr(), at), i, params[i], device));
  }
  std::vector<nb::object> passed;  // arguments that are outputs themselves, kept before `args` is emptied
  for (int o : call.outputs) {
    if (o > -2) continue;
    size_t at = static_cast<size_t>(-2 - o);
    if (at >= count)
      raise(ErrorCode::InvalidArgument, call.executable->name() + " returns argument " + std::to_string(at) +
                                            " but got " + std::to_string(count));
    passed.push_back(nb::borrow(PySequence_Fast_GET_ITEM(args.ptr(), at)));
  }
  // Boxed calling convention (AOTAutograd's): the callee drops the caller's
  // references, so that what only the program still reads can be freed.
  if (boxed && PyList_Check(args.ptr()) && PyList_SetSlice(args.ptr(), 0, PyList_GET_SIZE(args.ptr()), nullptr) != 0)
    throw nb::python_error();
  std::optional<Expected<std::vector<rt::BufferRef>>> results;
  {
    nb::gil_scoped_release unlocked;
    rt::ExecuteOptions options = executeOptions({});
    options.callerWaits = true;  // awaited just below: no hand-off to a worker and back
    results.emplace(call.executable->execute(buffers, options));
  }
  std::vector<rt::BufferRef> done = unwrap(std::move(*results));
  for (const rt::BufferRef& r : done) awaitInterruptibly(r->readyEvent());
  std::vector<std::optional<Expected<device::Literal>>> literals(done.size());
  {
    nb::gil_scoped_release unlocked;
    for (size_t i = 0; i < done.size(); ++i) literals[i].emplace(done[i]->toLiteral());
  }
  nb::list out;
  size_t nextValue = 0, nextPassed = 0;
  for (int o : call.outputs) {
    if (o < -1) {
      out.append(passed[nextPassed++]);
      continue;
    }
    if (o < 0) {
      out.append(call.values[nextValue++]);
      continue;
    }
    const Expected<device::Literal>& literal = *literals[o];
    if (!literal) raise(literal.status());
    out.append(exportDLPack(call, *literal, done[o]->type()));
  }
  return out;
}

}  // namespace
}  // namespace kiln::python

// --- The module -------------------------------------------------------------

using namespace kiln;
using namespace kiln::python;

NB_MODULE(_kiln, m) {
  m.doc() = "kiln's runtime: clients, devices, arrays and executables";
  // Frameworks keep compiled functions (and the kiln objects inside them)
  // until the interpreter exits -- TorchDynamo's caches on code objects are
  // never freed -- so nanobind's check for instances alive at exit printed
  // "leaked" lines after every torch.compile user's run.
  nb::set_leak_warnings(false);
  { void bindFlags(nb::module_&); bindFlags(m); }  // flags_binding.cpp: the KILN_FLAGS registry
  { void bindTrace(nb::module_&); bindTrace(m); }  // trace_binding.cpp: kiln.profile

  gKilnError = PyErr_NewExceptionWithDoc("kiln._kiln.KilnError",
                                         "An error from kiln; `code` names its kind (e.g. \"INVALID_ARGUMENT\"), "
                                         "`message` is kiln's diagnostic.",
                                         PyExc_Exception, nullptr);
  m.attr("KilnError") = nb::handle(gKilnError);
  nb::register_exception_translator(translateKilnException);

  nb::class_<PyDevice>(m, "Device")
      .def_prop_ro("id", [](const PyDevice& d) { return d.device->id(); })
      .def_prop_ro("kind", [](const PyDevice& d) { return d.device->kind(); })
      .def_prop_ro("attributes",
                   [](const PyDevice& d) {
                     nb::dict out;
                     for (const auto& [name, value] : d.device->attributes()) {
                       if (const int64_t* i = std::get_if<int64_t>(&value))
                         out[name.c_str()] = *i;
                       else
                         out[name.c_str()] = std::get<std::string>(value);
                     }
                     return out;
                   })
      .def("memory_stats",
           [](const PyDevice& d) {
             rt::MemoryStats s = d.device->memoryStats();
             nb::dict out;
             out["bytes_in_use"] = s.bytesInUse;
             out["peak_bytes_in_use"] = s.peakBytesInUse;
             out["num_allocations"] = s.numAllocations;
             return out;
           })
      .def("__repr__", [](const PyDevice& d) { return d.device->debugString(); })
      .def("__eq__", [](const PyDevice& a, nb::handle b) {
        return nb::isinstance<PyDevice>(b) && nb::cast<const PyDevice&>(b).device == a.device;
      })
      .def("__hash__", [](const PyDevice& d) { return std::hash<const void*>()(d.device); });

  nb::class_<PyArray>(m, "Array")
      .def_prop_ro("shape", [](const PyArray& a) { return shapeTuple(a.buffer->type()); })
      .def_prop_ro("dtype", [](const PyArray& a) {
        Type t = a.buffer->type();
        return t.isTensor() ? dtypeOf(t.elementType()) : nb::none();
      })
      .def_prop_ro("ndim", [](const PyArray& a) { return a.buffer->type().isTensor() ? a.buffer->type().rank() : 0; })
      .def_prop_ro("size", [](const PyArray& a) {
        return a.buffer->type().isTensor() ? a.buffer->type().numElements() : 0;
      })
      .def_prop_ro("nbytes", [](const PyArray& a) { return a.buffer->byteSize(); })
      .def_prop_ro("device", [](const PyArray& a) { return PyDevice{a.client, &a.buffer->device()}; })
      .def_prop_ro("weak_type", [](const PyArray& a) { return a.weakType; })
      .def(
          "__array__",
          [](const PyArray& a, nb::object dtype, nb::object copy) {
            nb::object view = numpyView(a, false);
            bool wantCopy = !copy.is_none() && nb::cast<bool>(copy);
            if (!dtype.is_none()) return view.attr("astype")(dtype);
            return wantCopy ? view.attr("copy")() : view;
          },
          "dtype"_a = nb::none(), "copy"_a = nb::none())
      .def("numpy", [](const PyArray& a) { return numpyView(a, false); })
      .def("__dlpack__",
           [](const PyArray& a, nb::kwargs kwargs) { return numpyView(a, true).attr("__dlpack__")(**kwargs); })
      .def("__dlpack_device__", [](const PyArray&) { return nb::make_tuple(1, 0); })  // (kDLCPU, 0)
      .def("block_until_ready",
           [](nb::handle self) {
             const PyArray& a = nb::cast<const PyArray&>(self);
             awaitInterruptibly(a.buffer->readyEvent());
             Status s;
             {
               nb::gil_scoped_release unlocked;
               s = a.buffer->awaitReady();
             }
             check(s);
             if (a.buffer->isDeleted() || a.buffer->isDonated()) {
               nb::gil_scoped_release unlocked;
               check(a.buffer->toLiteral().status());
             }
             return nb::borrow(self);
           })
      .def("is_ready", [](const PyArray& a) { return a.buffer->readyEvent().isReady(); })
      .def("delete", [](const PyArray& a) { a.buffer->deleteBuffer(); })
      .def("is_deleted", [](const PyArray& a) { return a.buffer->isDeleted() || a.buffer->isDonated(); })
      .def("is_donated", [](const PyArray& a) { return a.buffer->isDonated(); })
      // A copy on the same device (copy.copy and copy.deepcopy; jax.Array.copy).
      .def("copy", [](const PyArray& a) {
        return PyArray{a.client, copyTo(*a.client, *a.buffer, &a.buffer->device()), a.weakType};
      });

  nb::class_<PyExecutable>(m, "Executable")
      .def_prop_ro("name", [](const PyExecutable& e) { return e.executable->name(); })
      .def("parameter_types", [](const PyExecutable& e) { return typeList(e.executable->parameterTypes()); })
      .def("result_types", [](const PyExecutable& e) { return typeList(e.executable->resultTypes()); })
      .def(
          "execute",
          [](const PyExecutable& e, nb::handle args, std::vector<int> donate, std::vector<bool> weakTypes) {
            // Host arguments go where the Array arguments are (device 0 if none).
            auto ownArray = [&](nb::handle x) {
              return nb::isinstance<PyArray>(x) && nb::cast<const PyArray&>(x).client == e.client;
            };
            rt::Device* device = e.client->devices()[0];
            for (nb::handle x : args)
              if (ownArray(x)) {
                device = &nb::cast<const PyArray&>(x).buffer->device();
                break;
              }
            // numpy arguments are borrowed, not copied, unless donated (the
            // program may write a donated argument's memory) or the program
            // has no result to wait for (see below).
            bool mayBorrow = !e.executable->resultTypes().empty();
            std::vector<rt::BufferRef> buffers;
            bool borrowed = false;
            for (nb::handle x : args) {
              if (ownArray(x)) {
                buffers.push_back(nb::cast<const PyArray&>(x).buffer);  // the runtime checks its device
                continue;
              }
              // An Array of another client (one made before kiln.config
              // changed, say) is copied like host data.
              bool isDonated = std::find(donate.begin(), donate.end(), static_cast<int>(buffers.size())) != donate.end();
              rt::BufferRef b = mayBorrow && !isDonated ? borrowNumpy(*e.client, x, device) : nullptr;
              borrowed = borrowed || b;
              buffers.push_back(b ? std::move(b) : bufferFromPyval(*e.client, x, device, false));
            }
            // A borrowed argument makes the call synchronous (below): the
            // caller waits, so a worker would only add two thread wake-ups.
            // Otherwise the results usually are waited for soon (kiln.jit's
            // calls): run on this thread when the device is idle, which keeps
            // the order of earlier asynchronous calls (docs/runtime.md).
            rt::ExecuteOptions options = executeOptions(donate);
            options.callerWaits = borrowed;
            options.callerWaitsWhenIdle = true;
            std::optional<Expected<std::vector<rt::BufferRef>>> results;
            {
              nb::gil_scoped_release unlocked;
              results.emplace(e.executable->execute(buffers, options));
            }
            // The caller may write its numpy arrays once we return: an
            // execution that did not run inline must be done reading them
            // (unless interrupted: the borrowed arrays stay alive with the
            // buffers the execution holds).
            if (borrowed && *results)
              for (const rt::BufferRef& r : **results) awaitInterruptibly(r->readyEvent());
            return wrapBuffers(e.client, unwrap(std::move(*results)), weakTypes);
          },
          "args"_a, "donate"_a = std::vector<int>{}, "weak_types"_a = std::vector<bool>{})
      .def(
          "execute_sharded",
          [](const PyExecutable& e, nb::handle argsPerDevice, std::vector<int> donate) {
            std::vector<std::vector<rt::BufferRef>> lists;
            std::span<rt::Device* const> devices = e.client->devices();
            for (nb::handle args : argsPerDevice) {
              if (lists.size() >= devices.size())
                raise(ErrorCode::InvalidArgument, "execute_sharded: more argument lists than the client's " +
                                                      std::to_string(devices.size()) + " devices");
              lists.push_back(argumentBuffers(*e.client, args, devices[lists.size()]));
            }
            std::optional<Expected<std::vector<std::vector<rt::BufferRef>>>> results;
            {
              nb::gil_scoped_release unlocked;
              results.emplace(e.executable->executeSharded(lists, executeOptions(donate)));
            }
            nb::list out;
            for (const auto& perDevice : unwrap(std::move(*results))) out.append(wrapBuffers(e.client, perDevice));
            return out;
          },
          "args_per_device"_a, "donate"_a = std::vector<int>{})
      .def("cost_analysis",
           [](const PyExecutable& e) {
             rt::CostAnalysis cost = e.executable->costAnalysis();
             nb::list kernels;
             for (const rt::KernelCost& k : cost.kernels) {
               nb::dict kd;
               kd["name"] = k.name;
               kd["location"] = k.location;
               kd["flops"] = k.flops;
               kd["bytes_accessed"] = k.bytesAccessed;
               kernels.append(kd);
             }
             nb::dict out;
             out["flops"] = cost.flops;
             out["bytes_accessed"] = cost.bytesAccessed;
             out["kernels"] = kernels;
             return out;
           })
      // One call with framework tensors: parameter i is args[positions[i]],
      // read in place through to_dlpack(tensor); outputs[j] is the program
      // result given back through from_dlpack(capsule), -1 for the next of
      // `values`, or -2 - i for argument i itself. Shapes and dtypes must be
      // the program's.
      .def(
          "dlpack_call",
          [](const PyExecutable& e, std::vector<int> positions, std::vector<int> outputs, nb::list values,
             nb::object toDLPack, nb::object fromDLPack) {
            std::span<const Type> params = e.executable->parameterTypes();
            if (positions.size() != params.size())
              raise(ErrorCode::InvalidArgument, "dlpack_call: " + std::to_string(positions.size()) +
                                                    " positions for " + std::to_string(params.size()) + " parameters");
            for (Type p : params)
              if (!p.isTensor() || !dlpackDtypeOf(p.elementType()))
                raise(ErrorCode::InvalidArgument, "dlpack_call: a parameter of type " + p.str() + " has no DLPack dtype");
            size_t results = e.executable->resultTypes().size(), valueCount = 0;
            for (int o : outputs) {
              if (o == -1) ++valueCount;
              if (o >= static_cast<int>(results))
                raise(ErrorCode::InvalidArgument, "dlpack_call: output " + std::to_string(o) + " of " +
                                                      std::to_string(results) + " results");
            }
            if (valueCount != nb::len(values))
              raise(ErrorCode::InvalidArgument, "dlpack_call: outputs name " + std::to_string(valueCount) +
                                                    " values, got " + std::to_string(nb::len(values)));
            return PyDLPackCall{e.client, e.executable, std::move(positions), std::move(outputs), values, toDLPack,
                                fromDLPack};
          },
          "positions"_a, "outputs"_a, "values"_a, "to_dlpack"_a, "from_dlpack"_a)
      .def("optimized_text", [](const PyExecutable& e) { return e.executable->optimizedModuleText(); })
      .def("compile_stats", [](const PyExecutable& e) {
        rt::CompileStats s = e.executable->compileStats();
        nb::dict out;
        out["pipeline_seconds"] = s.pipelineSeconds;
        out["codegen_seconds"] = s.codegenSeconds;
        out["kernels"] = s.kernels;
        out["library_calls"] = s.libraryCalls;
        out["routines"] = s.routines;
        return out;
      });

  nb::class_<PyDLPackCall>(m, "DLPackCall",
                           "An executable called with framework tensors (DLPack producers), returning framework "
                           "tensors: Executable.dlpack_call(...) makes one.")
      .def("__call__", [](const PyDLPackCall& c, nb::handle args) { return runDLPackCall(c, args, true); }, "args"_a)
      // AOTAutograd passes a list it expects the callee to empty.
      .def_prop_ro("_boxed_call", [](const PyDLPackCall&) { return true; });

  nb::class_<PyClient>(m, "Client")
      .def(
          "__init__",
          [](PyClient* self, int numDevices, std::string backend, int numThreads, std::string cacheDir) {
            rt::ClientOptions options;
            options.numDevices = numDevices;
            options.backend = std::move(backend);
            options.numThreads = numThreads;
            options.cacheDir = std::move(cacheDir);
            new (self) PyClient{adoptClient(unwrap(rt::Client::create(options)))};
          },
          "num_devices"_a = 1, "backend"_a = "cpu", "num_threads"_a = 0, "cache_dir"_a = "")
      .def_prop_ro("platform_name", [](const PyClient& c) { return c.client->platformName(); })
      .def_prop_ro("platform_version", [](const PyClient& c) { return c.client->platformVersion(); })
      .def("devices",
           [](const PyClient& c) {
             nb::list out;
             for (rt::Device* d : c.client->devices()) out.append(nb::cast(PyDevice{c.client, d}));
             return out;
           })
      .def(
          "compile",
          [](const PyClient& c, std::string text, std::string entry, std::string dumpDir, std::string filename) {
            return compileProgram(c, text, std::move(entry), std::move(dumpDir), filename);
          },
          "text"_a, "entry"_a = "main", "dump_dir"_a = "", "filename"_a = "<input>")
      // A StableHLO portable artifact (MLIR bytecode), as jax.export writes it.
      .def(
          "compile",
          [](const PyClient& c, nb::bytes artifact, std::string entry, std::string dumpDir, std::string filename) {
            return compileProgram(c, std::string(artifact.c_str(), artifact.size()), std::move(entry),
                                  std::move(dumpDir), filename);
          },
          "text"_a, "entry"_a = "main", "dump_dir"_a = "", "filename"_a = "<input>")
      .def(
          "buffer_from_pyval",
          [](const PyClient& c, nb::handle x, std::optional<PyDevice> device, bool zeroCopy, bool weakType) {
            rt::Device* d = device ? device->device : c.client->devices()[0];
            return PyArray{c.client, bufferFromPyval(*c.client, x, d, zeroCopy), weakType};
          },
          "x"_a, "device"_a = nb::none(), "zero_copy"_a = false, "weak_type"_a = false);
}
