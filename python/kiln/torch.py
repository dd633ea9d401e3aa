"""kiln.torch: PyTorch programs compiled and run by kiln (docs/torch.md).

    import kiln.torch                                  # or just `import kiln`
    fast = torch.compile(model, backend="kiln")        # inference and training
    exported = kiln.torch.export(model, (x,))          # StableHLO text: exported.text
    t = kiln.torch.to_torch(kiln_array)                # DLPack, no copy

How a graph gets to kiln: TorchDynamo captures it, AOTAutograd splits it into
forward and backward graphs of ATen core ops (decomposed with PyTorch's own
core ATen decompositions), and each graph is *interpreted* node by node with
the lowerings of kiln/torch_ops.py while JAX traces; JAX emits StableHLO,
kiln compiles it. One executable per graph and per input signature (shapes,
dtypes, the values of integer size arguments), so symbolic shapes become
concrete here and a new shape compiles again. Each call is one C++ call
(kiln._kiln.DLPackCall): tensors in and out through DLPack, nothing per
argument in Python. Random ops draw from a seed each call takes from
PyTorch's default generator (docs/torch.md, "Random numbers").

An ATen op without a lowering raises UnsupportedOp naming the op and the
line of the model that called it, before anything runs; under torch.compile
the option {"fallback": "eager"} runs such a graph in eager PyTorch instead
(with a warning), as a graph break would.
"""
from __future__ import annotations

import atexit
import itertools
import operator
import threading
import warnings
import weakref
from typing import Any, NamedTuple

import jax
import ml_dtypes
from jax import lax
import numpy as np
import torch

from kiln._kiln import Array
from kiln.api import client_for_key, client_key
from kiln.torch_ops import _PYTHON_OPS, LOWERINGS, RANDOM_OPS, REFUSED, jax_dtype

__all__ = ["UnsupportedOp", "compile_backend", "decompositions", "export", "Exported", "to_torch", "from_torch",
           "supported_ops"]


class UnsupportedOp(NotImplementedError):
    """An ATen op that kiln cannot lower (or not with these arguments)."""

    def __init__(self, op, where: str, why: str = ""):
        self.op, self.where = str(op), where
        reason = f" ({why})" if why else ""
        super().__init__(f"kiln.torch: no lowering for the ATen op {op}{reason}; called from {where}")


def supported_ops() -> list[str]:
    """The names of the ATen overloads kiln lowers."""
    return sorted(str(op) for op in LOWERINGS)


def decompositions() -> dict:
    """What AOTAutograd and torch.export decompose before kiln lowers: the
    core ATen decompositions (the stable op set kiln/torch_ops.py covers),
    and the recurrent layers (left whole, the CPU runs them as oneDNN kernels)."""
    from torch._decomp import core_aten_decompositions, get_decompositions  # noqa: PLC0415
    aten = torch.ops.aten
    table = dict(core_aten_decompositions())
    table.update(get_decompositions([aten.lstm.input, aten.lstm.data, aten.gru.input, aten.gru.data,
                                     aten.rnn_tanh.input, aten.rnn_relu.input]))
    return table


# -- locating a node in the model's source -------------------------------------

def _location(node) -> str:
    """The model line that produced `node` (from FX's recorded stack trace)."""
    trace = node.meta.get("stack_trace") or ""
    lines = [line.strip() for line in trace.strip().splitlines() if line.strip()]
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith("File "):
            code = lines[i + 1] if i + 1 < len(lines) and not lines[i + 1].startswith("File ") else ""
            return lines[i] + (f": {code}" if code else "")
    return f"FX node '{node.name}' (no source line recorded)"


def check_graph(gm: torch.fx.GraphModule) -> None:
    """Raises UnsupportedOp for the first node kiln has no lowering for."""
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target in REFUSED:
            raise UnsupportedOp(node.target, _location(node), REFUSED[node.target])
        if node.op == "call_function" and not _is_known(node.target):
            raise UnsupportedOp(node.target, _location(node))
        if node.op in ("call_module", "call_method"):
            raise UnsupportedOp(f"{node.op} {node.target}", _location(node), "not an ATen graph")


def _is_known(target) -> bool:
    return target in LOWERINGS or target in _PYTHON_OPS or target is operator.getitem


# -- interpreting an ATen graph with JAX ------------------------------------------

