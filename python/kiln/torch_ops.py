"""The table of ATen op -> lowering that kiln.torch compiles PyTorch graphs with.

Each entry maps an ATen overload (torch.ops.aten.add.Tensor) to a function
that computes it with jax.numpy / jax.lax on JAX values while JAX traces the
whole graph; JAX then emits the StableHLO that kiln compiles (docs/torch.md).
A lowering gets `ctx` (the FX node and what its fake tensors say) and the
op's arguments as the ATen schema has them, tensors as JAX values.

The interpreter (kiln/torch.py) casts every tensor result to the dtype that
PyTorch's own shape/dtype propagation recorded on the node (node.meta["val"]),
so type promotion is PyTorch's, not JAX's; lowerings only need the values
right. An op missing here is reported by name with the model's source line
before anything is traced (UnsupportedOp), never run some other way.
"""
from __future__ import annotations

import itertools
import math
import operator

import jax
import jax.numpy as jnp
import jax.scipy.special
import numpy as np
import torch
from jax import lax

aten = torch.ops.aten

LOWERINGS: dict = {}
# Ops that draw random numbers: a graph with one takes a seed (kiln/torch.py).
RANDOM_OPS: set = set()
# Core ops kiln refuses on purpose, with the reason UnsupportedOp gives
# (filled in below; docs/torch.md, "What is lowered").
REFUSED: dict = {}

_DTYPES = {
    torch.float32: jnp.float32, torch.float64: jnp.float64, torch.float16: jnp.float16,
    torch.bfloat16: jnp.bfloat16, torch.int8: jnp.int8, torch.int16: jnp.int16, torch.int32: jnp.int32,
    torch.int64: jnp.int64, torch.uint8: jnp.uint8, torch.bool: jnp.bool_,
    torch.complex64: jnp.complex64, torch.complex128: jnp.complex128,
}


def jax_dtype(dtype):
    """The JAX dtype of a torch dtype; a clear error for one kiln does not take."""
    try:
        return _DTYPES[dtype]
    except KeyError:
        raise TypeError(f"kiln.torch: the dtype {dtype} has no kiln counterpart") from None


def _find_op(name: str):
    """aten's overload "packet.overload", or None where this PyTorch lacks it."""
    packet, overload = name.split(".")
    packet = getattr(aten, packet, None)
    return getattr(packet, overload, None) if packet is not None and overload in packet.overloads() else None


def lowering(*names):
    def register(fn):
        for name in names:
            op = _find_op(name)
            if op is not None:
                LOWERINGS[op] = fn
        return fn
    return register


def random_lowering(*names):
    """A lowering that draws random numbers with ctx.random_key() (a JAX key
    of its own for each node; the graph's seed comes from PyTorch's generator
    on every call, docs/torch.md "Random numbers")."""
    def register(fn):
        lowering(*names)(fn)
        RANDOM_OPS.update(op for op in map(_find_op, names) if op is not None)
        return fn
    return register


def _dims(dim, rank):
    if dim is None:
        return tuple(range(rank))
    if isinstance(dim, int):
        dim = [dim]
    return tuple(d % rank if rank else 0 for d in dim)


def _default(ctx):
    """The dtype the node's result has (for creation ops)."""
    return ctx.out_dtype()


# -- elementwise -----------------------------------------------------------------

_UNARY = {
    "abs.default": jnp.abs, "neg.default": jnp.negative, "exp.default": jnp.exp,
    "exp2.default": jnp.exp2, "expm1.default": jnp.expm1, "log.default": jnp.log,
    "log1p.default": jnp.log1p, "log2.default": jnp.log2, "log10.default": jnp.log10,
    "sqrt.default": jnp.sqrt, "rsqrt.default": lax.rsqrt, "sin.default": jnp.sin,
    "cos.default": jnp.cos, "tan.default": jnp.tan, "tanh.default": jnp.tanh,
    "asin.default": jnp.arcsin, "acos.default": jnp.arccos, "atan.default": jnp.arctan,
    "sinh.default": jnp.sinh, "cosh.default": jnp.cosh, "asinh.default": jnp.arcsinh,
    "acosh.default": jnp.arccosh, "atanh.default": jnp.arctanh, "sigmoid.default": jax.nn.sigmoid,
    "erf.default": lax.erf, "erfinv.default": lax.erf_inv, "floor.default": jnp.floor,
    "ceil.default": jnp.ceil, "trunc.default": jnp.trunc, "sign.default": jnp.sign,
    "reciprocal.default": jnp.reciprocal, "logical_not.default": jnp.logical_not,
    "bitwise_not.default": jnp.invert, "isnan.default": jnp.isnan, "isinf.default": jnp.isinf,
    "relu.default": jax.nn.relu, "round.default": jnp.round, "square.default": jnp.square,
    "erfc.default": lax.erfc, "lgamma.default": lax.lgamma, "digamma.default": lax.digamma,
    "signbit.default": jnp.signbit, "i0.default": jax.scipy.special.i0, "special_i0e.default": jax.scipy.special.i0e,
    "special_i1.default": jax.scipy.special.i1, "special_i1e.default": jax.scipy.special.i1e,
    "special_ndtri.default": jax.scipy.special.ndtri,
}
for _name, _fn in _UNARY.items():
    lowering(_name)((lambda fn: lambda ctx, x: fn(x))(_fn))

_BINARY = {
    "mul": jnp.multiply, "eq": jnp.equal, "ne": jnp.not_equal, "lt": jnp.less, "le": jnp.less_equal,
    "gt": jnp.greater, "ge": jnp.greater_equal, "logical_and": jnp.logical_and, "logical_or": jnp.logical_or,
    "logical_xor": jnp.logical_xor, "bitwise_and": jnp.bitwise_and, "bitwise_or": jnp.bitwise_or,
    "bitwise_xor": jnp.bitwise_xor, "maximum": jnp.maximum, "minimum": jnp.minimum, "atan2": jnp.arctan2,
    "fmod": jnp.fmod, "remainder": jnp.remainder, "pow": jnp.power, "copysign": jnp.copysign, "fmax": jnp.fmax,
    "fmin": jnp.fmin, "hypot": jnp.hypot, "nextafter": jnp.nextafter, "igamma": jax.scipy.special.gammainc,
    "igammac": jax.scipy.special.gammaincc, "special_zeta": jax.scipy.special.zeta,
}


def _promote(ctx, a, b):
    """The operands in the dtype PyTorch computes a binary op in (torch.result_type
    of the operands' fake tensors), so comparisons see what eager compares."""
    dtype = ctx.compute_dtype()
    if dtype is None:
        return a, b
    cast = lambda v: v.astype(dtype) if hasattr(v, "dtype") else v  # noqa: E731
    return cast(a), cast(b)


for _name, _fn in _BINARY.items():
    packet = getattr(aten, _name)
    for _overload in ("Tensor", "Scalar", "Tensor_Tensor", "Tensor_Scalar", "Scalar_Tensor", "default"):
        if _overload in packet.overloads():
            LOWERINGS[getattr(packet, _overload)] = (
                lambda fn: lambda ctx, a, b: fn(*_promote(ctx, a, b)))(_fn)


@lowering("angle.default")
def _angle(ctx, x):
    # PyTorch's angle of a real number: pi below zero, NaN for NaN, else 0
    # (-0.0 included, where atan2 would say pi).
    if jnp.iscomplexobj(x):
        return jnp.arctan2(jnp.imag(x), jnp.real(x))
    x = x.astype(ctx.out_dtype())
    return jnp.where(jnp.isnan(x), x, jnp.where(x < 0, jnp.asarray(np.pi, x.dtype), jnp.zeros((), x.dtype)))


@lowering("polygamma.default")
def _polygamma(ctx, n, x):
    return jax.scipy.special.polygamma(n, x.astype(ctx.out_dtype()))


@lowering("ldexp.Tensor")
def _ldexp(ctx, x, exponent):
    # PyTorch's ldexp: x * 2**exponent, in the result's floating dtype.
    dtype = ctx.out_dtype()
    return x.astype(dtype) * jnp.exp2(exponent.astype(dtype))


@lowering("frexp.Tensor")
def _frexp(ctx, x):
    mantissa, exponent = jnp.frexp(x)
    return mantissa, exponent.astype(jnp.int32)


@lowering("round.decimals")
def _round_decimals(ctx, x, *, decimals=0):
    # As PyTorch computes it: scale by 10**|decimals|, round half to even, scale back.
    scale = jnp.asarray(10.0 ** abs(decimals), x.dtype)
    return jnp.round(x / scale) * scale if decimals < 0 else jnp.round(x * scale) / scale


@lowering("pow.Tensor_Scalar")
def _pow_scalar(ctx, x, exponent):
    # A small integral exponent (the backward of x ** 2 asks for x ** 1.0) is
    # a few multiplies, as in PyTorch's CPU kernel, not a transcendental
    # stablehlo.power per element.
    if isinstance(exponent, (bool, int, float)) and float(exponent).is_integer() and abs(exponent) <= 4:
        dtype = ctx.compute_dtype()
        if dtype is not None and jnp.issubdtype(dtype, jnp.floating):
            return lax.integer_pow(x.astype(dtype), int(exponent))
    return jnp.power(*_promote(ctx, x, exponent))


@lowering("add.Tensor", "add.Scalar")
def _add(ctx, a, b, alpha=1):
    a, b = _promote(ctx, a, b)
    return a + (b if alpha == 1 else b * alpha)


@lowering("sub.Tensor", "sub.Scalar")
def _sub(ctx, a, b, alpha=1):
    a, b = _promote(ctx, a, b)
    return a - (b if alpha == 1 else b * alpha)


@lowering("rsub.Scalar", "rsub.Tensor")
def _rsub(ctx, a, b, alpha=1):
    a, b = _promote(ctx, a, b)
    return b - (a if alpha == 1 else a * alpha)


@lowering("div.Tensor", "div.Scalar", "div.Tensor_mode", "div.Scalar_mode")
def _div(ctx, a, b, rounding_mode=None):
    out = ctx.out_dtype()
    if rounding_mode is None:  # true division, in the (floating) result dtype
        a, b = jnp.asarray(a).astype(out), jnp.asarray(b).astype(out)
        return a / b
    a, b = _promote(ctx, a, b)
    if rounding_mode == "trunc":
        if jnp.issubdtype(jnp.result_type(a, b), jnp.integer):
            return lax.div(jnp.asarray(a), jnp.asarray(b).astype(jnp.result_type(a)))
        return jnp.trunc(a / b)
    return jnp.floor_divide(a, b)


