"""What makes a kiln.Array behave like a jax.Array in Python.

kiln.Array is the extension's class (python/src/kiln_module.cpp: buffer,
shape, dtype, weak_type, device, DLPack, deletion). This module adds the rest
to that class when `kiln` is imported:

- values: repr/str with the values, float/int/bool/complex/index, format,
  len, item, tolist, pickling, copy/deepcopy, .devices() (kiln Devices) and
  .sharding (JAX's: host memory is its CPU device; needs JAX);
- computing: operators, comparisons, indexing, iteration and the array
  methods of _JAX_METHODS (.T, .astype, .reshape, .sum, ...) compute with
  JAX on a jax.Array of the same values, dtype and weak type, so `y * 2` on a
  kiln.jit result is what it is on a jax.jit result (a jax.Array, promotion
  and weak types included). Where JAX is not installed they compute with
  numpy (numpy's promotion rules; weak types play no part).

Importing this module does not import JAX: the first computation does.
"""
from __future__ import annotations

import operator

import numpy as np

from kiln._kiln import Array

_BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "divmod", "pow", "matmul",
           "and", "or", "xor", "lshift", "rshift")
_OPERATORS = ([f"__{name}__" for name in _BINARY] + [f"__r{name}__" for name in _BINARY]
              + ["__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
                 "__neg__", "__pos__", "__abs__", "__invert__", "__getitem__", "__iter__", "__round__"])
# Array methods and properties that compute, as jax.Array has them.
_JAX_METHODS = ("all", "any", "argmax", "argmin", "argsort", "astype", "clip", "conj", "conjugate",
                "cumprod", "cumsum", "diagonal", "dot", "flatten", "max", "mean", "min", "nonzero",
                "prod", "ravel", "repeat", "reshape", "round", "sort", "squeeze", "std", "sum",
                "swapaxes", "take", "trace", "transpose", "var", "view", "at")
_JAX_PROPERTIES = ("T", "mT", "real", "imag")


def _jax_interop():
    """kiln.jax_interop (JAX's handlers for kiln Arrays), or None without JAX."""
    try:
        from kiln import jax_interop  # noqa: PLC0415  (imports JAX)
    except ImportError:
        return None
    return jax_interop


def _operand(array: Array):
    """`array` as what computes: a jax.Array, or a numpy view without JAX."""
    interop = _jax_interop()
    return interop.to_jax(array) if interop else np.asarray(array)


def _numpy_operand(x):
    # numpy defers to a kiln Array operand (its __array_priority__): read it.
    return np.asarray(x) if isinstance(x, Array) else x


def _computing_method(name: str):
    def method(self, *args, **kwargs):
        target = _operand(self)
        if isinstance(target, np.ndarray):
            args = [_numpy_operand(a) for a in args]
        return getattr(target, name)(*args, **kwargs)
    method.__name__ = name
    return method


def _computing_property(name: str):
    return property(lambda self: getattr(_operand(self), name), doc=f"jax.Array.{name}")


# -- values -----------------------------------------------------------------

def _repr(self) -> str:
    dtype = f"dtype={self.dtype.name}" + (", weak_type=True" if self.weak_type else "")
    if self.is_deleted():
        return f"Array(<deleted>, shape={self.shape}, {dtype})"
    values = np.array2string(np.asarray(self), prefix="Array(", suffix=",", separator=", ")
    return f"Array({values}, {dtype})"


def _format(self, spec: str) -> str:
    value = np.asarray(self)
    return format(value[()] if value.ndim == 0 else value, spec)  # as jax.Array (numpy#9883)


def _rebuild(value: np.ndarray, weak_type: bool) -> Array:
    """Unpickles an Array onto the default client's first device."""
    from kiln.api import get_client  # noqa: PLC0415  (api imports this module)
    return get_client().buffer_from_pyval(value, weak_type=weak_type)


def _install():
    methods = {
        "__repr__": _repr,
        "__str__": lambda self: str(np.asarray(self)),
        "__format__": _format,
        "__bool__": lambda self: bool(np.asarray(self)),
        "__float__": lambda self: float(np.asarray(self)),
        "__int__": lambda self: int(np.asarray(self)),
        "__complex__": lambda self: complex(np.asarray(self)),
        "__index__": lambda self: operator.index(np.asarray(self)),
        "__len__": lambda self: len(np.asarray(self)),
        "item": lambda self, *index: np.asarray(self).item(*index),
        "tolist": lambda self: np.asarray(self).tolist(),
        "__reduce__": lambda self: (_rebuild, (np.array(self), self.weak_type)),
        "__copy__": lambda self: self.copy(),
        "__deepcopy__": lambda self, memo: self.copy(),
        "__jax_array__": lambda self: _jax_interop_or_raise().to_jax(self),
        # JAX reads `.sharding` of every jax.jit argument and needs one of its
        # own: a kiln Array's memory is host memory, JAX's CPU device. Like a
        # numpy array, it is uncommitted: it goes wherever the computation runs.
        "sharding": property(lambda self: _jax_interop_or_raise().host_sharding()),
        "_committed": False,
        # JAX's abstract value; jnp.array reads the weak type there.
        "aval": property(lambda self: _jax_interop_or_raise().aval(self)),
        "devices": lambda self: {self.device},
        # jax.Array's: numpy operands defer to ours; elementwise __eq__ makes it unhashable.
        "__array_priority__": 100,
        "__hash__": None,
    }
    methods.update((name, _computing_method(name)) for name in (*_OPERATORS, *_JAX_METHODS))
    methods.update((name, _computing_property(name)) for name in _JAX_PROPERTIES)
    for name, value in methods.items():
        setattr(Array, name, value)


def _jax_interop_or_raise():
    interop = _jax_interop()
    if interop is None:
        raise ImportError("this use of a kiln.Array needs JAX (pip install jax)")
    return interop


_install()