class _Context:
    """What a lowering may ask about the node it lowers."""

    def __init__(self, node, index: int = 0, key=None):
        self.node, self._index, self._key = node, index, key

    def random_key(self):
        """A JAX PRNG key for this node alone (the graph's seed folded with the
        node's position)."""
        if self._key is None:
            raise NotImplementedError("random numbers here (kiln.torch.export programs take no seed)")
        return jax.random.fold_in(self._key, self._index)

    def out_dtype(self, index: int = 0):
        val = self.node.meta.get("val")
        if isinstance(val, (tuple, list)):
            val = val[index]
        return jax_dtype(val.dtype) if isinstance(val, torch.Tensor) else None

    def compute_dtype(self):
        """torch.result_type of the tensor/number arguments: the dtype eager
        computes an elementwise op in."""
        operands = []
        for arg in self.node.args:
            val = arg.meta.get("val") if isinstance(arg, torch.fx.Node) else arg
            if isinstance(val, torch.Tensor):
                operands.append(torch.empty((0,) if val.dim() else (), dtype=val.dtype))
            elif isinstance(val, (bool, int, float)):
                operands.append(val)
            elif isinstance(val, torch.SymInt):
                operands.append(1)
            elif isinstance(val, torch.SymFloat):
                operands.append(1.0)
        if not operands or not any(isinstance(o, torch.Tensor) for o in operands):
            return None
        dtype = operands[0] if len(operands) == 1 else torch.result_type(*operands[:2])
        return jax_dtype(dtype if isinstance(dtype, torch.dtype) else dtype.dtype)


def _check_result(node, value):
    """Casts `value` to the dtype PyTorch recorded for `node` and checks its
    shape: a lowering that disagrees with PyTorch is an error, never a result."""
    val = node.meta.get("val")
    if isinstance(val, (tuple, list)) and isinstance(value, (tuple, list)):
        return type(value)(_match(node, v, m) for v, m in zip(value, val)) if len(val) == len(value) else value
    return _match(node, value, val)


def _match(node, value, val):
    if not isinstance(val, torch.Tensor) or not hasattr(value, "dtype"):
        return value
    dtype = jax_dtype(val.dtype)
    if value.dtype != dtype:
        value = value.astype(dtype)
    shape = tuple(val.shape)
    if all(isinstance(d, int) for d in shape) and tuple(value.shape) != shape:
        raise AssertionError(f"kiln.torch: the lowering of {node.target} made shape {tuple(value.shape)}, "
                             f"PyTorch expects {shape}; called from {_location(node)}")
    return value


_PLACEMENT_KWARGS = ("device", "layout", "pin_memory", "memory_format", "non_blocking")


def interpret(gm: torch.fx.GraphModule, inputs: list, key=None) -> list:
    """Runs `gm`'s graph on `inputs` (JAX values or Python numbers) with the
    lowerings; random ops draw from JAX PRNG key `key`."""
    env: dict = {}
    args_iter = iter(inputs)

    def load(a):
        return torch.fx.node.map_arg(a, lambda n: env[n])

    for index, node in enumerate(gm.graph.nodes):
        if node.op == "placeholder":
            env[node] = next(args_iter)
        elif node.op == "get_attr":  # a constant tensor of the graph (torch.tensor(...) in the model)
            value = _get_attr_path(gm, node.target)
            if not isinstance(value, torch.Tensor):
                raise UnsupportedOp(f"get_attr {node.target}", _location(node), f"a {type(value).__name__}")
            env[node] = jax.numpy.asarray(_as_argument(value))
        elif node.op == "call_function":
            target, args, kwargs = node.target, load(node.args), load(node.kwargs)
            if target is operator.getitem or target in _PYTHON_OPS:
                env[node] = target(*args, **kwargs)
                continue
            lower = LOWERINGS.get(target)
            if lower is None:
                raise UnsupportedOp(target, _location(node))
            kwargs = {k: v for k, v in kwargs.items() if k not in _PLACEMENT_KWARGS}
            try:
                result = lower(_Context(node, index, key), *args, **kwargs)
            except NotImplementedError as error:
                raise UnsupportedOp(target, _location(node), str(error)) from None
            except Exception as error:  # noqa: BLE001
                if not _has_symbolic_shape(node):
                    raise
                # A lowering that needs concrete sizes (numpy index tables, a
                # divisibility test; JAX raises its own error kinds for these).
                raise UnsupportedOp(target, _location(node), f"with symbolic shapes: {error}") from None
            env[node] = _check_result(node, result)
        elif node.op == "output":
            out = load(node.args[0])
            return list(out) if isinstance(out, (tuple, list)) else [out]
        else:
            raise UnsupportedOp(f"{node.op} {node.target}", _location(node), "not an ATen graph")
    raise AssertionError("an FX graph without an output node")