@lowering("where.self", "where.ScalarSelf", "where.ScalarOther", "where.Scalar")
def _where(ctx, cond, a, b):
    dtype = ctx.out_dtype()  # the promotion of a and b (not of the condition)
    return jnp.where(cond, jnp.asarray(a).astype(dtype), jnp.asarray(b).astype(dtype))


@lowering("clamp.default", "clamp.Tensor")
def _clamp(ctx, x, min=None, max=None):  # noqa: A002
    x = x.astype(ctx.out_dtype())  # an int tensor clamped by a float bound is a float result
    if min is not None:
        x = jnp.maximum(x, jnp.asarray(min, x.dtype) if not hasattr(min, "dtype") else min.astype(x.dtype))
    if max is not None:
        x = jnp.minimum(x, jnp.asarray(max, x.dtype) if not hasattr(max, "dtype") else max.astype(x.dtype))
    return x


@lowering("clamp_min.default")
def _clamp_min(ctx, x, min):  # noqa: A002
    return jnp.maximum(x, jnp.asarray(min, x.dtype))


@lowering("clamp_max.default")
def _clamp_max(ctx, x, max):  # noqa: A002
    return jnp.minimum(x, jnp.asarray(max, x.dtype))


@lowering("gelu.default")
def _gelu(ctx, x, approximate="none"):
    return jax.nn.gelu(x, approximate=approximate == "tanh")


@lowering("hardtanh.default")
def _hardtanh(ctx, x, min_val=-1.0, max_val=1.0):
    return jnp.clip(x, min_val, max_val)


@lowering("leaky_relu.default")
def _leaky_relu(ctx, x, negative_slope=0.01):
    return jnp.where(x > 0, x, x * negative_slope)


@lowering("threshold_backward.default")
def _threshold_backward(ctx, grad, x, threshold):
    return jnp.where(x <= threshold, jnp.zeros_like(grad), grad)


@lowering("sigmoid_backward.default")
def _sigmoid_backward(ctx, grad, y):
    return grad * y * (1 - y)


@lowering("tanh_backward.default")
def _tanh_backward(ctx, grad, y):
    return grad * (1 - y * y)


@lowering("gelu_backward.default")
def _gelu_backward(ctx, grad, x, approximate="none"):
    _, vjp = jax.vjp(lambda v: jax.nn.gelu(v, approximate=approximate == "tanh"), x)
    return vjp(grad)[0]


# -- creation and copies ---------------------------------------------------------

@lowering("full.default")
def _full(ctx, size, value, **_):
    return jnp.full(tuple(size), value, _default(ctx))


@lowering("full_like.default")
def _full_like(ctx, x, value, **_):
    return jnp.full(x.shape, value, _default(ctx))


@lowering("zeros.default", "empty.memory_format", "new_zeros.default", "new_empty.default",
          "empty_strided.default", "new_empty_strided.default", "empty_permuted.default")
def _zeros(ctx, *args, **_):
    # empty* are zeros: kiln has no uninitialized memory to hand out, and every
    # consumer of an empty tensor writes it before reading.
    size = args[1] if ctx.node.target in (aten.new_zeros.default, aten.new_empty.default,
                                          aten.new_empty_strided.default) else args[0]
    return jnp.zeros(tuple(size), _default(ctx))


@lowering("ones.default", "new_ones.default")
def _ones(ctx, *args, **_):
    size = args[1] if ctx.node.target is aten.new_ones.default else args[0]
    return jnp.ones(tuple(size), _default(ctx))


@lowering("new_full.default")
def _new_full(ctx, x, size, value, **_):
    return jnp.full(tuple(size), value, _default(ctx))


@lowering("zeros_like.default", "empty_like.default")
def _zeros_like(ctx, x, **_):
    return jnp.zeros(x.shape, _default(ctx))


@lowering("ones_like.default")
def _ones_like(ctx, x, **_):
    return jnp.ones(x.shape, _default(ctx))


@lowering("scalar_tensor.default")
def _scalar_tensor(ctx, value, **_):
    return jnp.asarray(value, _default(ctx))


@lowering("arange.default", "arange.start", "arange.start_step")
def _arange(ctx, *args, **_):
    start, end, step = (0, args[0], 1) if len(args) == 1 else (args + (1,))[:3]
    return jnp.arange(start, end, step, dtype=_default(ctx))


@lowering("iota.default")
def _iota(ctx, length, *, start, step, **_):
    return start + step * jnp.arange(length, dtype=_default(ctx))


@lowering("fill.Scalar", "fill.Tensor")
def _fill(ctx, x, value):
    return jnp.broadcast_to(jnp.asarray(value).astype(x.dtype), x.shape)


@lowering("_to_copy.default", "clone.default", "alias.default", "detach.default",
          "lift_fresh_copy.default", "contiguous.default", "_assert_tensor_metadata.default")
def _copy_like(ctx, x, *_, **__):
    return x  # values are immutable here; the dtype cast is the interpreter's


@lowering("copy.default")
def _copy(ctx, dst, src, non_blocking=False):
    return jnp.broadcast_to(src.astype(dst.dtype), dst.shape)


# -- views and indexing ----------------------------------------------------------

@lowering("view.default", "_unsafe_view.default", "reshape.default", "view_copy.default")
def _view(ctx, x, size):
    return jnp.reshape(x, tuple(size))


@lowering("permute.default", "permute_copy.default")
def _permute(ctx, x, dims):
    return jnp.transpose(x, _dims(dims, x.ndim))


@lowering("transpose.int")
def _transpose(ctx, x, a, b):
    return jnp.swapaxes(x, a, b)


@lowering("t.default")
def _t(ctx, x):
    return x.T


@lowering("expand.default", "expand_copy.default")
def _expand(ctx, x, size, implicit=False):
    lead = len(size) - x.ndim
    shape = tuple(x.shape[i - lead] if s == -1 else s for i, s in enumerate(size))
    return jnp.broadcast_to(x, shape)


@lowering("unsqueeze.default", "unsqueeze_copy.default")
def _unsqueeze(ctx, x, dim):
    return jnp.expand_dims(x, dim % (x.ndim + 1))


@lowering("squeeze.dim", "squeeze.dims", "squeeze.default", "squeeze_copy.dims")
def _squeeze(ctx, x, dim=None):
    dims = [d for d in _dims(dim, x.ndim) if x.shape[d] == 1] if x.ndim else []
    return jnp.squeeze(x, tuple(dims)) if dims else x


def _slice_bounds(size, start, end, step):
    start = 0 if start is None else start
    end = size if end is None else end
    start = max(start + size, 0) if start < 0 else min(start, size)
    end = max(end + size, 0) if end < 0 else min(end, size)
    return start, max(end, start), step


@lowering("slice.Tensor", "slice_copy.Tensor")
def _slice(ctx, x, dim=0, start=None, end=None, step=1):
    dim %= x.ndim
    start, end, step = _slice_bounds(x.shape[dim], start, end, step)
    return lax.slice_in_dim(x, start, end, step, axis=dim)


@lowering("select.int", "select_copy.int")
def _select(ctx, x, dim, index):
    dim %= x.ndim
    return lax.index_in_dim(x, index % x.shape[dim], axis=dim, keepdims=False)


@lowering("slice_scatter.default")
def _slice_scatter(ctx, x, src, dim=0, start=None, end=None, step=1):
    dim %= x.ndim
    start, end, step = _slice_bounds(x.shape[dim], start, end, step)
    index = [slice(None)] * x.ndim
    index[dim] = slice(start, end, step)
    return x.at[tuple(index)].set(src.astype(x.dtype))


@lowering("select_scatter.default")
def _select_scatter(ctx, x, src, dim, index):
    dim %= x.ndim
    where = [slice(None)] * x.ndim
    where[dim] = index % x.shape[dim]
    return x.at[tuple(where)].set(src.astype(x.dtype))


@lowering("cat.default")
def _cat(ctx, tensors, dim=0):
    tensors = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)] or tensors[:1]
    dtype = ctx.out_dtype()
    return jnp.concatenate([t.astype(dtype) for t in tensors], axis=dim % tensors[0].ndim)


@lowering("stack.default")
def _stack(ctx, tensors, dim=0):
    return jnp.stack(tensors, axis=dim % (tensors[0].ndim + 1))


@lowering("split_with_sizes.default", "split_with_sizes_copy.default")
def _split_with_sizes(ctx, x, sizes, dim=0):
    return jnp.split(x, np.cumsum(sizes)[:-1].tolist(), axis=dim % x.ndim)


@lowering("split.Tensor", "split_copy.Tensor")
def _split(ctx, x, size, dim=0):
    dim %= x.ndim
    return jnp.split(x, list(range(size, x.shape[dim], size)), axis=dim)


@lowering("unbind.int")
def _unbind(ctx, x, dim=0):
    dim %= x.ndim
    return [lax.index_in_dim(x, i, dim, keepdims=False) for i in range(x.shape[dim])]


@lowering("flip.default")
def _flip(ctx, x, dims):
    return jnp.flip(x, _dims(dims, x.ndim))


@lowering("roll.default")
def _roll(ctx, x, shifts, dims=()):
    return jnp.roll(x, tuple(shifts), tuple(dims) if dims else None)


