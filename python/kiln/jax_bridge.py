"""kiln.jit: JAX functions lowered by JAX to StableHLO, compiled and run by kiln.

With kiln/jax_interop.py, the only modules of the package that import JAX
(kiln/__init__.py imports this one on first use of kiln.jit).

    step = kiln.jit(train_step, donate_argnums=(0,))
    params, loss = step(params, batch)

`fn` takes and returns pytrees of arrays (jax.tree_util). On each call the
arguments are flattened to leaves and summarized as a *signature*: the tree
structure, the static arguments, for each leaf its shape, dtype, weak type
and (for typed PRNG keys) key implementation, and the client settings. The
first call with a signature traces `fn` with JAX (`jax.jit(...).trace(...)
.lower(...)`, for the CPU platform; JAX is given `fn`'s debug info, so the
module and the messages name `fn` and its arguments), compiles the StableHLO
text with kiln and caches the executable; later calls with the same
signature only convert arguments and execute. Static and donated arguments
are resolved as jax.jit resolves them; trace/lower/compile/eval_shape are
jax.jit's ahead-of-time stages.

Typed PRNG key arrays (`jax.random.key`) cross the boundary as their key data
(uint32 arrays) and are re-wrapped inside the traced function, so the program
kiln sees is plain integer math; key results come back as JAX key arrays.
Other results are kiln Arrays (`np.asarray(result)` is a zero-copy view)
with the weak type of the program's results.

Called under a JAX transformation (jax.grad, jax.jit, vmap of an enclosing
function: the arguments are tracers), a kiln.jit function simply calls `fn`, as
a nested jax.jit would be inlined.
"""
from __future__ import annotations

import functools
import sys
import threading
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax._src import api_util

from kiln import jax_interop  # noqa: F401  (kiln Arrays as JAX arguments)
from kiln._kiln import Array, Device, KilnError
from kiln.api import check_cache_dir, client_for_key, client_key, kiln_error
from kiln.config import config

_PYTHON_SCALAR_DTYPES = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}


class LeafSpec(NamedTuple):
    """What the compiled program needs to know about one argument leaf.

    (A NamedTuple: signatures are built and hashed on every call.)"""
    shape: tuple[int, ...]
    dtype: np.dtype          # for a typed key: the dtype of its key data
    weak_type: bool = False
    key_impl: Any = None     # a typed PRNG key array's implementation, else None

    def __str__(self):
        text = f"{self.dtype.name}[{','.join(map(str, self.shape))}]"
        if self.key_impl is not None:
            text = f"key<{self.key_impl}> as {text}"
        return f"weak {text}" if self.weak_type else text


class Signature(NamedTuple):
    """Everything a compiled program depends on; the cache key."""
    treedef: Any                      # structure of the dynamic (args, kwargs)
    statics: tuple                    # ((position or name, value), ...)
    leaves: tuple[LeafSpec, ...]
    client: tuple                     # kiln.api.client_key: back end, devices, threads, cache dir
    x64: bool                         # jax_enable_x64 changes how scalars lower


@dataclass
class _Program:
    """`fn` traced by JAX over the leaves of one signature."""
    signature: Signature
    paths: list[str]                  # each leaf's name as jax.jit gives it: x['w'], args[1], ...
    traced: Any                       # jax.stages.Traced
    out_tree: Any
    out_avals: list[Any]              # each result leaf's abstract value (typed keys as keys)
    out_key_impls: list[Any]
    donated_leaves: list[int]

    @functools.cached_property
    def text(self) -> str:
        """The StableHLO kiln compiles."""
        return self.traced.lower(lowering_platforms=("cpu",)).as_text()

    def out_info(self):
        """The results as a pytree of jax.ShapeDtypeStructs (weak types included)."""
        structs = [jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in self.out_avals]
        return jax.tree_util.tree_unflatten(self.out_tree, structs)


class _Entry:
    """One compiled signature, holding what every call reads."""

    def __init__(self, program: _Program, client, executable):
        self.program = program
        self.signature = program.signature
        self.client = client
        self.executable = executable
        self.out_tree = program.out_tree
        self.out_key_impls = program.out_key_impls
        self.has_key_results = any(impl is not None for impl in program.out_key_impls)
        self.donated_leaves = program.donated_leaves
        # The program's out avals say which results JAX types weakly (`lr * 0.9`
        # of a Python float): kiln's results carry it, as jax.jit's do.
        self.weak_types = [bool(a.weak_type) for a in program.out_avals]