def _has_symbolic_shape(node) -> bool:
    vals = [a.meta.get("val") for a in node.all_input_nodes] + [node.meta.get("val")]
    vals = [v for val in vals for v in (val if isinstance(val, (tuple, list)) else [val])]
    return any(isinstance(v, torch.Tensor) and not all(isinstance(d, int) for d in v.shape) for v in vals)


def _get_attr_path(module, target: str):
    for part in target.split("."):
        module = getattr(module, part)
    return module


def _is_array(x) -> bool:
    return isinstance(x, jax.Array) or isinstance(x, jax.core.Tracer)


class _Spec(NamedTuple):
    """One graph input as the executable is compiled for it."""
    shape: tuple | None   # None: a Python number, baked in
    dtype: Any            # a torch dtype; the number itself when shape is None


def _spec(x) -> _Spec:
    if isinstance(x, torch.Tensor):
        return _Spec(tuple(x.shape), x.dtype)
    if isinstance(x, (bool, int, float)):
        return _Spec(None, x)
    raise TypeError(f"kiln.torch: a graph input of type {type(x).__name__} is neither a tensor nor a number")


def has_random_ops(gm: torch.fx.GraphModule) -> bool:
    return any(node.op == "call_function" and node.target in RANDOM_OPS for node in gm.graph.nodes)


def lower_graph(gm: torch.fx.GraphModule, specs: list[_Spec], constants: dict | None = None, name: str = "graph",
                seeded: bool = False, pass_inputs: bool = False):
    """StableHLO text of `gm` for inputs `specs`, and for each graph output
    either the index of the program result it is, ("value", v) for a Python
    value, or with `pass_inputs` ("input", i) for a graph input returned as it
    is (the caller returns that very tensor: AOTAutograd saves inputs for the
    backward this way, and autograd then sees their in-place updates).

    `constants` maps input positions to tensors baked into the program.
    `seeded`: the program takes one more argument, an int32[2] seed that
    random ops draw from."""
    constants = constants or {}
    layout = {}
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    returned = list(gm.graph.nodes)[-1].args[0]
    returned = list(returned) if isinstance(returned, (tuple, list)) else [returned]

    def flat_fn(*arrays):
        arrays = iter(arrays)
        values = []
        for i, spec in enumerate(specs):
            if i in constants:
                values.append(jax.numpy.asarray(constants[i]))
            else:
                values.append(next(arrays) if spec.shape is not None else spec.dtype)
        key = None
        if seeded:
            seed = lax.bitcast_convert_type(next(arrays), jax.numpy.uint32)
            key = jax.random.wrap_key_data(seed, impl="threefry2x32")
        outs = interpret(gm, values, key)
        results = []
        layout["outputs"] = []
        for out, node in zip(outs, returned):
            position = placeholders.index(node) if pass_inputs and node in placeholders else None
            if position is not None and specs[position].shape is not None and position not in constants:
                layout["outputs"].append(("input", position))
            elif _is_array(out):
                if node.meta.get("val") is not None and not isinstance(node.meta["val"], torch.Tensor):  # an .item()
                    raise UnsupportedOp(f"returning the number {node.name}", _location(node),
                                        "a number computed from tensor values is returned by the graph, "
                                        "kiln's programs return tensors")
                layout["outputs"].append(len(results))
                results.append(out)
            else:
                layout["outputs"].append(("value", out))
        return results

    flat_fn.__name__ = flat_fn.__qualname__ = name  # the module's name: @jit_<name>
    # Symbolic sizes (kiln.torch.export's dynamic_shapes: PyTorch's "s0",
    # "2*s1", ...) become JAX's symbolic dimensions, all in one scope.
    symbolic = any(not isinstance(d, int) for s in specs if s.shape is not None for d in s.shape)
    scope = jax.export.SymbolicScope() if symbolic else None

    def shape_of(shape):
        if all(isinstance(d, int) for d in shape):
            return shape
        return jax.export.symbolic_shape(", ".join(str(d) for d in shape), scope=scope)

    abstract = [jax.ShapeDtypeStruct(shape_of(s.shape), jax_dtype(s.dtype))
                for i, s in enumerate(specs) if s.shape is not None and i not in constants]
    if seeded:
        abstract.append(jax.ShapeDtypeStruct((2,), jax.numpy.int32))
    with jax.enable_x64(True):  # int64 indices and float64 stay what PyTorch says
        if symbolic:  # a shape-polymorphic module (kiln compiles it per concrete shape)
            text = jax.export.export(jax.jit(flat_fn, keep_unused=True), platforms=("cpu",))(*abstract).mlir_module()
        else:
            lowered = jax.jit(flat_fn, keep_unused=True).trace(*abstract).lower(lowering_platforms=("cpu",))
            text = lowered.as_text()
    return text, layout["outputs"]