@lowering("constant_pad_nd.default")
def _pad(ctx, x, pad, value=0):
    config = [(0, 0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        config[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1], 0)
    return lax.pad(x, jnp.asarray(value, x.dtype), config)


@lowering("index.Tensor", "_unsafe_index.Tensor")
def _index(ctx, x, indices):
    return x[tuple(slice(None) if i is None else i for i in indices)]


@lowering("index_put.default", "_unsafe_index_put.default")
def _index_put(ctx, x, indices, values, accumulate=False):
    values = values.astype(x.dtype)
    masks = [k for k, i in enumerate(indices) if i is not None and i.dtype == jnp.bool_]
    if masks:
        return _index_put_masked(x, indices, values, accumulate)
    where = tuple(slice(None) if i is None else i for i in indices)
    return x.at[where].add(values) if accumulate else x.at[where].set(values)


def _index_put_masked(x, indices, values, accumulate):
    """x[..., mask, ...] = values for one boolean mask, as a select: only where
    `values` is the same for every selected element (it broadcasts to the
    dims after the mask's), since one value per selected element would need
    the count of true elements, known only when the program runs."""
    at = [k for k, i in enumerate(indices) if i is not None]
    mask = indices[at[0]]
    if len(at) != 1 or mask.dtype != jnp.bool_:
        raise NotImplementedError("index_put with a boolean mask beside other indices")
    start = at[0]
    rest = x.shape[start + mask.ndim:]
    if values.ndim > len(rest) or not all(v in (1, r) for v, r in zip(values.shape[::-1], rest[::-1])):
        raise NotImplementedError("index_put with a boolean mask and one value per selected element "
                                  "(their number is known only when the program runs)")
    selected = mask.reshape((1,) * start + mask.shape + (1,) * len(rest))
    update = jnp.broadcast_to(values, x.shape)
    if accumulate:
        return x + jnp.where(selected, update, jnp.zeros((), x.dtype))
    return jnp.where(selected, update, x)


@lowering("put.default")
def _put(ctx, x, index, source, accumulate=False):
    # Indices into the flattened tensor; negative ones count from the end.
    flat, index = x.reshape(-1), index.reshape(-1)
    index = jnp.where(index < 0, index + flat.shape[0], index)
    at = flat.at[index]
    return (at.add(source.reshape(-1)) if accumulate else at.set(source.reshape(-1))).reshape(x.shape)


@lowering("diagonal_scatter.default")
def _diagonal_scatter(ctx, x, src, offset=0, dim1=0, dim2=1):
    # src holds the diagonal in its last dimension, as torch.diagonal returns it.
    moved = jnp.moveaxis(x, (dim1 % x.ndim, dim2 % x.ndim), (-2, -1))
    n = src.shape[-1]
    rows, cols = np.arange(n) + max(-offset, 0), np.arange(n) + max(offset, 0)
    return jnp.moveaxis(moved.at[..., rows, cols].set(src), (-2, -1), (dim1 % x.ndim, dim2 % x.ndim))


@lowering("narrow_copy.default")
def _narrow_copy(ctx, x, dim, start, length):
    dim %= x.ndim
    start = start + x.shape[dim] if start < 0 else start
    return lax.slice_in_dim(x, start, start + length, axis=dim)


@lowering("_efficientzerotensor.default")
def _efficient_zeros(ctx, size, **_):
    return jnp.zeros(tuple(size), ctx.out_dtype())


@lowering("index_select.default")
def _index_select(ctx, x, dim, index):
    if x.ndim == 0:  # PyTorch takes a 0-d tensor as one element; the result stays 0-d
        return x
    return jnp.take(x, index, axis=dim % x.ndim)


def _along(index, dim):
    """Full index tuples for gather/scatter along `dim` of an index array."""
    grids = jnp.meshgrid(*[jnp.arange(n) for n in index.shape], indexing="ij")
    grids[dim] = index
    return tuple(grids)


@lowering("gather.default")
def _gather(ctx, x, dim, index, sparse_grad=False):
    dim %= max(x.ndim, 1)
    if x.ndim == 0:
        return x
    return x[_along(index, dim)]


@lowering("scatter.src", "scatter.value")
def _scatter(ctx, x, dim, index, src):
    dim %= x.ndim
    src = jnp.broadcast_to(jnp.asarray(src).astype(x.dtype), index.shape) if not hasattr(src, "shape") or \
        src.shape != index.shape else src[tuple(slice(0, n) for n in index.shape)].astype(x.dtype)
    return x.at[_along(index, dim)].set(src)


@lowering("scatter_add.default")
def _scatter_add(ctx, x, dim, index, src):
    dim %= x.ndim
    src = src[tuple(slice(0, n) for n in index.shape)].astype(x.dtype)
    return x.at[_along(index, dim)].add(src)


@lowering("embedding.default")
def _embedding(ctx, weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return jnp.take(weight, indices, axis=0)


@lowering("embedding_dense_backward.default")
def _embedding_backward(ctx, grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    if scale_grad_by_freq:
        raise NotImplementedError("embedding backward with scale_grad_by_freq")
    flat = indices.reshape(-1)
    grad = grad.reshape(flat.shape[0], -1)
    if padding_idx >= 0:
        grad = jnp.where((flat == padding_idx)[:, None], 0, grad)
    return jnp.zeros((num_weights, grad.shape[1]), grad.dtype).at[flat].add(grad)


# -- reductions ------------------------------------------------------------------

@lowering("sum.dim_IntList", "sum.default")
def _sum(ctx, x, dim=None, keepdim=False, dtype=None):
    return jnp.sum(x.astype(ctx.out_dtype()), axis=_dims(dim or None, x.ndim) if x.ndim else None,
                   keepdims=keepdim)


@lowering("mean.dim", "mean.default")
def _mean(ctx, x, dim=None, keepdim=False, dtype=None):
    return jnp.mean(x.astype(ctx.out_dtype()), axis=_dims(dim or None, x.ndim) if x.ndim else None,
                    keepdims=keepdim)


@lowering("prod.default", "prod.dim_int")
def _prod(ctx, x, dim=None, keepdim=False, dtype=None):
    axis = None if dim is None or x.ndim == 0 else dim % x.ndim  # a 0-d tensor's dim 0 is itself
    return jnp.prod(x.astype(ctx.out_dtype()), axis=axis, keepdims=keepdim)


@lowering("amax.default")
def _amax(ctx, x, dim=(), keepdim=False):
    return jnp.max(x, axis=_dims(dim or None, x.ndim) if x.ndim else None, keepdims=keepdim)


@lowering("amin.default")
def _amin(ctx, x, dim=(), keepdim=False):
    return jnp.min(x, axis=_dims(dim or None, x.ndim) if x.ndim else None, keepdims=keepdim)


@lowering("max.dim")
def _max_dim(ctx, x, dim, keepdim=False):
    if x.ndim == 0:  # a 0-d tensor is its own maximum, at index 0
        return x, jnp.zeros((), jnp.int32)
    dim %= x.ndim
    return jnp.max(x, axis=dim, keepdims=keepdim), jnp.argmax(x, axis=dim, keepdims=keepdim)


@lowering("min.dim")
def _min_dim(ctx, x, dim, keepdim=False):
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int32)
    dim %= x.ndim
    return jnp.min(x, axis=dim, keepdims=keepdim), jnp.argmin(x, axis=dim, keepdims=keepdim)


@lowering("max.default")
def _max(ctx, x):
    return jnp.max(x)


@lowering("min.default")
def _min(ctx, x):
    return jnp.min(x)


@lowering("argmax.default")
def _argmax(ctx, x, dim=None, keepdim=False):
    if x.ndim == 0:  # the index of a 0-d tensor's one element, whatever dim says
        return jnp.zeros((), jnp.int32)
    return jnp.argmax(x, axis=dim, keepdims=keepdim)


@lowering("argmin.default")
def _argmin(ctx, x, dim=None, keepdim=False):
    if x.ndim == 0:
        return jnp.zeros((), jnp.int32)
    return jnp.argmin(x, axis=dim, keepdims=keepdim)


@lowering("any.dim", "any.dims", "any.default")
def _any(ctx, x, dim=None, keepdim=False):
    return jnp.any(x, axis=_dims(dim, x.ndim) if x.ndim and dim is not None else None, keepdims=keepdim)


@lowering("all.dim", "all.dims", "all.default")
def _all(ctx, x, dim=None, keepdim=False):
    return jnp.all(x, axis=_dims(dim, x.ndim) if x.ndim and dim is not None else None, keepdims=keepdim)


@lowering("var.correction", "var.dim")
def _var(ctx, x, dim=None, *, correction=None, keepdim=False, unbiased=None):
    ddof = (1 if unbiased is None or unbiased else 0) if correction is None else correction
    return jnp.var(x, axis=_dims(dim, x.ndim), ddof=ddof, keepdims=keepdim)


@lowering("cumsum.default")
def _cumsum(ctx, x, dim, dtype=None):
    if x.ndim == 0:  # jnp.cumsum would flatten it to one element
        return x.astype(ctx.out_dtype())
    return jnp.cumsum(x.astype(ctx.out_dtype()), axis=dim % x.ndim)


@lowering("cumprod.default")
def _cumprod(ctx, x, dim, dtype=None):
    if x.ndim == 0:
        return x.astype(ctx.out_dtype())
    return jnp.cumprod(x.astype(ctx.out_dtype()), axis=dim % x.ndim)


@lowering("logcumsumexp.default")
def _logcumsumexp(ctx, x, dim):
    if x.ndim == 0:
        return x
    return lax.cumlogsumexp(x, axis=dim % x.ndim)


def _cumulative_extreme(x, dim, later_wins):
    """Running max (min) and the index it came from, as PyTorch's cummax
    (cummin): an equal later value takes over; the first NaN stays."""
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    dim %= x.ndim
    index = lax.broadcasted_iota(jnp.int64, x.shape, dim)

    def combine(earlier, later):
        (a, i), (b, j) = earlier, later
        take = ~jnp.isnan(a) & (jnp.isnan(b) | later_wins(b, a))
        return jnp.where(take, b, a), jnp.where(take, j, i)
    return lax.associative_scan(combine, (x, index), axis=dim)


@lowering("cummax.default")
def _cummax(ctx, x, dim):
    return _cumulative_extreme(x, dim, jnp.greater_equal)


@lowering("cummin.default")
def _cummin(ctx, x, dim):
    return _cumulative_extreme(x, dim, jnp.less_equal)


@lowering("var_mean.correction")
def _var_mean(ctx, x, dim=None, *, correction=None, keepdim=False):
    ddof = 1 if correction is None else correction
    axes = _dims(dim, x.ndim)
    return jnp.var(x, axis=axes, ddof=ddof, keepdims=keepdim), jnp.mean(x, axis=axes, keepdims=keepdim)


# -- linear algebra and convolution ----------------------------------------------

@lowering("mm.default", "bmm.default", "matmul.default", "dot.default")
def _mm(ctx, a, b):
    return jnp.matmul(a, b, preferred_element_type=ctx.out_dtype())


@lowering("addmv.default")
def _addmv(ctx, bias, a, v, beta=1, alpha=1):
    return _addmm(ctx, bias, a, v, beta, alpha)


@lowering("addbmm.default")
def _addbmm(ctx, bias, a, b, beta=1, alpha=1):
    # The batch of products summed: one dot contracting the batch with the inner dimension.
    product = lax.dot_general(a, b, (((0, 2), (0, 1)), ((), ())), preferred_element_type=ctx.out_dtype())
    return (bias if beta == 1 else bias * beta) + (product if alpha == 1 else product * alpha)


@lowering("addmm.default")
def _addmm(ctx, bias, a, b, beta=1, alpha=1):
    product = jnp.matmul(a, b, preferred_element_type=ctx.out_dtype())
    return (bias if beta == 1 else bias * beta) + (product if alpha == 1 else product * alpha)


@lowering("baddbmm.default")
def _baddbmm(ctx, bias, a, b, beta=1, alpha=1):
    return _addmm(ctx, bias, a, b, beta, alpha)


def _conv(x, w, stride, padding, dilation, transposed, output_padding, groups, channels_last=False):
    spatial = x.ndim - 2
    stride, padding, dilation = (tuple(v) * (spatial if len(v) == 1 else 1) for v in (stride, padding, dilation))
    letters = "DHW"[-spatial:] if spatial <= 3 else None
    if letters is None:
        raise NotImplementedError(f"convolution with {spatial} spatial dimensions")
    dims = ("NC" + letters, "OI" + letters, "NC" + letters)
    if not transposed and channels_last:
        # PyTorch's NCHW as transposes around a channels-last convolution:
        # kiln's convolution kernels are faster channels-last (docs/torch.md),
        # and the transposes cancel against a model's own permutes.
        to_last = (0,) + tuple(range(2, x.ndim)) + (1,)
        y = lax.conv_general_dilated(jnp.transpose(x, to_last), jnp.transpose(w, tuple(range(2, w.ndim)) + (1, 0)),
                                     stride, [(p, p) for p in padding], rhs_dilation=dilation,
                                     dimension_numbers=("N" + letters + "C", letters + "IO", "N" + letters + "C"),
                                     feature_group_count=groups)
        return jnp.transpose(y, (0, x.ndim - 1) + tuple(range(1, x.ndim - 1)))
    if not transposed:
        return lax.conv_general_dilated(x, w, stride, [(p, p) for p in padding], rhs_dilation=dilation,
                                        dimension_numbers=dims, feature_group_count=groups)
    # A transposed convolution is the gradient of a convolution: dilate the
    # input by the stride, flip the kernel and swap its in/out features.
    if groups != 1:
        raise NotImplementedError("transposed convolution with groups")
    output_padding = tuple(output_padding) * (spatial if len(output_padding) == 1 else 1)
    kernel = w.shape[2:]
    pads = [(d * (k - 1) - p, d * (k - 1) - p + op) for k, p, d, op in zip(kernel, padding, dilation, output_padding)]
    w = jnp.flip(jnp.swapaxes(w, 0, 1), tuple(range(2, w.ndim)))
    return lax.conv_general_dilated(x, w, (1,) * spatial, pads, lhs_dilation=stride, rhs_dilation=dilation,
                                    dimension_numbers=dims)


@lowering("convolution.default")
def _convolution(ctx, x, w, bias, stride, padding, dilation, transposed, output_padding, groups):
    y = _conv(x, w, stride, padding, dilation, transposed, output_padding, groups, channels_last=True)
    if bias is not None:
        y = y + bias.reshape((1, -1) + (1,) * (y.ndim - 2))
    return y


@lowering("convolution_backward.default")
def _convolution_backward(ctx, grad, x, w, bias_sizes, stride, padding, dilation, transposed, output_padding,
                          groups, output_mask):
    # The gradients of the convolution as JAX derives them from the forward.
    _, vjp = jax.vjp(lambda x_, w_: _conv(x_, w_, stride, padding, dilation, transposed, output_padding,
                                          groups, channels_last=True), x, w)
    grad_x, grad_w = vjp(grad)
    # The bias gradient sums channels-last (the transpose cancels against the
    # one the channels-last convolution put on the gradient): a reduction
    # over the leading dims of contiguous data, not a strided one.
    grad_b = jnp.sum(jnp.moveaxis(grad, 1, -1), axis=tuple(range(grad.ndim - 1))) if output_mask[2] else None
    return (grad_x if output_mask[0] else None, grad_w if output_mask[1] else None, grad_b)


# -- normalization, softmax, attention -------------------------------------------

@lowering("_softmax.default")
def _softmax(ctx, x, dim, half_to_float=False):
    return jax.nn.softmax(x, axis=dim)


@lowering("_log_softmax.default")
def _log_softmax(ctx, x, dim, half_to_float=False):
    return jax.nn.log_softmax(x, axis=dim)


@lowering("_softmax_backward_data.default")
def _softmax_backward(ctx, grad, y, dim, input_dtype):
    return y * (grad - jnp.sum(grad * y, axis=dim, keepdims=True))


@lowering("_log_softmax_backward_data.default")
def _log_softmax_backward(ctx, grad, y, dim, input_dtype):
    return grad - jnp.exp(y) * jnp.sum(grad, axis=dim, keepdims=True)


@lowering("native_layer_norm.default")
def _layer_norm(ctx, x, shape, weight, bias, eps):
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    mean = jnp.mean(x, axis=axes, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=axes, keepdims=True)
    rstd = lax.rsqrt(var + eps)
    y = (x - mean) * rstd
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y, mean, rstd


def _batch_norm_stats(x, eps):
    axes = (0,) + tuple(range(2, x.ndim))
    mean = jnp.mean(x, axis=axes)
    var = jnp.mean(jnp.square(x - _channel(mean, x)), axis=axes)
    return mean, var, lax.rsqrt(var + eps)


def _channel(v, x):
    return v.reshape((1, -1) + (1,) * (x.ndim - 2))


def _normalize(x, mean, rstd, weight, bias):
    y = (x - _channel(mean, x)) * _channel(rstd, x)
    if weight is not None:
        y = y * _channel(weight, x)
    if bias is not None:
        y = y + _channel(bias, x)
    return y


@lowering("_native_batch_norm_legit_functional.default")
def _batch_norm_functional(ctx, x, weight, bias, running_mean, running_var, training, momentum, eps):
    if not training:
        rstd = lax.rsqrt(running_var + eps)
        empty = jnp.zeros((0,), x.dtype)
        return _normalize(x, running_mean, rstd, weight, bias), empty, empty, running_mean, running_var
    mean, var, rstd = _batch_norm_stats(x, eps)
    n = x.size // x.shape[1]
    new_mean = (1 - momentum) * running_mean + momentum * mean
    new_var = (1 - momentum) * running_var + momentum * var * (n / max(n - 1, 1))
    return _normalize(x, mean, rstd, weight, bias), mean, rstd, new_mean, new_var


@lowering("_native_batch_norm_legit.default")
def _batch_norm_in_place(ctx, x, weight, bias, running_mean, running_var, training, momentum, eps):
    # The in-place form: in training it updates the running statistics,
    # which only a graph that reads them nowhere else may leave out.
    if training:
        _mutated_only_here(ctx, 3, "running_mean")
        _mutated_only_here(ctx, 4, "running_var")
        return _batch_norm_functional(ctx, x, weight, bias, running_mean, running_var, True, momentum, eps)[:3]
    return _batch_norm_inference(ctx, x, weight, bias, running_mean, running_var, momentum, eps)


@lowering("_native_batch_norm_legit.no_stats")
def _batch_norm_no_stats(ctx, x, weight, bias, training, momentum, eps):
    mean, _, rstd = _batch_norm_stats(x, eps)
    return _normalize(x, mean, rstd, weight, bias), mean, rstd


@lowering("_native_batch_norm_legit_no_training.default")
def _batch_norm_inference(ctx, x, weight, bias, running_mean, running_var, momentum, eps):
    empty = jnp.zeros((0,), x.dtype)
    return _normalize(x, running_mean, lax.rsqrt(running_var + eps), weight, bias), empty, empty


@lowering("native_batch_norm_backward.default")
def _batch_norm_backward(ctx, grad, x, weight, running_mean, running_var, save_mean, save_rstd, training, eps,
                         output_mask):
    if training:
        def forward(x_, w_):
            mean, _, rstd = _batch_norm_stats(x_, eps)
            return _normalize(x_, mean, rstd, w_, None)
    else:
        def forward(x_, w_):
            return _normalize(x_, running_mean, lax.rsqrt(running_var + eps), w_, None)
    w = weight if weight is not None else jnp.ones((x.shape[1],), x.dtype)
    _, vjp = jax.vjp(forward, x, w)
    grad_x, grad_w = vjp(grad)
    grad_b = jnp.sum(grad, axis=(0,) + tuple(range(2, x.ndim)))
    return tuple(g if keep else None for g, keep in zip((grad_x, grad_w, grad_b), output_mask))


def _attention(q, k, v, mask, causal, scale):
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = jnp.matmul(q, jnp.swapaxes(k, -1, -2)) * scale
    if causal:
        keep = jnp.tril(jnp.ones((q.shape[-2], k.shape[-2]), jnp.bool_))
        scores = jnp.where(keep, scores, -jnp.inf)
    if mask is not None:
        scores = jnp.where(mask, scores, -jnp.inf) if mask.dtype == jnp.bool_ else scores + mask
    return jnp.matmul(jax.nn.softmax(scores, axis=-1), v)


@lowering("_scaled_dot_product_flash_attention_for_cpu.default")
def _sdpa_flash_cpu(ctx, q, k, v, dropout_p=0.0, is_causal=False, *, attn_mask=None, scale=None):
    if dropout_p > 0:
        raise NotImplementedError("scaled_dot_product_attention with dropout_p > 0")
    out = _attention(q, k, v, attn_mask, is_causal, scale)
    # The log-sum-exp is only read by this op's backward, which recomputes.
    return out, jnp.zeros(q.shape[:-1], jnp.float32)


@lowering("_scaled_dot_product_flash_attention_for_cpu_backward.default")
def _sdpa_flash_cpu_backward(ctx, grad, q, k, v, out, logsumexp, dropout_p, is_causal, *, attn_mask=None,
                             scale=None):
    _, vjp = jax.vjp(lambda q_, k_, v_: _attention(q_, k_, v_, attn_mask, is_causal, scale), q, k, v)
    return vjp(grad.astype(q.dtype))


# -- pooling (2-D and 3-D: the last 2 or 3 axes are spatial) -----------------------

def _pool_params(spatial, kernel, stride, padding, dilation=(1,)):
    expand = lambda v, d: tuple(v) * (spatial if len(v) == 1 else 1) if v else d  # noqa: E731
    kernel = expand(kernel, None)
    stride = expand(stride, kernel)
    padding = expand(padding, (0,) * spatial)
    dilation = expand(dilation, (1,) * spatial)
    return kernel, stride, padding, dilation


def _pool_out(size, k, s, p, d, ceil_mode):
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:  # the last window must start inside the input
        out -= 1
    return out


def _window_padding(x, kernel, stride, padding, dilation, ceil_mode):
    pads = []
    for size, k, s, p, d in zip(x.shape[-len(kernel):], kernel, stride, padding, dilation):
        out = _pool_out(size, k, s, p, d, ceil_mode)
        pads.append((p, max((out - 1) * s + d * (k - 1) + 1 - size - p, 0)))
    return pads


def _max_pool(x, spatial, kernel, stride, padding, dilation, ceil_mode):
    kernel, stride, padding, dilation = _pool_params(spatial, kernel, stride, padding, dilation)
    pads = _window_padding(x, kernel, stride, padding, dilation, ceil_mode)
    sizes = x.shape[-spatial:]
    outs = [_pool_out(n, k, s, p, d, ceil_mode) for n, k, s, p, d in zip(sizes, kernel, stride, padding, dilation)]
    lead_rank = x.ndim - spatial
    padded = lax.pad(x, np.array(-np.inf, x.dtype), [(0, 0, 0)] * lead_rank + [(lo, hi, 0) for lo, hi in pads])
    # The windows as a last axis of kernel-size strided slices (row-major, as
    # PyTorch scans a window): the max and the first position holding it.
    # (A variadic reduce_window over (value, index) pairs is ~300x slower.)
    windows, positions = [], []
    flat_strides = np.cumprod((1,) + tuple(sizes[::-1]))[:-1][::-1]  # of the spatial plane, row-major
    for offset in itertools.product(*(range(k) for k in kernel)):
        starts = [o * d for o, d in zip(offset, dilation)]
        windows.append(lax.slice(padded, (0,) * lead_rank + tuple(starts),
                                 padded.shape[:lead_rank] + tuple(st + (n - 1) * s + 1
                                                                  for st, n, s in zip(starts, outs, stride)),
                                 (1,) * lead_rank + tuple(stride)))
        flat = np.zeros(outs, np.int64)
        for axis, (st, n, s, (lo, _), fs) in enumerate(zip(starts, outs, stride, pads, flat_strides)):
            coord = (np.arange(n) * s - lo + st) * fs
            flat = flat + coord.reshape([-1 if a == axis else 1 for a in range(spatial)])
        positions.append(flat)
    windows = jnp.stack(windows, axis=-1)
    first = jnp.argmax(windows, axis=-1)
    values = jnp.max(windows, axis=-1)
    positions = jnp.asarray(np.stack(positions, axis=-1))
    indices = jnp.take_along_axis(jnp.broadcast_to(positions, windows.shape), first[..., None], axis=-1)[..., 0]
    return values, indices


@lowering("max_pool2d_with_indices.default")
def _max_pool2d(ctx, x, kernel, stride=(), padding=(0,), dilation=(1,), ceil_mode=False):
    return _max_pool(x, 2, kernel, stride, padding, dilation, ceil_mode)


@lowering("max_pool3d_with_indices.default")
def _max_pool3d(ctx, x, kernel, stride=(), padding=(0,), dilation=(1,), ceil_mode=False):
    return _max_pool(x, 3, kernel, stride, padding, dilation, ceil_mode)


def _max_pool_backward(grad, x, indices, spatial):
    # Each output's gradient goes to the input position its index names.
    lead = x.shape[:-spatial]
    plane = math.prod(x.shape[-spatial:])
    g = grad.reshape(-1, math.prod(grad.shape[-spatial:]))
    idx = indices.reshape(g.shape)
    rows = jnp.arange(g.shape[0])[:, None]
    out = jnp.zeros((g.shape[0], plane), grad.dtype).at[rows, idx].add(g)
    return out.reshape(lead + x.shape[-spatial:])


@lowering("max_pool2d_with_indices_backward.default")
def _max_pool2d_backward(ctx, grad, x, kernel, stride, padding, dilation, ceil_mode, indices):
    return _max_pool_backward(grad, x, indices, 2)


@lowering("max_pool3d_with_indices_backward.default")
def _max_pool3d_backward(ctx, grad, x, kernel, stride, padding, dilation, ceil_mode, indices):
    return _max_pool_backward(grad, x, indices, 3)


def _avg_pool(x, spatial, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    kernel, stride, padding, _ = _pool_params(spatial, kernel, stride, padding)
    pads = _window_padding(x, kernel, stride, padding, (1,) * spatial, ceil_mode)
    lead = [(0, 0)] * (x.ndim - spatial)
    window = (1,) * (x.ndim - spatial) + tuple(kernel)
    strides = (1,) * (x.ndim - spatial) + tuple(stride)
    sums = lax.reduce_window(x, np.array(0, x.dtype), lax.add, window, strides, lead + pads)
    if divisor_override:
        return sums / divisor_override
    # The divisor: the window's cells inside the input, plus the explicit
    # padding when count_include_pad (never the extra ceil_mode cells).
    ones = jnp.ones(x.shape[-spatial:], x.dtype)
    if count_include_pad:
        ones = lax.pad(ones, jnp.array(1, x.dtype), [(p, p, 0) for p in padding])
        pads = [(0, hi - p) for (lo, hi), p in zip(pads, padding)]
    counts = lax.reduce_window(ones, np.array(0, x.dtype), lax.add, tuple(kernel), tuple(stride), pads)
    return sums / counts


@lowering("avg_pool2d.default")
def _avg_pool2d(ctx, x, kernel, stride=(), padding=(0,), ceil_mode=False, count_include_pad=True,
                divisor_override=None):
    return _avg_pool(x, 2, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)


@lowering("avg_pool3d.default")
def _avg_pool3d(ctx, x, kernel, stride=(), padding=(0,), ceil_mode=False, count_include_pad=True,
                divisor_override=None):
    return _avg_pool(x, 3, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)


def _vjp(fn, grad, x):
    """The gradient of a linear (or any) lowering, by JAX's autodiff of it."""
    return jax.vjp(fn, x)[1](grad)[0]


@lowering("avg_pool2d_backward.default")
def _avg_pool2d_backward(ctx, grad, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    return _vjp(lambda x_: _avg_pool(x_, 2, kernel, stride, padding, ceil_mode, count_include_pad,
                                     divisor_override), grad, x)


@lowering("avg_pool3d_backward.default")
def _avg_pool3d_backward(ctx, grad, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    return _vjp(lambda x_: _avg_pool(x_, 3, kernel, stride, padding, ceil_mode, count_include_pad,
                                     divisor_override), grad, x)


def _adaptive_avg_pool(x, output_size):
    """PyTorch's adaptive bins: output i of n averages inputs
    [floor(i*n_in/n), ceil((i+1)*n_in/n)), as one averaging matrix per axis
    (bins may overlap when n does not divide n_in)."""
    spatial = len(output_size)
    for axis, (size, out) in enumerate(zip(x.shape[-spatial:], output_size)):
        weights = np.zeros((out, size), np.float64)
        for i in range(out):
            lo, hi = (i * size) // out, -((-(i + 1) * size) // out)
            weights[i, lo:hi] = 1.0 / (hi - lo)
        x = jnp.moveaxis(jnp.tensordot(x, jnp.asarray(weights.T, x.dtype), axes=[[x.ndim - spatial + axis], [0]]),
                         -1, x.ndim - spatial + axis)
    return x


@lowering("_adaptive_avg_pool2d.default", "_adaptive_avg_pool3d.default")
def _adaptive_avg_pool_nd(ctx, x, output_size):
    spatial = len(output_size)
    sizes = x.shape[-spatial:]
    if all(n % o == 0 for n, o in zip(sizes, output_size)):  # equal windows: a pooling
        window = tuple(n // o for n, o in zip(sizes, output_size))
        return _avg_pool(x, spatial, window, window, (0,) * spatial, False, True, None)
    return _adaptive_avg_pool(x, output_size)


@lowering("_adaptive_avg_pool2d_backward.default")
def _adaptive_avg_pool2d_backward(ctx, grad, x):
    return _vjp(lambda x_: _adaptive_avg_pool_nd(ctx, x_, grad.shape[-2:]), grad, x)


@lowering("_adaptive_avg_pool3d_backward.default")
def _adaptive_avg_pool3d_backward(ctx, grad, x):
    return _vjp(lambda x_: _adaptive_avg_pool_nd(ctx, x_, grad.shape[-3:]), grad, x)


# -- Python-level operations on sizes (symbolic shapes become numbers here) -------

_PYTHON_OPS = {
    operator.add, operator.sub, operator.mul, operator.floordiv, operator.truediv, operator.mod, operator.neg,
    operator.pow, operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge,
    operator.and_, operator.or_, math.ceil, math.floor, math.sqrt,
}
for _name in ("sym_max", "sym_min", "sym_float", "sym_int", "sym_not", "sym_sqrt", "sym_ite"):
    if hasattr(torch, _name):
        _PYTHON_OPS.add(getattr(torch, _name))


@lowering("sym_size.int")
def _sym_size(ctx, x, dim):
    return _size(x.shape[dim])


@lowering("sym_numel.default")
def _sym_numel(ctx, x):
    return _size(x.size)


def _size(d):
    """A size as a Python int, or JAX's symbolic dimension under kiln.torch.export's symbolic shapes."""
    return int(d) if jax.core.is_constant_dim(d) else d


@lowering("_local_scalar_dense.default")
def _local_scalar_dense(ctx, x):
    # tensor.item() (in a graph where Dynamo captures scalar outputs): the
    # number stays a 0-d value inside the program, feeding the ops that use
    # it. A graph that returns it is refused (kiln/torch.py, lower_graph).
    return x.reshape(())


def _convert_element_type(ctx, x, dtype):
    return jnp.asarray(x).astype(jax_dtype(dtype))


# AOTAutograd turns a captured .item() feeding tensor ops into this prim (a
# cast to float64 and back, say) instead of _local_scalar_dense.
LOWERINGS[torch.ops.prims.convert_element_type.default] = _convert_element_type


def _refuse(name: str, why: str) -> None:
    op = _find_op(name)
    if op is not None:
        REFUSED[op] = why


_refuse("nonzero.default", "its result's shape depends on the tensor's values; under torch.compile TorchDynamo "
                           "breaks the graph there unless torch._dynamo.config.capture_dynamic_output_shape_ops is on")
_refuse("sym_storage_offset.default", "a view's offset into PyTorch's storage: kiln's programs take tensors' values, "
                                      "not their storage")


def _mutated_only_here(ctx, arg_index_or_name, what: str) -> None:
    """Raises NotImplementedError unless the tensor that node argument
    `arg_index_or_name` names is made inside the graph and read by this node
    alone: then an in-place write into it (an out= argument, batch norm's
    running statistics) is seen by no one, and the op is its functional form."""
    node = ctx.node
    arg = node.kwargs.get(arg_index_or_name) if isinstance(arg_index_or_name, str) else \
        node.args[arg_index_or_name] if arg_index_or_name < len(node.args) else None
    if not isinstance(arg, torch.fx.Node):
        return
    if arg.op == "call_function" and set(arg.users) == {node}:
        return
    which = {"placeholder": "is a graph input", "call_function": "other nodes read"}.get(arg.op, "the graph holds")
    raise NotImplementedError(f"it writes into {what} ({arg.name}) in place, which {which}; kiln lowers the "
                              "functional form (torch.compile and kiln.torch.export functionalize graphs)")


@lowering("atan2.out")
def _atan2_out(ctx, a, b, out=None):
    _mutated_only_here(ctx, "out", "its out= tensor")
    return jnp.arctan2(*_promote(ctx, a, b))


# -- fused inference kernels that PyTorch's eval-mode fast paths call --------------

def _self_attention(x, num_heads, qkv_weight, qkv_bias, proj_weight, proj_bias):
    batch, length, width = x.shape
    qkv = jnp.matmul(x, qkv_weight.T) + qkv_bias
    heads = [part.reshape(batch, length, num_heads, width // num_heads).transpose(0, 2, 1, 3)
             for part in jnp.split(qkv, 3, axis=-1)]
    out = _attention(*heads, None, False, None).transpose(0, 2, 1, 3).reshape(batch, length, width)
    return jnp.matmul(out, proj_weight.T) + proj_bias


@lowering("_transformer_encoder_layer_fwd.default")
def _transformer_encoder_layer(ctx, src, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight, proj_bias,
                               use_gelu, norm_first, eps, norm_weight_1, norm_bias_1, norm_weight_2, norm_bias_2,
                               ffn_weight_1, ffn_bias_1, ffn_weight_2, ffn_bias_2, mask=None, mask_type=None):
    if mask is not None:
        raise NotImplementedError("the encoder layer's fast path with a mask")
    if src.ndim != 3:
        raise NotImplementedError("the encoder layer's fast path on nested or unbatched input")

    def norm(x, weight, bias):
        return _layer_norm(ctx, x, (x.shape[-1],), weight, bias, eps)[0]

    def feed_forward(x):
        hidden = jnp.matmul(x, ffn_weight_1.T) + ffn_bias_1
        hidden = jax.nn.gelu(hidden, approximate=False) if use_gelu else jax.nn.relu(hidden)
        return jnp.matmul(hidden, ffn_weight_2.T) + ffn_bias_2

    attend = lambda x: _self_attention(x, num_heads, qkv_weight, qkv_bias, proj_weight, proj_bias)  # noqa: E731
    if norm_first:
        x = src + attend(norm(src, norm_weight_1, norm_bias_1))
        return x + feed_forward(norm(x, norm_weight_2, norm_bias_2))
    x = norm(src + attend(src), norm_weight_1, norm_bias_1)
    return norm(x + feed_forward(x), norm_weight_2, norm_bias_2)


# -- more of the core set -------------------------------------------------------------

@lowering("elu.default")
def _elu(ctx, x, alpha=1, scale=1, input_scale=1):
    return jnp.where(x > 0, x * scale, alpha * scale * jnp.expm1(x * input_scale))


@lowering("repeat.default")
def _repeat(ctx, x, repeats):
    x = x.reshape((1,) * (len(repeats) - x.ndim) + x.shape)
    return jnp.tile(x, tuple(repeats))


@lowering("diagonal.default", "diagonal_copy.default")
def _diagonal(ctx, x, offset=0, dim1=0, dim2=1):
    return jnp.diagonal(x, offset, dim1 % x.ndim, dim2 % x.ndim)


@lowering("native_group_norm.default")
def _group_norm(ctx, x, weight, bias, n, c, hw, group, eps):
    grouped = x.reshape(n, group, -1)
    mean = jnp.mean(grouped, axis=-1)
    var = jnp.mean(jnp.square(grouped - mean[..., None]), axis=-1)
    rstd = lax.rsqrt(var + eps)
    y = ((grouped - mean[..., None]) * rstd[..., None]).reshape(x.shape)
    channel = (1, c) + (1,) * (x.ndim - 2)
    if weight is not None:
        y = y * weight.reshape(channel)
    if bias is not None:
        y = y + bias.reshape(channel)
    return y, mean, rstd


@lowering("upsample_nearest2d.vec")
def _upsample_nearest2d(ctx, x, output_size, scale_factors):
    sizes = x.shape[-2:]
    if output_size is None:
        output_size = [int(math.floor(n * s)) for n, s in zip(sizes, scale_factors)]
    for axis, (size, out) in enumerate(zip(sizes, output_size)):
        # PyTorch's source index: floor(dst * scale) in float32, scale = 1/factor or in/out.
        scale = np.float32(1 / scale_factors[axis]) if scale_factors else np.float32(size / out)
        index = np.minimum(np.floor(np.arange(out, dtype=np.float32) * scale).astype(np.int64), size - 1)
        x = jnp.take(x, jnp.asarray(index), axis=x.ndim - 2 + axis)
    return x


# -- sorting ---------------------------------------------------------------------------

def _sort_with_indices(x, dim, descending):
    """Values and int64 indices of a stable sort along `dim`, as PyTorch's CPU
    sort: NaN sorts above every number, equal values keep their order. Descending
    sorts the reversed axis ascending and reverses back, so ties keep their
    order and NaN comes first, as in PyTorch."""
    dim %= max(x.ndim, 1)
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    n = x.shape[dim]
    if descending:
        x = jnp.flip(x, dim)
    index = lax.broadcasted_iota(jnp.int64, x.shape, dim)
    values, index = lax.sort((x, index), dimension=dim, is_stable=True, num_keys=1)
    if descending:
        values, index = jnp.flip(values, dim), n - 1 - jnp.flip(index, dim)
    return values, index


@lowering("sort.default", "sort.stable")
def _sort(ctx, x, *args, dim=-1, descending=False, stable=None):
    if ctx.node.target is aten.sort.default and args:  # sort(self, dim=-1, descending=False)
        dim, descending = (list(args) + [descending])[:2]
    elif args:  # sort.stable(self, *, stable, dim, descending): all keywords
        raise NotImplementedError(f"sort.stable with positional arguments {args}")
    return _sort_with_indices(x, dim, descending)


def _insertion_points(boundaries, x, right, out_dtype):
    # How many boundaries lie below each value (at or below, with `right`):
    # PyTorch's bucketize/searchsorted on sorted boundaries; a NaN value goes
    # past every boundary, as PyTorch's binary search sends it.
    below = jnp.less_equal if right else jnp.less
    return jnp.sum(below(boundaries, x[..., None]) | jnp.isnan(x)[..., None], axis=-1, dtype=out_dtype)


@lowering("bucketize.Tensor", "bucketize.Scalar")
def _bucketize(ctx, x, boundaries, *, out_int32=False, right=False):
    return _insertion_points(boundaries, jnp.asarray(x), right, jnp.int32 if out_int32 else jnp.int64)


@lowering("searchsorted.Tensor", "searchsorted.Scalar")
def _searchsorted(ctx, sorted_sequence, x, *, out_int32=False, right=False, side=None, sorter=None):
    if sorter is not None:
        sorted_sequence = jnp.take_along_axis(sorted_sequence, sorter, axis=-1)
    right = right or side == "right"
    x = jnp.asarray(x)
    if sorted_sequence.ndim > 1:  # one sorted row per leading index of x
        return jax.vmap(lambda s, v: _insertion_points(s, v, right, jnp.int32 if out_int32 else jnp.int64))(
            sorted_sequence.reshape(-1, sorted_sequence.shape[-1]), x.reshape(-1, x.shape[-1])).reshape(x.shape)
    return _insertion_points(sorted_sequence, x, right, jnp.int32 if out_int32 else jnp.int64)


@lowering("topk.default")
def _topk(ctx, x, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    # The first k of a stable sort: among equal values the lower index first.
    values, index = _sort_with_indices(x, dim, largest)
    dim %= max(x.ndim, 1)
    if x.ndim == 0:
        return values, index
    return lax.slice_in_dim(values, 0, k, axis=dim), lax.slice_in_dim(index, 0, k, axis=dim)


# -- FFTs ------------------------------------------------------------------------------

# ATen's normalization: 0 none, 1 by 1/sqrt(n), 2 by 1/n, on the transform
# being computed; jnp.fft's norm names the forward transform's scaling.
_FORWARD_NORM = {0: "backward", 1: "ortho", 2: "forward"}
_INVERSE_NORM = {0: "forward", 1: "ortho", 2: "backward"}


@lowering("_fft_r2c.default")
def _fft_r2c(ctx, x, dim, normalization, onesided):
    dim = _dims(dim, x.ndim)
    norm = _FORWARD_NORM[normalization]
    if onesided:
        return jnp.fft.rfftn(x, axes=dim, norm=norm)
    return jnp.fft.fftn(x.astype(jnp.result_type(x.dtype, jnp.complex64)), axes=dim, norm=norm)


@lowering("_fft_c2r.default")
def _fft_c2r(ctx, x, dim, normalization, last_dim_size):
    dim = _dims(dim, x.ndim)
    sizes = [x.shape[d] for d in dim[:-1]] + [last_dim_size]
    return jnp.fft.irfftn(x, s=sizes, axes=dim, norm=_INVERSE_NORM[normalization])


@lowering("_fft_c2c.default")
def _fft_c2c(ctx, x, dim, normalization, forward):
    dim = _dims(dim, x.ndim)
    if forward:
        return jnp.fft.fftn(x, axes=dim, norm=_FORWARD_NORM[normalization])
    return jnp.fft.ifftn(x, axes=dim, norm=_INVERSE_NORM[normalization])


@lowering("view_as_real.default")
def _view_as_real(ctx, x):
    return jnp.stack([jnp.real(x), jnp.imag(x)], axis=-1)


@lowering("view_as_complex.default")
def _view_as_complex(ctx, x):
    return lax.complex(x[..., 0], x[..., 1])


@lowering("complex.default")
def _complex(ctx, real, imag):
    return lax.complex(*jnp.broadcast_arrays(real, imag))  # PyTorch broadcasts the two parts


@lowering("real.default")
def _real(ctx, x):
    return jnp.real(x)


@lowering("imag.default")
def _imag(ctx, x):
    return jnp.imag(x)


@lowering("conj_physical.default", "_conj.default", "conj.default")
def _conj(ctx, x):
    return jnp.conj(x)


# -- more scatters, distances, strided views -------------------------------------------

@lowering("scatter_reduce.two")
def _scatter_reduce(ctx, x, dim, index, src, reduce, *, include_self=True):
    dim %= max(x.ndim, 1)
    src = src[tuple(slice(0, n) for n in index.shape)].astype(x.dtype)
    where = _along(index, dim)
    if reduce in ("sum", "mean"):
        base = x if include_self else x.at[where].set(jnp.zeros((), x.dtype))
        total = base.at[where].add(src)
        if reduce == "sum":
            return total
        counts = jnp.full(x.shape, 1 if include_self else 0, jnp.int64).at[where].add(1)
        mean = total / jnp.maximum(counts, 1).astype(total.dtype)
        # PyTorch divides integers with floor; untouched elements keep their value.
        mean = jnp.floor_divide(total, jnp.maximum(counts, 1)).astype(x.dtype) \
            if jnp.issubdtype(x.dtype, jnp.integer) else mean
        return jnp.where(counts > 0, mean, x)
    updates = {"prod": ("multiply", 1), "amax": ("max", None), "amin": ("min", None)}
    if reduce not in updates:
        raise NotImplementedError(f"scatter_reduce with reduce={reduce!r}")
    method, _ = updates[reduce]
    if include_self:
        return getattr(x.at[where], method)(src)
    # Without the destination's own value: reduce into the identity, then
    # keep x where nothing was scattered.
    identity = {"multiply": 1, "max": -jnp.inf, "min": jnp.inf}[method]
    if jnp.issubdtype(x.dtype, jnp.integer):
        info = jnp.iinfo(x.dtype)
        identity = {"multiply": 1, "max": info.min, "min": info.max}[method]
    reduced = getattr(jnp.full(x.shape, identity, x.dtype).at[where], method)(src)
    touched = jnp.zeros(x.shape, jnp.bool_).at[where].set(True)
    return jnp.where(touched, reduced, x)


@lowering("masked_scatter.default")
def _masked_scatter(ctx, x, mask, source):
    # The k-th True of the (broadcast) mask, in row-major order, takes source's k-th element.
    mask = jnp.broadcast_to(mask, x.shape)
    flat_mask = mask.reshape(-1)
    order = jnp.cumsum(flat_mask.astype(jnp.int64)) - 1
    taken = jnp.take(source.reshape(-1), jnp.clip(order, 0, max(source.size - 1, 0)), mode="clip")
    return jnp.where(flat_mask, taken.astype(x.dtype), x.reshape(-1)).reshape(x.shape)


@lowering("masked_scatter_backward.default")
def _masked_scatter_backward(ctx, grad, mask, sizes):
    # Source element k got the gradient of the k-th True position; the rest of source none.
    flat_mask = jnp.broadcast_to(mask, grad.shape).reshape(-1)
    order = jnp.where(flat_mask, jnp.cumsum(flat_mask.astype(jnp.int64)) - 1, math.prod(sizes))
    out = jnp.zeros((math.prod(sizes),), grad.dtype).at[order].add(grad.reshape(-1), mode="drop")
    return out.reshape(tuple(sizes))


def _p_distance(diff, p):
    a = jnp.abs(diff)
    if p == 0:
        return jnp.sum((a != 0).astype(diff.dtype), axis=-1)
    if p == 1:
        return jnp.sum(a, axis=-1)
    if p == 2:
        return jnp.sqrt(jnp.sum(a * a, axis=-1))
    if math.isinf(p):
        return jnp.max(a, axis=-1)
    return jnp.sum(a ** p, axis=-1) ** (1 / p)


@lowering("_cdist_forward.default")
def _cdist(ctx, x1, x2, p, compute_mode=None):
    # Directly from the differences (PyTorch may use a matmul form for p=2
    # with many rows, differing in the last bits).
    return _p_distance(x1[..., :, None, :] - x2[..., None, :, :], p)


@lowering("_cdist_backward.default")
def _cdist_backward(ctx, grad, x1, x2, p, cdist):
    return _vjp(lambda a: _cdist(ctx, a, x2, p), grad, x1)


@lowering("_pdist_forward.default")
def _pdist(ctx, x, p=2):
    n = x.shape[0]
    rows, cols = np.triu_indices(n, 1)
    return _p_distance(x[rows] - x[cols], p)


def _strided_positions(ctx, x, size, stride, storage_offset):
    """The flat positions an as_strided view of `x` reads; only over a
    contiguous tensor that owns its whole storage, whose storage order is
    then its row-major element order (what kiln holds)."""
    val = ctx.node.args[0].meta.get("val")
    if val is None or not val.is_contiguous() or val.storage_offset() != 0 or \
            val.untyped_storage().nbytes() != val.numel() * val.element_size():
        raise NotImplementedError("as_strided of a view (kiln holds values, not PyTorch's storage)")
    flat = np.full(tuple(size), storage_offset or 0, np.int64)
    for axis, (n, st) in enumerate(zip(size, stride)):
        flat = flat + (np.arange(n) * st).reshape([-1 if a == axis else 1 for a in range(len(size))])
    if flat.size and (flat.min() < 0 or flat.max() >= x.size):
        raise NotImplementedError("as_strided reaching outside the tensor's storage")
    return jnp.asarray(flat)


@lowering("_pdist_backward.default")
def _pdist_backward(ctx, grad, x, p, pdist):
    return _vjp(lambda a: _pdist(ctx, a, p), grad, x)


@lowering("as_strided.default", "as_strided_copy.default")
def _as_strided(ctx, x, size, stride, storage_offset=None):
    return jnp.take(x.reshape(-1), _strided_positions(ctx, x, size, stride, storage_offset))


@lowering("as_strided_scatter.default")
def _as_strided_scatter(ctx, x, src, size, stride, storage_offset=None):
    where = _strided_positions(ctx, x, size, stride, storage_offset)
    return x.reshape(-1).at[where.reshape(-1)].set(src.reshape(-1).astype(x.dtype)).reshape(x.shape)


# -- random numbers ------------------------------------------------------------------------
# kiln draws from JAX's threefry generator keyed by a seed that each call takes
# from PyTorch's default generator: torch.manual_seed makes runs repeat, but the
# numbers are not PyTorch's own (docs/torch.md).

def _no_generator(generator):
    if generator is not None:
        raise NotImplementedError("a random op with an explicit torch.Generator (kiln draws from a seed taken "
                                  "from the default generator)")


def _float_out(ctx):
    dtype = ctx.out_dtype()
    if not jnp.issubdtype(dtype, jnp.floating):
        raise NotImplementedError(f"random floats of dtype {dtype}")
    return dtype


def _uniform(ctx, shape, low=0.0, high=1.0):
    dtype = _float_out(ctx)
    # Drawn in float32 (or float64) and cast; PyTorch's range is [low, high).
    wide = jnp.float64 if dtype == jnp.float64 else jnp.float32
    u = jax.random.uniform(ctx.random_key(), tuple(shape), wide, low, high).astype(dtype)
    if dtype != wide:  # rounding to a narrower float may reach `high`: keep below it
        u = jnp.minimum(u, jnp.nextafter(jnp.asarray(high, dtype), jnp.asarray(low, dtype)))
    return u


@random_lowering("rand.default")
def _rand(ctx, size, *, generator=None, **_):
    _no_generator(generator)
    return _uniform(ctx, size)


@random_lowering("rand_like.default")
def _rand_like(ctx, x, **_):
    return _uniform(ctx, x.shape)


@random_lowering("uniform.default")
def _uniform_functional(ctx, x, low=0.0, high=1.0, *, generator=None):
    _no_generator(generator)
    return _uniform(ctx, x.shape, low, high)


def _normal(ctx, shape, mean=0.0, std=1.0):
    dtype = _float_out(ctx)
    wide = jnp.float64 if dtype == jnp.float64 else jnp.float32
    return (jax.random.normal(ctx.random_key(), tuple(shape), wide) * std + mean).astype(dtype)


@random_lowering("randn.default")
def _randn(ctx, size, *, generator=None, **_):
    _no_generator(generator)
    return _normal(ctx, size)


@random_lowering("randn_like.default")
def _randn_like(ctx, x, **_):
    return _normal(ctx, x.shape)


@random_lowering("normal_functional.default")
def _normal_functional(ctx, x, mean=0.0, std=1.0, *, generator=None):
    _no_generator(generator)
    return _normal(ctx, x.shape, mean, std)


@random_lowering("exponential.default")
def _exponential(ctx, x, lambd=1.0, *, generator=None):
    _no_generator(generator)
    dtype = _float_out(ctx)
    wide = jnp.float64 if dtype == jnp.float64 else jnp.float32
    return (jax.random.exponential(ctx.random_key(), x.shape, wide) / lambd).astype(dtype)


def _randint(ctx, low, high, shape):
    return jax.random.randint(ctx.random_key(), tuple(shape), low, high, jnp.int64).astype(ctx.out_dtype())


@random_lowering("randint.default", "randint.low")
def _randint_op(ctx, *args, generator=None, **_):
    _no_generator(generator)
    low, high, size = (0, *args) if len(args) == 2 else args
    return _randint(ctx, low, high, size)


@random_lowering("randint_like.default", "randint_like.low_dtype")
def _randint_like(ctx, x, *args, **_):
    low, high = (0, args[0]) if len(args) == 1 else args
    return _randint(ctx, low, high, x.shape)


@random_lowering("bernoulli.p", "bernoulli.default")
def _bernoulli(ctx, x, p=None, *, generator=None):
    _no_generator(generator)
    p = x if p is None else p
    u = jax.random.uniform(ctx.random_key(), x.shape, jnp.float64 if x.dtype == jnp.float64 else jnp.float32)
    return (u < p).astype(ctx.out_dtype())


@random_lowering("randperm.default")
def _randperm(ctx, n, *, generator=None, **_):
    _no_generator(generator)
    return jax.random.permutation(ctx.random_key(), n).astype(ctx.out_dtype())


@random_lowering("multinomial.default")
def _multinomial(ctx, probs, num_samples, replacement=False, *, generator=None):
    _no_generator(generator)
    logits = jnp.log(probs.astype(jnp.float64 if probs.dtype == jnp.float64 else jnp.float32))
    if replacement:
        batch = probs.shape[:-1]
        draws = jax.random.categorical(ctx.random_key(), logits, axis=-1, shape=(num_samples,) + batch)
        return jnp.moveaxis(draws, 0, -1).astype(jnp.int64)
    # Without replacement: the k largest of log p + Gumbel noise (a draw in
    # order of the categories' sequential sampling).
    if num_samples > probs.shape[-1]:
        raise NotImplementedError("multinomial without replacement of more samples than categories")
    scores = logits + jax.random.gumbel(ctx.random_key(), logits.shape, logits.dtype)
    return lax.slice_in_dim(_sort_with_indices(scores, -1, True)[1], 0, num_samples, axis=-1)


@random_lowering("native_dropout.default")
def _dropout(ctx, x, p, train):
    if not train or p == 0:
        return x, jnp.ones(x.shape, jnp.bool_)
    # Each element kept with probability 1 - p and scaled by 1 / (1 - p), as in
    # PyTorch (p = 1 drops everything).
    u = jax.random.uniform(ctx.random_key(), x.shape, jnp.float64 if x.dtype == jnp.float64 else jnp.float32)
    keep = u >= p
    scale = 0.0 if p >= 1 else 1.0 / (1.0 - p)
    return jnp.where(keep, x * jnp.asarray(scale, x.dtype), jnp.zeros((), x.dtype)), keep


# -- bilinear upsampling -------------------------------------------------------------------

def _linear_taps(size, out, align_corners, scale_factor):
    """PyTorch's source positions for linear interpolation along one axis: the
    two input indices and their weights for each output index (computed in
    float32, as PyTorch's CPU kernel does for float32)."""
    dst = np.arange(out, dtype=np.float32)
    if align_corners:
        scale = np.float32((size - 1) / (out - 1)) if out > 1 else np.float32(0)
        src = dst * scale
    else:
        scale = np.float32(1 / scale_factor) if scale_factor else np.float32(size / out)
        src = np.maximum((dst + np.float32(0.5)) * scale - np.float32(0.5), np.float32(0))
    low = np.minimum(np.floor(src).astype(np.int64), size - 1)
    high = np.minimum(low + 1, size - 1)
    weight_high = (src - low.astype(np.float32)).astype(np.float32)
    return low, high, np.float32(1) - weight_high, weight_high


@lowering("upsample_bilinear2d.vec", "upsample_bilinear2d.default")
def _upsample_bilinear2d(ctx, x, output_size, align_corners, scale_factors=None, *rest):
    if ctx.node.target is getattr(aten.upsample_bilinear2d, "default", None):  # (x, size, align, scale_h, scale_w)
        scale_factors = [s for s in (scale_factors, *rest)] if scale_factors is not None else None
        if scale_factors and any(s is None for s in scale_factors):
            scale_factors = None
    sizes = x.shape[-2:]
    if output_size is None:
        output_size = [int(math.floor(n * s)) for n, s in zip(sizes, scale_factors)]
    for axis, (size, out) in enumerate(zip(sizes, output_size)):
        low, high, w_low, w_high = _linear_taps(size, out, align_corners, scale_factors[axis] if scale_factors else None)
        at = x.ndim - 2 + axis
        shape = [1] * x.ndim
        shape[at] = out
        x = (jnp.take(x, jnp.asarray(low), axis=at) * jnp.asarray(w_low.reshape(shape), x.dtype)
             + jnp.take(x, jnp.asarray(high), axis=at) * jnp.asarray(w_high.reshape(shape), x.dtype))
    return x


@lowering("upsample_bilinear2d_backward.vec", "upsample_bilinear2d_backward.default")
def _upsample_bilinear2d_backward(ctx, grad, output_size, input_size, align_corners, scale_factors=None, *rest):
    x = jnp.zeros(tuple(input_size), grad.dtype)
    return _vjp(lambda x_: _upsample_bilinear2d(ctx, x_, output_size, align_corners, scale_factors, *rest), grad, x)


# -- embedding bags ------------------------------------------------------------------------

def _bags(indices, offsets, include_last_offset, padding_idx):
    n, bags = indices.shape[0], offsets.shape[0] - (1 if include_last_offset else 0)
    bag = jnp.searchsorted(offsets[:bags], jnp.arange(n), side="right") - 1  # the bag of each index
    keep = indices != padding_idx if padding_idx is not None and padding_idx >= 0 else jnp.ones((n,), jnp.bool_)
    counts = jnp.zeros((bags,), jnp.int64).at[bag].add(keep.astype(jnp.int64))
    return bags, bag, keep, counts


@lowering("_embedding_bag.default", "_embedding_bag_forward_only.default")
def _embedding_bag(ctx, weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                   per_sample_weights=None, include_last_offset=False, padding_idx=-1):
    # mode 0 sum, 1 mean, 2 max, over bags given by 1-D indices and offsets
    # (F.embedding_bag flattens 2-D indices into equal bags before the op).
    if indices.ndim != 1:
        raise NotImplementedError("embedding_bag with 2-D indices")
    bags, bag, keep, counts = _bags(indices, offsets, include_last_offset, padding_idx)
    rows = jnp.take(weight, indices, axis=0)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights[:, None].astype(rows.dtype)
    max_indices = None
    if mode == 2:
        out = jnp.full((bags, weight.shape[1]), -jnp.inf, weight.dtype).at[bag].max(
            jnp.where(keep[:, None], rows, -jnp.inf))
        # The weight row each maximum came from (the first position holding it).
        hits = keep[:, None] & (rows == out[bag])
        first = jnp.full(out.shape, indices.shape[0], jnp.int64).at[bag].min(
            jnp.where(hits, jnp.arange(indices.shape[0])[:, None], indices.shape[0]))
        max_indices = jnp.where(counts[:, None] > 0, jnp.take(indices, jnp.minimum(first, indices.shape[0] - 1)), -1)
        out = jnp.where(counts[:, None] > 0, out, 0)
    else:
        out = jnp.zeros((bags, weight.shape[1]), rows.dtype).at[bag].add(jnp.where(keep[:, None], rows, 0))
        if mode == 1:
            out = out / jnp.maximum(counts, 1)[:, None].astype(out.dtype)
    # The other results feed only PyTorch's backward kernel; kiln's backward
    # (below) recomputes what it needs. Where PyTorch gives them no elements
    # (their shapes depend on the mode), they have none here either.
    extras = []
    for value, val in zip((bag, counts, max_indices), ctx.node.meta["val"][1:]):
        shape = tuple(val.shape)
        extras.append(value.astype(jnp.int64) if value is not None and value.shape == shape
                      else jnp.zeros(shape, jnp.int64))
    return (out.astype(weight.dtype), *extras)


@lowering("_embedding_bag_backward.default", "_embedding_bag_dense_backward.default")
def _embedding_bag_backward(ctx, grad, indices, offsets, offset2bag, bag_size, maximum_indices, num_weights,
                            scale_grad_by_freq, mode, *rest):
    if ctx.node.target is aten._embedding_bag_backward.default:
        sparse, per_sample_weights, padding_idx = (list(rest) + [None, -1])[:3]
    else:
        per_sample_weights, padding_idx = (list(rest) + [-1])[:2]
    if scale_grad_by_freq:
        raise NotImplementedError("embedding_bag's backward with scale_grad_by_freq")
    bags = grad.shape[0]
    out = jnp.zeros((num_weights, grad.shape[1]), grad.dtype)
    if mode == 2:
        target = jnp.where(maximum_indices >= 0, maximum_indices, num_weights)
        return out.at[target, jnp.arange(grad.shape[1])[None, :]].add(grad, mode="drop")
    include_last = offsets.shape[0] == bags + 1
    _, bag, keep, counts = _bags(indices, offsets, include_last, padding_idx)
    rows = grad[bag]
    if mode == 1:
        rows = rows / jnp.maximum(counts, 1)[bag][:, None].astype(rows.dtype)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights[:, None].astype(rows.dtype)
    return out.at[indices].add(jnp.where(keep[:, None], rows, 0))


@lowering("_embedding_bag_per_sample_weights_backward.default")
def _embedding_bag_per_sample_weights_backward(ctx, grad, weight, indices, offsets, offset2bag, mode,
                                               padding_idx=-1):
    _, bag, keep, _ = _bags(indices, offsets, offsets.shape[0] == grad.shape[0] + 1, padding_idx)
    rows = jnp.take(weight, indices, axis=0)
    return jnp.where(keep, jnp.sum(grad[bag] * rows, axis=1), 0).astype(grad.dtype)


# -- grid sampling ---------------------------------------------------------------------------

def _grid_sample(x, grid, interpolation, padding, align_corners):
    if interpolation not in (0, 1) or padding not in (0, 1):
        raise NotImplementedError("grid_sampler_2d beyond bilinear/nearest with zeros/border padding")
    n, c, h, w = x.shape
    flat = x.reshape(n, c, h * w)
    out_shape = grid.shape[1:3]

    def source(coord, size):
        coord = coord.astype(x.dtype)
        pos = (coord + 1) / 2 * (size - 1) if align_corners else ((coord + 1) * size - 1) / 2
        return jnp.clip(pos, 0, size - 1) if padding == 1 else pos

    ix, iy = source(grid[..., 0], w), source(grid[..., 1], h)

    def tap(yy, xx):
        """x at integer positions (n, Ho, Wo), zero outside the input."""
        inside = (xx >= 0) & (xx <= w - 1) & (yy >= 0) & (yy <= h - 1)
        index = (jnp.clip(yy, 0, h - 1) * w + jnp.clip(xx, 0, w - 1)).astype(jnp.int64).reshape(n, 1, -1)
        values = jnp.take_along_axis(flat, jnp.broadcast_to(index, (n, c, index.shape[-1])), axis=2)
        return jnp.where(inside.reshape(n, 1, -1), values, 0).reshape(n, c, *out_shape)

    if interpolation == 1:  # nearest, halves to even as PyTorch's nearbyint
        return tap(jnp.round(iy), jnp.round(ix))
    x0, y0 = jnp.floor(ix), jnp.floor(iy)
    wx, wy = (ix - x0)[:, None], (iy - y0)[:, None]
    return (tap(y0, x0) * (1 - wx) * (1 - wy) + tap(y0, x0 + 1) * wx * (1 - wy)
            + tap(y0 + 1, x0) * (1 - wx) * wy + tap(y0 + 1, x0 + 1) * wx * wy)


@lowering("grid_sampler_2d.default")
def _grid_sampler_2d(ctx, x, grid, interpolation_mode, padding_mode, align_corners):
    return _grid_sample(x, grid, interpolation_mode, padding_mode, align_corners)


@lowering("grid_sampler_2d_backward.default")
def _grid_sampler_2d_backward(ctx, grad, x, grid, interpolation_mode, padding_mode, align_corners, output_mask):
    _, vjp = jax.vjp(lambda x_, g_: _grid_sample(x_, g_, interpolation_mode, padding_mode, align_corners), x, grid)
    dx, dgrid = vjp(grad)
    return (dx if output_mask[0] else None), (dgrid if output_mask[1] else None)