class Traced:
    """kiln.jit(f).trace(...): `f` traced for one signature (jax.stages.Traced's counterpart)."""

    def __init__(self, jitted: Jitted, program: _Program):
        self._jitted, self._program = jitted, program

    jaxpr = property(lambda self: self._program.traced.jaxpr)
    fun_name = property(lambda self: self._jitted.name)
    out_info = property(lambda self: self._program.out_info())

    def lower(self) -> Lowered:
        return Lowered(self._jitted, self._program)


class Lowered:
    """The StableHLO text kiln.jit compiles for one signature."""

    def __init__(self, jitted: Jitted, program: _Program):
        self._jitted, self._program = jitted, program

    out_info = property(lambda self: self._program.out_info())

    def as_text(self) -> str:
        return self._program.text

    def compile(self) -> Compiled:
        return Compiled(self._jitted, self._jitted._new_entry(self._program))


class Compiled:
    """kiln.jit(f).lower(...).compile(): callable with arguments of the lowered
    signature; as_text() is kiln's optimized program, cost_analysis() its cost;
    anything else is the kiln Executable's (parameter_types(), ...)."""

    def __init__(self, jitted: Jitted, entry: _Entry):
        self._jitted, self._entry = jitted, entry
        self.executable = entry.executable

    out_info = property(lambda self: self._entry.program.out_info())

    def __call__(self, *args, **kwargs):
        jitted, entry = self._jitted, self._entry
        signature, leaves = jitted._signature(args, kwargs)
        if signature is None:
            raise TypeError(f"kiln.jit({jitted.name}): a compiled function takes concrete arrays, not tracers")
        if signature != entry.signature:
            reasons = _differences(entry.signature, signature, entry.program.paths)
            raise TypeError(f"kiln.jit({jitted.name}): compiled for other arguments; " + "; ".join(reasons))
        return jitted._run(entry, [_to_argument(x, spec) for x, spec in zip(leaves, signature.leaves)])

    def as_text(self) -> str:
        return self.executable.optimized_text()

    def cost_analysis(self) -> dict:
        return self.executable.cost_analysis()

    def __getattr__(self, name):
        return getattr(self.executable, name)


def jit(fn: Callable | None = None, *, static_argnums: int | Sequence[int] | None = None,
        static_argnames: str | Sequence[str] | None = None, donate_argnums: int | Sequence[int] | None = None,
        donate_argnames: str | Sequence[str] | None = None, keep_unused: bool = False,
        device: Device | None = None, backend: str | None = None, inline: bool = False,
        cache_dir: str | None = None):
    """Compiles `fn` with kiln; the counterpart of jax.jit (see the module doc).

    static_argnums / static_argnames: arguments that are Python values baked
    into the program (hashable); a new value compiles again. As in jax.jit,
    each is completed from the other by `fn`'s signature, so a static
    argument may be passed by position or by name.
    donate_argnums / donate_argnames: arguments whose kiln buffers the call
    may reuse for its results; afterwards they are deleted.
    keep_unused, inline: accepted for jax.jit's signature. kiln's program
    always takes every argument (unused ones cost nothing: kiln reads host
    arrays in place), and under an enclosing JAX transformation `fn` is
    always inlined.
    device: a kiln Device (of the back end's client) to run on; arguments
    are put there. backend: "cpu" or "interpreter" (default
    kiln.config.backend at call time).
    cache_dir: kiln's on-disk compilation cache for this function (default
    $KILN_CACHE_DIR, else none).
    """
    if fn is None:
        return functools.partial(jit, static_argnums=static_argnums, static_argnames=static_argnames,
                                 donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                                 keep_unused=keep_unused, device=device, backend=backend, inline=inline,
                                 cache_dir=cache_dir)
    if not callable(fn):
        raise TypeError(f"kiln.jit: expected a callable, got {fn!r} ({type(fn).__name__})")
    if device is not None and not isinstance(device, Device):
        raise TypeError(f"kiln.jit: device must be a kiln Device (kiln.devices()), got {type(device).__name__}")
    if cache_dir is not None:
        check_cache_dir(cache_dir)
    return Jitted(fn, static_argnums, static_argnames, donate_argnums, donate_argnames, backend, device, cache_dir)