# -- running on kiln ---------------------------------------------------------------

def _as_argument(t: torch.Tensor):
    """A torch tensor as kiln's execute reads it: a NumPy view of its memory
    (no copy) when it is dense and on the CPU. (NumPy, not the tensor's own
    __dlpack__: kiln takes NumPy arrays directly, ~7x faster per argument.)"""
    if t.requires_grad:
        t = t.detach()
    if not t.is_contiguous():
        t = t.contiguous()
    if t.device.type != "cpu":
        t = t.cpu()
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16 of its own: view the bits
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


_BFLOAT16 = np.dtype(ml_dtypes.bfloat16)


def to_torch(array) -> torch.Tensor:
    """A kiln Array as a torch tensor sharing its memory (DLPack)."""
    dtype = array.dtype
    if dtype.itemsize == 2 and dtype == _BFLOAT16:  # torch does not take numpy's (ml_dtypes') bfloat16: a copy
        return torch.from_numpy(np.array(array).view(np.int16)).view(torch.bfloat16)
    return torch.from_dlpack(array)


def from_torch(t: torch.Tensor, device=None):
    """A torch tensor as a kiln Array (a copy into kiln's buffer); executables
    read torch tensors in place anyway, so this is only for keeping data on a
    kiln device."""
    import kiln  # noqa: PLC0415
    return kiln.device_put(_as_argument(t), device)


class _Entry(NamedTuple):
    executable: Any
    call: Any  # a kiln._kiln.DLPackCall: the whole call (tensors in, tensors out) in C++


def _is_static(inputs) -> bool:
    """Whether every graph input is a tensor of concrete shape (then
    TorchDynamo's guards fix the shapes and dtypes, and one executable serves
    every call)."""
    return all(isinstance(a, torch.Tensor) and all(isinstance(d, int) for d in a.shape) for a in inputs)


def _size_key(gm: torch.fx.GraphModule):
    """For a graph with symbolic shapes whose every size symbol is an integer
    argument of its own (TorchDynamo lifts them: `s0: SymInt` placeholders),
    a function of the call's arguments giving those integers: they fix every
    input shape, and TorchDynamo's guards fix the dtypes, so they identify
    the executable as the full key (each tensor's shape and dtype) does, at a
    fraction of its cost (~0.3 against ~4 us for seven tensors). None where
    that does not hold (a number that is not a lifted size, a size that is
    not one). The executable still checks every shape and dtype it is given."""
    positions, lifted, used = [], set(), set()
    for i, node in enumerate(n for n in gm.graph.nodes if n.op == "placeholder"):
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor):
            used.update(s for d in val.shape if isinstance(d, torch.SymInt) for s in d.node.expr.free_symbols)
        elif isinstance(val, torch.SymInt) and val.node.expr.is_Symbol:
            positions.append(i)
            lifted.add(val.node.expr)
        else:
            return None
    if not positions or not used <= lifted:
        return None
    return operator.itemgetter(*positions) if len(positions) > 1 else operator.itemgetter(positions[0])


