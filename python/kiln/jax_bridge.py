"""kiln.jit: JAX functions lowered by JAX to StableHLO, compiled and run by kiln.

The only module of the package that imports JAX (kiln/__init__.py imports it
on first use of kiln.jit).

    step = kiln.jit(train_step, donate_argnums=(0,))
    params, loss = step(params, batch)

`fn` takes and returns pytrees of arrays (jax.tree_util). On each call the
arguments are flattened to leaves and summarized as a *signature*: the tree
structure, the static arguments, and for each leaf its shape, dtype, weak type
and (for typed PRNG keys) key implementation. The first call with a signature
traces `fn` with JAX (`jax.jit(...).trace(...).lower(...)`, for the CPU
platform), compiles the StableHLO text with kiln and caches the executable;
later calls with the same signature only convert arguments and execute.

Typed PRNG key arrays (`jax.random.key`) cross the boundary as their key data
(uint32 arrays) and are re-wrapped inside the traced function, so the program
kiln sees is plain integer math; key results come back as JAX key arrays.
Other results are kiln Arrays (`np.asarray(result)` is a zero-copy view).

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

from kiln._kiln import Array
from kiln.api import get_client
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
    backend: str
    x64: bool                         # jax_enable_x64 changes how scalars lower


@dataclass
class _Entry:
    """One compiled signature."""
    signature: Signature
    paths: list[str]                  # keystr of each leaf, for messages
    executable: Any
    out_tree: Any
    out_key_impls: list[Any]
    donated_leaves: list[int]

    def __post_init__(self):
        self.has_key_results = any(impl is not None for impl in self.out_key_impls)  # read on every call


class Lowered:
    """The StableHLO text kiln.jit compiles for one signature."""

    def __init__(self, text: str, signature: Signature):
        self._text = text
        self._signature = signature

    def as_text(self) -> str:
        return self._text

    def compile(self):
        """The kiln Executable (cost_analysis(), optimized_text(), ...)."""
        return get_client(self._signature.backend).compile(self._text)


def jit(fn: Callable | None = None, *, static_argnums: int | Sequence[int] = (),
        static_argnames: str | Sequence[str] = (), donate_argnums: int | Sequence[int] = (),
        backend: str | None = None):
    """Compiles `fn` with kiln; the counterpart of jax.jit (see the module doc).

    static_argnums / static_argnames: arguments that are Python values baked
    into the program (hashable); a new value compiles again.
    donate_argnums: positional arguments whose kiln buffers the call may reuse
    for its results; afterwards they are deleted (using them raises KilnError).
    backend: a back end for this function ("cpu", "interpreter"); default
    kiln.config.backend at call time.
    """
    if fn is None:
        return functools.partial(jit, static_argnums=static_argnums, static_argnames=static_argnames,
                                 donate_argnums=donate_argnums, backend=backend)
    return Jitted(fn, static_argnums, static_argnames, donate_argnums, backend)


def _as_tuple(x) -> tuple:
    return (x,) if isinstance(x, (int, str)) else tuple(x)


class Jitted:
    def __init__(self, fn, static_argnums, static_argnames, donate_argnums, backend):
        self.fn = fn
        self.static_argnums = _as_tuple(static_argnums)
        self.static_argnames = _as_tuple(static_argnames)
        self.donate_argnums = _as_tuple(donate_argnums)
        self.backend = backend
        overlap = {i for i in self.donate_argnums} & {i for i in self.static_argnums}
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
        quick = _quick_key(treedef, statics, leaves, self.backend)
        try:
            hit = self._fast.get(quick) if quick is not None else None
        except TypeError:  # an unhashable static: the slow path says so
            hit = None
        if hit is not None:
            entry, converted = hit
            if converted:
                leaves = list(leaves)
                for i in converted:
                    leaves[i] = _to_argument(leaves[i], entry.signature.leaves[i])
            return self._run(entry, leaves)
        return self._call_slowly(args, kwargs, quick)

    def _run(self, entry: _Entry, arguments):
        results = entry.executable.execute(arguments, donate=entry.donated_leaves)
        if entry.has_key_results:
            results = [r if impl is None else jax.random.wrap_key_data(jnp.asarray(np.asarray(r)), impl=impl)
                       for r, impl in zip(results, entry.out_key_impls)]
        return _tree_unflatten(entry.out_tree, results)

    def _call_slowly(self, args, kwargs, quick):
        signature, leaves, statics_by_position, statics_by_name = self._signature(args, kwargs)
        if signature is None:  # traced by an enclosing JAX transformation
            return self.fn(*args, **kwargs)
        entry = self._cache.get(signature)
        if entry is None:
            entry = self._compile(signature, args, kwargs, statics_by_position, statics_by_name)
        arguments = [_to_argument(leaf, spec) for leaf, spec in zip(leaves, signature.leaves)]
        if quick is not None:
            converted = tuple(i for i, (leaf, argument) in enumerate(zip(leaves, arguments)) if leaf is not argument)
            self._fast[quick] = (entry, converted)
        return self._run(entry, arguments)

    def lower(self, *args, **kwargs) -> Lowered:
        """The StableHLO text for these arguments (nothing is compiled)."""
        signature, _, statics_by_position, statics_by_name = self._signature(args, kwargs)
        if signature is None:
            raise TypeError(f"kiln.jit({self.name}).lower takes concrete arrays, not tracers")
        text, _, _ = self._lower(signature, statics_by_position, statics_by_name)
        return Lowered(text, signature)

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
        n = len(args)
        positions = sorted({i % n if -n <= i < n else i for i in self.static_argnums})
        for i in positions:
            if not 0 <= i < n:
                raise TypeError(f"kiln.jit({self.name}): static_argnums names argument {i}, "
                                f"but the call has {n} positional arguments")
        statics_by_position = {i: args[i] for i in positions}
        statics_by_name = {k: v for k, v in kwargs.items() if k in self.static_argnames}
        dynamic_args = tuple(a for i, a in enumerate(args) if i not in statics_by_position)
        dynamic_kwargs = {k: v for k, v in kwargs.items() if k not in statics_by_name}
        return statics_by_position, statics_by_name, dynamic_args, dynamic_kwargs

    def _signature(self, args, kwargs):
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
                return None, leaves, statics_by_position, statics_by_name
            if spec is None:
                path = _leaf_paths(dynamic_args, dynamic_kwargs)[index]
                raise TypeError(f"kiln.jit({self.name}): argument {path} is a {type(leaf).__name__}, "
                                "not an array or a scalar (make it static with static_argnums?)")
            specs.append(spec)
        signature = Signature(treedef, statics, tuple(specs), self.backend or config.backend, x64)
        return signature, leaves, statics_by_position, statics_by_name

    # -- compiling ---------------------------------------------------------

    def _compile(self, signature, args, kwargs, statics_by_position, statics_by_name) -> _Entry:
        with self._lock:
            entry = self._cache.get(signature)
            if entry is not None:  # another thread compiled it meanwhile
                return entry
            _, _, dynamic_args, dynamic_kwargs = self._split_statics(args, kwargs)
            paths = _leaf_paths(dynamic_args, dynamic_kwargs)
            if config.explain_recompiles:
                print(self._explain(signature, paths), file=sys.stderr, flush=True)
            text, out_tree, out_key_impls = self._lower(signature, statics_by_position, statics_by_name)
            executable = get_client(signature.backend).compile(text)
            entry = _Entry(signature, paths, executable, out_tree, out_key_impls,
                           self._donated_leaves(args, statics_by_position))
            self._cache[signature] = entry
            self._history.append(entry)
            return entry

    def _donated_leaves(self, args, statics_by_position) -> list[int]:
        """Flat leaf indices of the donated positional arguments."""
        n = len(args)
        donated = {i % n for i in self.donate_argnums if -n <= i < n}
        indices, start = [], 0
        for i, arg in enumerate(args):
            if i in statics_by_position:
                continue
            count = jax.tree_util.tree_structure(arg).num_leaves
            if i in donated:
                indices.extend(range(start, start + count))
            start += count
        return indices

    def _lower(self, signature: Signature, statics_by_position, statics_by_name):
        """StableHLO text of fn over the flattened leaves, its output tree and key impls."""
        outputs = {}

        def flat_fn(*flat):
            flat = [leaf if spec.key_impl is None else jax.random.wrap_key_data(leaf, impl=spec.key_impl)
                    for leaf, spec in zip(flat, signature.leaves)]
            dynamic_args, kwargs = jax.tree_util.tree_unflatten(signature.treedef, flat)
            # Put the static arguments back in their places.
            remaining = iter(dynamic_args)
            count = len(dynamic_args) + len(statics_by_position)
            args = [statics_by_position[i] if i in statics_by_position else next(remaining)
                    for i in range(count)]
            result = self.fn(*args, **kwargs, **statics_by_name)
            out_leaves, outputs["tree"] = jax.tree_util.tree_flatten(result)
            outputs["key_impls"] = [_key_impl(leaf) for leaf in out_leaves]
            return [leaf if impl is None else jax.random.key_data(leaf)
                    for leaf, impl in zip(out_leaves, outputs["key_impls"])]

        abstract = [jax.ShapeDtypeStruct(spec.shape, spec.dtype, weak_type=spec.weak_type)
                    for spec in signature.leaves]
        traced = jax.jit(flat_fn, keep_unused=True).trace(*abstract)
        text = traced.lower(lowering_platforms=("cpu",)).as_text()
        return text, outputs["tree"], outputs["key_impls"]

    # -- explaining --------------------------------------------------------

    def _explain(self, signature: Signature, paths: list[str]) -> str:
        header = f"kiln.jit({self.name}): "
        if not self._history:
            return header + "compiling for the first time for " + _describe(signature, paths)
        # Compare with the compiled signature that differs least.
        reasons = min((_differences(old, signature, paths) for old in self._history), key=len)
        return (header + f"compiling again ({len(self._history)} signature(s) compiled before); "
                + "; ".join(reasons))


def _differences(old: _Entry, new: Signature, new_paths: list[str]) -> list[str]:
    before = old.signature
    reasons = []
    if before.backend != new.backend:
        reasons.append(f"backend changed: {before.backend} -> {new.backend}")
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


def _leaf_paths(dynamic_args, dynamic_kwargs) -> list[str]:
    """`args[0]['w']`-style names of the leaves of (args, kwargs)."""
    with_path, _ = jax.tree_util.tree_flatten_with_path((dynamic_args, dynamic_kwargs))
    names = []
    for path, _ in with_path:
        head, rest = path[0], path[1:]
        base = "args" if head.idx == 0 else "kwargs"
        names.append(base + jax.tree_util.keystr(tuple(rest)))
    return names


# -- leaves ------------------------------------------------------------------

_tree_flatten = jax.tree_util.tree_flatten
_tree_unflatten = jax.tree_util.tree_unflatten


def _quick_key(treedef, statics, leaves, backend):
    """Jitted.__call__'s fast-path key, or None when a leaf is of another kind
    (jax arrays, tracers, ...), which the full signature handles."""
    specs = []
    for leaf in leaves:
        kind = type(leaf)
        if kind is np.ndarray or kind is Array:
            specs.append((kind, leaf.shape, leaf.dtype))
        elif kind in _PYTHON_SCALAR_DTYPES:
            specs.append(kind)
        else:
            return None
    return (treedef, statics, tuple(specs), backend or config.backend, jax.config.jax_enable_x64)


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
    if kind is np.ndarray or kind is Array:
        return LeafSpec(x.shape, _canonical(np.dtype(x.dtype), x64))
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