class Jitted:
    def __init__(self, fn, static_argnums, static_argnames, donate_argnums, donate_argnames, backend,
                 device=None, cache_dir=None):
        self.fn = fn
        # jax.jit's own resolution: numbers and names complete each other
        # through inspect.signature(fn), and are checked against it.
        (self.donate_argnums, self.donate_argnames, self.static_argnums,
         self.static_argnames) = api_util.resolve_argnums(fn, api_util.fun_signature(fn), donate_argnums,
                                                           donate_argnames, static_argnums, static_argnames)
        self.backend = backend
        self.device = device
        self.cache_dir = cache_dir
        overlap = set(self.donate_argnums) & set(self.static_argnums)
        if overlap:
            raise ValueError(f"kiln.jit: arguments {sorted(overlap)} are both static and donated")
        self._cache: dict[Signature, _Entry] = {}
        self._history: list[_Entry] = []   # compile order, for explaining recompiles
        self._fast: dict[tuple, tuple[_Entry, tuple[int, ...]]] = {}  # see __call__
        self._lock = threading.Lock()
        functools.update_wrapper(self, fn)

    @property
    def name(self) -> str:
        return getattr(self.fn, "__qualname__", repr(self.fn))

    def __repr__(self):
        return f"kiln.jit({self.name})"

    def __get__(self, instance, owner=None):  # decorating a method binds like a function
        return self if instance is None else functools.partial(self, instance)

    # -- calling -----------------------------------------------------------

    def __call__(self, *args, **kwargs):
        # The fast path: a call like one seen before, whose leaves are numpy
        # arrays, kiln Arrays or Python scalars, is keyed by the tree
        # structure, the statics and each leaf's (kind, shape, dtype): no
        # LeafSpec, no Signature, no conversions beyond those recorded.
        if self.static_argnums or self.static_argnames:
            statics_by_position, statics_by_name, dynamic_args, dynamic_kwargs = self._split_statics(args, kwargs)
            statics = (tuple(statics_by_position.items()), tuple(sorted(statics_by_name.items())))
        else:
            dynamic_args, dynamic_kwargs, statics = args, kwargs, ()
        leaves, treedef = _tree_flatten((dynamic_args, dynamic_kwargs))
        quick = _quick_key(treedef, statics, leaves, client_key(self.backend, self.cache_dir))
        try:
            hit = self._fast.get(quick) if quick is not None else None
        except TypeError:  # an unhashable static: the slow path says so
            hit = None
        if hit is not None:
            entry, converted = hit
            if converted:
                leaves = list(leaves)
                try:
                    for i in converted:
                        leaves[i] = _to_argument(leaves[i], entry.signature.leaves[i])
                except OverflowError:  # a Python int out of range: the slow path names it
                    return self._call_slowly(args, kwargs, None)
            return self._run(entry, leaves)
        return self._call_slowly(args, kwargs, quick)

    def _run(self, entry: _Entry, arguments):
        try:
            if self.device is not None:
                arguments = [entry.client.buffer_from_pyval(a, self.device) for a in arguments]
            results = entry.executable.execute(arguments, donate=entry.donated_leaves, weak_types=entry.weak_types)
        except KilnError as error:
            deleted = [path for path, a in zip(entry.program.paths, arguments) if isinstance(a, Array) and a.is_deleted()]
            if not deleted:
                raise
            raise kiln_error("FAILED_PRECONDITION", f"kiln.jit({self.name}): argument {deleted[0]} was deleted "
                             "(donated to an earlier call, or delete()d)") from error
        if entry.has_key_results:
            results = [r if impl is None else jax.random.wrap_key_data(jnp.asarray(np.asarray(r)), impl=impl)
                       for r, impl in zip(results, entry.out_key_impls)]
        return _tree_unflatten(entry.out_tree, results)

    def _call_slowly(self, args, kwargs, quick):
        signature, leaves = self._signature(args, kwargs)
        if signature is None:  # traced by an enclosing JAX transformation
            return self.fn(*args, **kwargs)
        entry = self._cache.get(signature)
        if entry is None:
            entry = self._compile(signature, args, kwargs)
        arguments = [_to_argument(leaf, spec) for leaf, spec in zip(leaves, signature.leaves)]
        if quick is not None:
            converted = tuple(i for i, (leaf, argument) in enumerate(zip(leaves, arguments)) if leaf is not argument)
            self._fast[quick] = (entry, converted)
        return self._run(entry, arguments)

    # -- ahead of time (jax.stages) ------------------------------------------

    def trace(self, *args, **kwargs) -> Traced:
        """`fn` traced for these arguments (jax.ShapeDtypeStructs allowed); nothing is compiled."""
        signature, _ = self._signature(args, kwargs)
        if signature is None:
            raise TypeError(f"kiln.jit({self.name}).trace takes concrete arrays, not tracers")
        return Traced(self, self._program(signature, args, kwargs))

    def lower(self, *args, **kwargs) -> Lowered:
        """The StableHLO text for these arguments; .compile() compiles it."""
        return self.trace(*args, **kwargs).lower()

    def eval_shape(self, *args, **kwargs):
        """The results' shapes and dtypes (jax.ShapeDtypeStructs), without compiling."""
        return self.trace(*args, **kwargs).out_info

    def cache_size(self) -> int:
        """How many signatures are compiled."""
        return len(self._cache)

    def clear_cache(self):
        with self._lock:
            self._cache.clear()
            self._history.clear()
            self._fast.clear()

    # -- signatures --------------------------------------------------------

    def _split_statics(self, args, kwargs):
        if not self.static_argnums and not self.static_argnames:
            return {}, {}, args, kwargs
        # As in jax.jit, a static argnum beyond the call's positional arguments
        # is passed by name (static_argnames has its name) or not at all.
        n = len(args)
        statics_by_position = {i % n: args[i] for i in sorted(self.static_argnums) if -n <= i < n}
        statics_by_name = {k: v for k, v in kwargs.items() if k in self.static_argnames}
        dynamic_args = tuple(a for i, a in enumerate(args) if i not in statics_by_position)
        dynamic_kwargs = {k: v for k, v in kwargs.items() if k not in statics_by_name}
        return statics_by_position, statics_by_name, dynamic_args, dynamic_kwargs

    def _paths(self, args, kwargs) -> list[str]:
        """Each dynamic leaf's name as jax.jit's messages give it: x['w'], args[1], ..."""
        return list(self._debug_info(args, kwargs).arg_names)

    def _debug_info(self, args, kwargs):
        return api_util.debug_info("jit", self.fn, args, kwargs, static_argnums=self.static_argnums,
                                   static_argnames=self.static_argnames)

    def _signature(self, args, kwargs):
        """(the Signature, the leaves); (None, leaves) when a leaf is a tracer."""
        statics_by_position, statics_by_name, dynamic_args, dynamic_kwargs = self._split_statics(args, kwargs)
        statics = tuple(statics_by_position.items()) + tuple(sorted(statics_by_name.items()))
        for where, value in statics:
            try:
                hash(value)
            except TypeError:
                raise TypeError(f"kiln.jit({self.name}): static argument {where!r} must be hashable, "
                                f"got {type(value).__name__}") from None
        leaves, treedef = jax.tree_util.tree_flatten((dynamic_args, dynamic_kwargs))
        x64 = bool(jax.config.jax_enable_x64)
        specs = []
        for index, leaf in enumerate(leaves):
            spec = _leaf_spec(leaf, x64)
            if spec is _TRACER:
                return None, leaves
            if spec is None:
                raise TypeError(f"kiln.jit({self.name}): argument {self._paths(args, kwargs)[index]} is a "
                                f"{type(leaf).__name__}, not an array or a scalar (make it static with "
                                "static_argnums?)")
            if type(leaf) is int and not _fits(leaf, spec.dtype):
                raise OverflowError(f"kiln.jit({self.name}): an overflow was encountered while parsing an "
                                    f"argument, whose argument path is {self._paths(args, kwargs)[index]}: "
                                    f"the Python int {leaf} does not fit in {spec.dtype.name}")
            specs.append(spec)
        signature = Signature(treedef, statics, tuple(specs), client_key(self.backend, self.cache_dir), x64)
        return signature, leaves

    # -- compiling ---------------------------------------------------------

    def _compile(self, signature, args, kwargs) -> _Entry:
        with self._lock:
            entry = self._cache.get(signature)
            if entry is not None:  # another thread compiled it meanwhile
                return entry
            if config.explain_recompiles:
                print(self._explain(signature, self._paths(args, kwargs)), file=sys.stderr, flush=True)
            entry = self._new_entry(self._program(signature, args, kwargs))
            self._cache[signature] = entry
            self._history.append(entry)
            return entry

    def _new_entry(self, program: _Program) -> _Entry:
        client = client_for_key(program.signature.client)
        if self.device is not None and self.device not in client.devices():
            raise ValueError(f"kiln.jit({self.name}): device {self.device!r} is not a device of the "
                             f"{program.signature.client[0]} client (kiln.devices())")
        return _Entry(program, client, client.compile(program.text))

    def _donated_leaves(self, args, kwargs) -> list[int]:
        """Flat leaf indices of the donated arguments (by position or by name)."""
        statics_by_position, _, dynamic_args, dynamic_kwargs = self._split_statics(args, kwargs)
        n = len(args)
        positions = {i % n for i in self.donate_argnums if -n <= i < n}
        names = sorted(dynamic_kwargs)  # the order in which JAX flattens a dict
        donated = [i in positions for i in range(n) if i not in statics_by_position]
        donated += [name in self.donate_argnames for name in names]
        values = list(dynamic_args) + [dynamic_kwargs[name] for name in names]
        indices, start = [], 0
        for is_donated, value in zip(donated, values):
            count = jax.tree_util.tree_structure(value).num_leaves
            if is_donated:
                indices.extend(range(start, start + count))
            start += count
        return indices

    def _program(self, signature: Signature, args, kwargs) -> _Program:
        """`fn` traced by JAX over the flattened leaves (typed keys as their key data)."""
        statics_by_position, statics_by_name, _, _ = self._split_statics(args, kwargs)
        outputs = {}

        def flat_fn(*flat):
            flat = [leaf if spec.key_impl is None else jax.random.wrap_key_data(leaf, impl=spec.key_impl)
                    for leaf, spec in zip(flat, signature.leaves)]
            dynamic_args, dynamic_kwargs = jax.tree_util.tree_unflatten(signature.treedef, flat)
            # Put the static arguments back in their places.
            remaining = iter(dynamic_args)
            count = len(dynamic_args) + len(statics_by_position)
            all_args = [statics_by_position[i] if i in statics_by_position else next(remaining)
                        for i in range(count)]
            result = self.fn(*all_args, **dynamic_kwargs, **statics_by_name)
            out_leaves, outputs["tree"] = jax.tree_util.tree_flatten(result)
            outputs["avals"] = [jax.typeof(leaf) for leaf in out_leaves]
            outputs["key_impls"] = [_key_impl(leaf) for leaf in out_leaves]
            return [leaf if impl is None else jax.random.key_data(leaf)
                    for leaf, impl in zip(out_leaves, outputs["key_impls"])]

        # JAX names the module (jit_<name>) and its messages after `fn` and its
        # arguments (x['w']), not after flat_fn and its flat[0].
        debug_info = self._debug_info(args, kwargs)
        api_util.save_wrapped_fun_debug_info(flat_fn, debug_info)
        flat_fn.__name__ = flat_fn.__qualname__ = getattr(self.fn, "__name__", "fn")
        abstract = [jax.ShapeDtypeStruct(spec.shape, spec.dtype, weak_type=spec.weak_type)
                    for spec in signature.leaves]
        traced = jax.jit(flat_fn, keep_unused=True).trace(*abstract)
        return _Program(signature, list(debug_info.arg_names), traced, outputs["tree"], outputs["avals"],
                        outputs["key_impls"], self._donated_leaves(args, kwargs))

    # -- explaining --------------------------------------------------------

    def _explain(self, signature: Signature, paths: list[str]) -> str:
        header = f"kiln.jit({self.name}): "
        if not self._history:
            return header + "compiling for the first time for " + _describe(signature, paths)
        # Compare with the compiled signature that differs least.
        reasons = min((_differences(old.signature, signature, paths) for old in self._history), key=len)
        return (header + f"compiling again ({len(self._history)} signature(s) compiled before); "
                + "; ".join(reasons))