class GraphProgram:
    """An ATen FX graph compiled by kiln, callable with its inputs as a list
    (AOTAutograd's boxed convention) or as positional arguments.

    Given example inputs of concrete shapes, it compiles at once and each call
    is one C++ call (kiln._kiln.DLPackCall): the tensors' memory is read in
    place through DLPack and the results come back as tensors over kiln's
    buffers. Otherwise (symbolic shapes, number inputs) it compiles per input
    signature on first use."""

    _boxed_call = True

    def __init__(self, gm: torch.fx.GraphModule, name: str = "graph", backend: str | None = None,
                 example_inputs=None):
        check_graph(gm)
        self.gm, self.name, self.backend = gm, name, backend
        self._cache: dict = {}
        self._by_sizes: dict = {}  # the values of the integer arguments -> DLPackCall (see _size_key)
        self._lock = threading.Lock()
        self._static_call = None
        self._seeded = has_random_ops(gm)
        self._size_key = _size_key(gm)
        _PROGRAMS.add(self)
        if example_inputs is not None and _is_static(example_inputs):
            from torch._subclasses.fake_tensor import unset_fake_temporarily  # noqa: PLC0415
            key = tuple((tuple(a.shape), a.dtype) for a in example_inputs)
            with unset_fake_temporarily():  # AOTAutograd compiles under FakeTensorMode; the graph's constants are real
                self._static_call = self._compile(key, [_spec(a) for a in example_inputs]).call

    def __call__(self, args):
        if not isinstance(args, list):
            args = list(args)
        if self._seeded:
            args.append(_fresh_seed())
        if self._static_call is not None:
            return self._static_call(args)  # checks shapes and dtypes; empties args (boxed)
        if self._size_key is not None:  # the integer size arguments fix every shape
            entry = self._by_sizes.get(self._size_key(args))
            if entry is not None:
                return entry(args)
        # The cache key: shape and dtype of each tensor, type and value of each number.
        graph_args = args[:-1] if self._seeded else args
        key = tuple((tuple(a.shape), a.dtype) if isinstance(a, torch.Tensor) else (type(a), a) for a in graph_args)
        entry = self._cache.get(key)
        if entry is None:
            entry = self._compile(key, [_spec(a) for a in graph_args])
        if self._size_key is not None:
            self._by_sizes[self._size_key(args)] = entry.call
        return entry.call(args)

    # AOTAutograd compiles and runs a backward graph lazily, inside
    # torch.autograd.grad, which may be called from a frame TorchDynamo is
    # compiling: it must not trace kiln's (and JAX's) Python there.
    # A flag on the code object says so (_never_traced below), not a
    # torch._dynamo.disable wrapper, which switches Dynamo's frame hook off
    # and on at every call (~1.5 us).

    def compile_count(self) -> int:
        return len(self._cache)

    def _release(self) -> None:
        self._static_call = None
        self._cache.clear()
        self._by_sizes.clear()

    def _compile(self, key, specs) -> _Entry:
        with self._lock:
            entry = self._cache.get(key)
            if entry is None:
                text, outputs = lower_graph(self.gm, specs, name=self.name, seeded=self._seeded, pass_inputs=True)
                client = client_for_key(client_key(self.backend))
                positions = [i for i, s in enumerate(specs) if s.shape is not None]
                if self._seeded:
                    positions.append(len(specs))  # the seed, appended to the call's arguments
                executable = client.compile(text)
                call = executable.dlpack_call(positions, [o if isinstance(o, int) else -1 if o[0] == "value"
                                                          else -2 - o[1] for o in outputs],
                                              [o[1] for o in outputs if not isinstance(o, int) and o[0] == "value"],
                                              torch._C._to_dlpack, torch._C._from_dlpack)
                entry = _Entry(executable, call)
                self._cache[key] = entry
                _STATS["graphs_compiled"] += 1
            return entry


def _never_traced(fn):
    """Makes TorchDynamo skip `fn`'s frames and every frame they call, as
    torch._dynamo.disable(fn, recursive=True) does, but as a flag on the code
    object that its frame hook reads (how PyTorch skips its own markers)
    instead of a wrapper that switches the hook off and on at every call."""
    eval_frame = torch._C._dynamo.eval_frame
    try:
        skip = eval_frame._FrameExecStrategy(eval_frame._FrameAction.SKIP, eval_frame._FrameAction.SKIP)
        eval_frame.set_code_exec_strategy(fn.__code__, skip)
    except AttributeError:  # a PyTorch without the flag
        return torch._dynamo.disable(fn, recursive=True)
    return fn


