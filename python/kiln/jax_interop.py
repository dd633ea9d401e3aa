"""kiln Arrays as JAX values: JAX's handler tables learn the kiln.Array type.

JAX (0.10) no longer calls `__jax_array__` when it abstractifies a value, so
passing a kiln Array to jax.jit, to a jnp function (most are jitted) or to
jax.device_put needs kiln.Array in the tables JAX consults for every Python
type it accepts:

- core.pytype_aval_mappings: the abstract value (shape, canonical dtype, weak type);
- dtypes canonicalize handlers: the value as JAX keeps a host constant
  (a TypedNdArray over the Array's memory, carrying the weak type);
- pxla.shard_arg_handlers: how an argument becomes a device buffer of JAX's.

Imported (which registers) when JAX is first imported (see kiln/__init__.py),
by kiln.jit, or by the first kiln.Array operator.
"""
from __future__ import annotations

import jax
import numpy as np
from jax._src import core, dtypes, literals
from jax._src.interpreters import pxla

from kiln._kiln import Array


def aval(x: Array) -> core.ShapedArray:
    return core.ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype), weak_type=x.weak_type)


def host_value(x: Array) -> literals.TypedNdArray:
    """The Array's values as JAX's host constant: a view (a copy only when the
    dtype is not JAX's canonical one, e.g. float64 without jax_enable_x64)."""
    abstract = aval(x)
    return literals.TypedNdArray(np.asarray(x, abstract.dtype), aval=abstract)


def to_jax(x: Array) -> jax.Array:
    """A jax.Array with the Array's values, dtype and weak type (on JAX's default device)."""
    return jax.device_put(host_value(x))


def host_sharding() -> jax.sharding.SingleDeviceSharding:
    """kiln Arrays' `.sharding`: their memory is the host's, JAX's CPU device."""
    return jax.sharding.SingleDeviceSharding(jax.local_devices(backend="cpu")[0])


def _shard_args(xs, shardings, layouts, copy_semantics):
    return pxla.shard_args(shardings, layouts, copy_semantics, [host_value(x) for x in xs])


core.pytype_aval_mappings[Array] = aval
dtypes.register_canonicalize_value_handler(Array, host_value)
pxla.shard_arg_handlers[Array] = _shard_args