def _differences(before: Signature, new: Signature, new_paths: list[str]) -> list[str]:
    reasons = []
    if before.client != new.client:
        reasons.append(f"kiln client changed: {_client_text(before.client)} -> {_client_text(new.client)}")
    if before.x64 != new.x64:
        reasons.append(f"jax_enable_x64 changed: {before.x64} -> {new.x64}")
    if before.statics != new.statics:
        old_statics, new_statics = dict(before.statics), dict(new.statics)
        for where in sorted(set(old_statics) | set(new_statics), key=str):
            a, b = old_statics.get(where, "<absent>"), new_statics.get(where, "<absent>")
            if a != b:
                reasons.append(f"static argument {where!r} changed: {a!r} -> {b!r}")
    if before.treedef != new.treedef:
        reasons.append(f"argument structure changed: {before.treedef} -> {new.treedef}")
        return reasons
    for path, a, b in zip(new_paths, before.leaves, new.leaves):
        if a != b:
            reasons.append(f"{path} changed: {a} -> {b}")
    return reasons


def _describe(signature: Signature, paths: list[str]) -> str:
    parts = [f"{path}: {spec}" for path, spec in zip(paths, signature.leaves)]
    parts += [f"static {where!r}={value!r}" for where, value in signature.statics]
    return "(" + ", ".join(parts) + ")" if parts else "()"