GraphProgram.__call__ = _never_traced(GraphProgram.__call__)


def _fresh_seed() -> torch.Tensor:
    """A seed for one call of a graph with random ops, from PyTorch's default
    generator (so torch.manual_seed makes runs repeat)."""
    return torch.randint(-2**31, 2**31 - 1, (2,), dtype=torch.int32)


_STATS = {"graphs_compiled": 0}
_GRAPH_NUMBERS = itertools.count()
# Executables are freed before the interpreter ends, not when TorchDynamo's
# caches happen to be collected (nanobind reports those as leaks).
_PROGRAMS: weakref.WeakSet = weakref.WeakSet()
atexit.register(lambda: [program._release() for program in list(_PROGRAMS)])


def stats() -> dict:
    """Counters for tests and curiosity: graphs_compiled (kiln executables built)."""
    return dict(_STATS)


def compile_backend(gm: torch.fx.GraphModule, example_inputs, options: dict | None = None, **kwargs):
    """The torch.compile backend "kiln": torch.compile(model, backend="kiln",
    options={"fallback": "eager"}) — options: fallback ("error", default, or
    "eager": a graph with an op kiln cannot lower runs in eager PyTorch, with
    a warning), backend ("cpu" or "interpreter", default kiln.config.backend)."""
    from functorch.compile import make_boxed_func  # noqa: PLC0415
    from torch._functorch.aot_autograd import aot_module_simplified  # noqa: PLC0415

    options = dict(options or {}, **kwargs)
    fallback = options.get("fallback", "error")
    if fallback not in ("error", "eager"):
        raise ValueError(f"kiln.torch: option fallback must be 'error' or 'eager', got {fallback!r}")
    unknown = set(options) - {"fallback", "backend"}
    if unknown:
        raise ValueError(f"kiln.torch: unknown option(s) {sorted(unknown)} (known: fallback, backend)")

    def compile_graph(graph: torch.fx.GraphModule, inputs):
        try:
            return GraphProgram(graph, name=f"{gm.__class__.__name__}_{next(_GRAPH_NUMBERS)}",
                                backend=options.get("backend"), example_inputs=inputs)
        except UnsupportedOp as error:
            if fallback != "eager":
                raise
            warnings.warn(f"{error}; this graph runs in eager PyTorch", stacklevel=2)
            return make_boxed_func(graph.forward)

    # A backward graph is compiled lazily, at the first backward, which may
    # run inside a frame TorchDynamo is compiling: it must not trace kiln's
    # (and JAX's) Python there.
    compile_graph = torch._dynamo.disable(compile_graph, recursive=True)

    # Without oneDNN while tracing: nn.LSTM then traces as ATen math instead
    # of the opaque mkldnn_rnn_layer kernel.
    mkldnn_enabled = torch._C._get_mkldnn_enabled()
    torch._C._set_mkldnn_enabled(False)
    try:
        return aot_module_simplified(gm, example_inputs, fw_compiler=compile_graph, bw_compiler=compile_graph,
                                     decompositions=decompositions())
    finally:
        torch._C._set_mkldnn_enabled(mkldnn_enabled)


compile_backend.__name__ = "kiln"


def register() -> None:
    """Makes torch.compile(..., backend="kiln") find compile_backend: named in
    TorchDynamo's registry as an entry point, which torch loads on first use
    (a pip-installed kiln's torch_dynamo_backends entry point says the same)."""
    import kiln  # noqa: PLC0415
    from torch._dynamo.backends import registry  # noqa: PLC0415
    kiln._name_torch_backend(registry)


register()


# -- torch.export -> StableHLO ------------------------------------------------------

class Exported:
    """A torch.export program as StableHLO for kiln (or any StableHLO consumer).

    text: the module; its @main takes `inputs` and returns `outputs`, both
    lists of (kind, name, shape, dtype) in the ExportedProgram's signature
    order (kind: parameter, buffer, constant, input; user_output,
    buffer_mutation, ...). Calling it runs it on kiln with the user inputs
    (parameters and buffers filled in from the model's state)."""

    def __init__(self, text, inputs, outputs, state_args, program):
        self.text, self.inputs, self.outputs = text, inputs, outputs
        self._state_args = state_args  # the tensors passed for parameter/buffer arguments
        self.exported_program = program
        self._compiled = None

    def save(self, path) -> None:
        with open(path, "w") as f:
            f.write(self.text)

    def __call__(self, *user_args):
        if self._compiled is None:
            import kiln  # noqa: PLC0415
            self._compiled = kiln.compile(self.text)
        args = list(self._state_args) + [_as_argument(a) for a in user_args]
        results = self._compiled.executable.execute(args)
        out = [to_torch(r) for r in results]
        return out[0] if len(out) == 1 else tuple(out)