def _client_text(key: tuple) -> str:
    backend, num_devices, num_threads, cache_dir = key
    return f"backend={backend} num_devices={num_devices} num_threads={num_threads} cache_dir={cache_dir!r}"


# -- leaves ------------------------------------------------------------------

_tree_flatten = jax.tree_util.tree_flatten
_tree_unflatten = jax.tree_util.tree_unflatten


def _quick_key(treedef, statics, leaves, client: tuple):
    """Jitted.__call__'s fast-path key, or None when a leaf is of another kind
    (jax arrays, tracers, ...), which the full signature handles."""
    specs = []
    for leaf in leaves:
        kind = type(leaf)
        if kind is np.ndarray:
            specs.append((kind, leaf.shape, leaf.dtype))
        elif kind is Array:
            specs.append((kind, leaf.shape, leaf.dtype, leaf.weak_type))
        elif kind in _PYTHON_SCALAR_DTYPES:
            specs.append(kind)
        else:
            return None
    return (treedef, statics, tuple(specs), client, jax.config.jax_enable_x64)


_TRACER = object()  # _leaf_spec's answer for a JAX tracer


def _key_impl(x):
    dtype = getattr(x, "dtype", None)
    if dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key):
        return jax.random.key_impl(x)
    return None


@functools.lru_cache(maxsize=None)
def _canonical(dtype: np.dtype, x64: bool) -> np.dtype:
    """JAX's dtype for arrays of `dtype` (float64 -> float32 without x64).

    `x64` is the current jax_enable_x64, passed in so that it keys the cache."""
    return np.dtype(jax.dtypes.canonicalize_dtype(dtype))


def _leaf_spec(x, x64: bool):
    """The LeafSpec of one argument leaf; None if it is not an array; _TRACER for a tracer."""
    kind = type(x)
    if kind is np.ndarray:
        return LeafSpec(x.shape, _canonical(np.dtype(x.dtype), x64))
    if kind is Array:
        return LeafSpec(x.shape, _canonical(np.dtype(x.dtype), x64), x.weak_type)
    if kind in _PYTHON_SCALAR_DTYPES:
        return LeafSpec((), _canonical(np.dtype(_PYTHON_SCALAR_DTYPES[kind]), x64), weak_type=kind is not bool)
    if isinstance(x, jax.core.Tracer):
        return _TRACER
    if isinstance(x, jax.Array):
        impl = _key_impl(x)
        if impl is not None:
            data = jax.random.key_data(x)
            return LeafSpec(tuple(data.shape), np.dtype(data.dtype), False, impl)
        return LeafSpec(tuple(x.shape), np.dtype(x.dtype), bool(getattr(x, "weak_type", False)))
    if isinstance(x, (np.ndarray, np.generic, Array)):
        return LeafSpec(tuple(np.shape(x)), _canonical(np.dtype(x.dtype), x64))
    if isinstance(x, jax.ShapeDtypeStruct):  # abstract: for lower() only
        return LeafSpec(tuple(x.shape), _canonical(np.dtype(x.dtype), x64), bool(x.weak_type))
    if hasattr(x, "__dlpack__"):
        view = np.from_dlpack(x)
        return LeafSpec(tuple(view.shape), _canonical(np.dtype(view.dtype), x64))
    return None


def _fits(value: int, dtype: np.dtype) -> bool:
    info = np.iinfo(dtype)
    return info.min <= value <= info.max


def _to_argument(x, spec: LeafSpec):
    """The leaf as Executable.execute takes it, in the signature's dtype."""
    kind = type(x)
    if (kind is np.ndarray or kind is Array) and x.dtype == spec.dtype:
        return x
    if spec.key_impl is not None:
        return jax.random.key_data(x)
    if isinstance(x, jax.Array):
        return x
    if isinstance(x, jax.ShapeDtypeStruct):
        raise TypeError(f"kiln.jit: a jax.ShapeDtypeStruct ({x}) can be lowered, not run")
    if hasattr(x, "__dlpack__") and not isinstance(x, (np.ndarray, np.generic)):
        x = np.from_dlpack(x)
    return np.asarray(x, dtype=spec.dtype)