def _shape_of(t: torch.Tensor) -> tuple:
    """A tensor's shape, a symbolic size as PyTorch's expression ("s0", "2*s1")."""
    return tuple(d if isinstance(d, int) else str(d) for d in t.shape)


def export(model: torch.nn.Module, example_args: tuple, example_kwargs: dict | None = None, *,
           params: str = "arguments", strict: bool = False, dynamic_shapes=None) -> Exported:
    """torch.export.export(model, example_args) lowered to StableHLO text.

    params="arguments" (default): parameters, buffers and lifted constants are
    @main arguments ahead of the user inputs, as in the ExportedProgram's
    graph signature; "constants": their current values are baked into the
    module and @main takes the user inputs only. Shapes are the examples',
    except the dimensions `dynamic_shapes` (torch.export's argument, e.g.
    ({0: torch.export.Dim("batch")},)) makes symbolic: those are `?` in the
    module, named in `inputs`/`outputs` by PyTorch's symbols ("s0", ...).
    """
    if params not in ("arguments", "constants"):
        raise ValueError(f"kiln.torch.export: params must be 'arguments' or 'constants', got {params!r}")
    from torch.export import export as torch_export  # noqa: PLC0415
    from torch.export.graph_signature import InputKind  # noqa: PLC0415

    program = torch_export(model, tuple(example_args), example_kwargs, strict=strict, dynamic_shapes=dynamic_shapes)
    program = program.run_decompositions(decompositions())
    gm = program.graph_module
    check_graph(gm)
    signature = program.graph_signature
    state = dict(program.state_dict)
    state.update(program.constants)
    flat_user = torch.utils._pytree.tree_leaves((tuple(example_args), example_kwargs or {}))
    user_iter = iter(flat_user)
    kinds = {InputKind.PARAMETER: "parameter", InputKind.BUFFER: "buffer", InputKind.CONSTANT_TENSOR: "constant",
             InputKind.USER_INPUT: "input"}
    specs, constants, inputs, state_args = [], {}, [], []
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for i, spec in enumerate(signature.input_specs):
        kind = kinds.get(spec.kind)
        if kind is None:
            raise UnsupportedOp(f"input kind {spec.kind}", "torch.export signature")
        value = state[spec.target] if kind != "input" else next(user_iter)
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"kiln.torch.export: input {spec.arg.name} is a {type(value).__name__}, not a tensor")
        value = value.detach()
        shape = _shape_of(placeholders[i].meta.get("val", value))  # symbolic sizes as PyTorch's symbols
        specs.append(_Spec(shape, value.dtype))
        name = spec.target if kind != "input" else spec.arg.name
        if kind != "input" and params == "constants":
            constants[i] = _as_argument(value)
            continue
        if kind != "input":
            state_args.append(_as_argument(value))
        inputs.append((kind, name, shape, str(value.dtype).replace("torch.", "")))
    text, layout = lower_graph(gm, specs, constants, name=type(model).__name__)
    outputs = []
    output_nodes = list(gm.graph.nodes)[-1].args[0]
    for spec, node, where in zip(signature.output_specs, output_nodes, layout):
        if not isinstance(where, int):
            raise UnsupportedOp("a non-tensor output", "torch.export signature")
        val = node.meta["val"]
        outputs.append((spec.kind.name.lower(), spec.target or spec.arg.name, _shape_of(val),
                        str(val.dtype).replace("torch.", "")))
    header = [f"// kiln.torch.export of {type(model).__name__} (params={params})"]
    header += [f"// argument {i}: {k} {n} {list(s)} {d}" for i, (k, n, s, d) in enumerate(inputs)]
    header += [f"// result {i}: {k} {n} {list(s)} {d}" for i, (k, n, s, d) in enumerate(outputs)]
    return Exported("\n".join(header) + "\n" + text, inputs, outputs, state_args, program)
