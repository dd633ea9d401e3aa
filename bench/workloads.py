"""The benchmark workloads: one JAX function per workload (what kiln, XLA and IREE
compile), a hand-written NumPy equivalent, an optional PyTorch equivalent, the
inputs, and the work it does (minimal memory traffic in bytes, or flops) so a
report can turn its time into GB/s or GFLOP/s.

Every workload is built for a mode: full sizes, or `quick` sizes that keep the
CI smoke run short. Names are the same in both modes; `shape` says which sizes ran.
"""
from dataclasses import dataclass, field
from typing import Callable, Optional

import ml_dtypes
import numpy as np

F32 = np.float32
BF16 = ml_dtypes.bfloat16
LR = 0.01      # SGD learning rate of the training steps
EPS = 1e-5     # epsilon of layernorm and rmsnorm


@dataclass
class Workload:
    name: str
    group: str                       # elementwise, normalization, reduction, gemm, gather, linalg, model, overhead, loop, compile
    shape: str                       # human-readable sizes of this mode
    jax_fn: Callable                 # the program every compiler compiles (lowered with JAX)
    numpy_fn: Optional[Callable]     # hand-written NumPy equivalent, None when there is none
    torch_fn: Optional[Callable]     # PyTorch equivalent on torch tensors, None when there is none
    make_inputs: Callable            # numpy.random.Generator -> list of numpy arrays
    bytes: Optional[float] = None    # minimal memory traffic of one call (inputs + outputs)
    flops: Optional[float] = None    # arithmetic of one call (2 per multiply-add)
    tolerance: float = 1e-4          # max |x - ref| allowed, relative to max |ref| (per output)
    measures_compile: bool = False   # a "compile" row: each sample is a fresh trace + compile + first call
    arith_roof: Optional[str] = None  # a roof of its arithmetic (bench/native) also read against: "chain"
    notes: str = ""
    tags: list = field(default_factory=list)


def _normal(rng, shape, scale=1.0, dtype=F32):
    return (rng.standard_normal(shape, dtype=F32) * scale).astype(dtype)


def _nbytes(*shapes_and_dtypes):
    return float(sum(np.prod(s) * np.dtype(d).itemsize for s, d in shapes_and_dtypes))


# ----------------------------------------------------------------------------- elementwise

GELU_C = float(np.sqrt(2.0 / np.pi))


def gelu_jax(x):
    import jax.numpy as jnp
    return 0.5 * x * (1.0 + jnp.tanh(GELU_C * (x + 0.044715 * x * x * x)))


def gelu_numpy(x):
    return 0.5 * x * (1.0 + np.tanh(GELU_C * (x + 0.044715 * x * x * x)))


def gelu_torch(x):
    import torch
    return 0.5 * x * (1.0 + torch.tanh(GELU_C * (x + 0.044715 * x * x * x)))


def gelu_exact_jax(x):
    """The exact gelu, x Phi(x), PyTorch's default: JAX writes it with erfc."""
    import jax
    return jax.nn.gelu(x, approximate=False)


def gelu_exact_torch(x):
    import torch
    return torch.nn.functional.gelu(x)


def chain_jax(x):
    """Ten elementwise ops: multiply add tanh exp subtract abs sqrt maximum negate logistic."""
    import jax
    import jax.numpy as jnp
    y = jnp.tanh(x * x + x)
    y = jnp.sqrt(jnp.abs(jnp.exp(y) - x))
    return jax.nn.sigmoid(-jnp.maximum(y, x))


def chain_numpy(x):
    y = np.tanh(x * x + x)
    y = np.sqrt(np.abs(np.exp(y) - x))
    return 1.0 / (1.0 + np.exp(np.maximum(y, x)))


def chain_torch(x):
    import torch
    y = torch.tanh(x * x + x)
    y = torch.sqrt(torch.abs(torch.exp(y) - x))
    return torch.sigmoid(-torch.maximum(y, x))


# ----------------------------------------------------------------------------- normalizations (last axis)

def softmax_jax(x):
    import jax.numpy as jnp
    e = jnp.exp(x - jnp.max(x, axis=-1, keepdims=True))
    return e / jnp.sum(e, axis=-1, keepdims=True)


def softmax_numpy(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def softmax_bf16_numpy(x):
    # JAX's bf16 softmax step by step: bf16 ops, the sum of the exps in f32.
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e.astype(np.float32), axis=-1, keepdims=True).astype(x.dtype)


def softmax_torch(x):
    import torch
    return torch.softmax(x, dim=-1)


def layernorm_jax(x, g, b):
    import jax.numpy as jnp
    mean = jnp.mean(x, axis=-1, keepdims=True)
    centered = x - mean
    var = jnp.mean(centered * centered, axis=-1, keepdims=True)
    return centered / jnp.sqrt(var + EPS) * g + b


def layernorm_numpy(x, g, b):
    mean = np.mean(x, axis=-1, keepdims=True)
    centered = x - mean
    var = np.mean(centered * centered, axis=-1, keepdims=True)
    return centered / np.sqrt(var + EPS) * g + b


def layernorm_torch(x, g, b):
    import torch
    return torch.nn.functional.layer_norm(x, x.shape[-1:], g, b, EPS)


def rmsnorm_jax(x, g):
    import jax.numpy as jnp
    return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + EPS) * g


def rmsnorm_numpy(x, g):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + EPS) * g


def rmsnorm_torch(x, g):
    import torch
    return x * torch.rsqrt(torch.mean(x * x, dim=-1, keepdim=True) + EPS) * g


# ----------------------------------------------------------------------------- reductions

def _reduction(kind, axis):
    def jax_fn(x):
        import jax.numpy as jnp
        return (jnp.sum if kind == "sum" else jnp.max)(x, axis=axis)

    def numpy_fn(x):
        return (np.sum if kind == "sum" else np.max)(x, axis=axis)

    def torch_fn(x):
        import torch
        return torch.sum(x, dim=axis) if kind == "sum" else torch.amax(x, dim=axis)
    return jax_fn, numpy_fn, torch_fn


# ----------------------------------------------------------------------------- GEMM

def gemm_jax(a, b):
    import jax.numpy as jnp
    return jnp.dot(a, b)


def gemm_numpy(a, b):
    if a.dtype == BF16:  # NumPy has no bf16 GEMM: f32 BLAS, rounded to bf16 once
        return (a.astype(F32) @ b.astype(F32)).astype(BF16)
    return a @ b


def gemm_torch(a, b):
    import torch
    return torch.matmul(a, b)


# ----------------------------------------------------------------------------- MLP 784-1024-1024-10

def mlp_logits_jax(params, x):
    import jax.numpy as jnp
    w1, b1, w2, b2, w3, b3 = params
    h = jnp.maximum(x @ w1 + b1, 0.0)
    h = jnp.maximum(h @ w2 + b2, 0.0)
    return h @ w3 + b3


def mlp_infer_jax(x, w1, b1, w2, b2, w3, b3):
    return mlp_logits_jax((w1, b1, w2, b2, w3, b3), x)


def mlp_infer_numpy(x, w1, b1, w2, b2, w3, b3):
    h = np.maximum(x @ w1 + b1, 0.0)
    h = np.maximum(h @ w2 + b2, 0.0)
    return h @ w3 + b3


def mlp_infer_torch(x, w1, b1, w2, b2, w3, b3):
    import torch
    with torch.no_grad():
        h = torch.relu(x @ w1 + b1)
        h = torch.relu(h @ w2 + b2)
        return h @ w3 + b3


def _cross_entropy_jax(logits, onehot):
    import jax.numpy as jnp
    shifted = logits - jnp.max(logits, axis=-1, keepdims=True)
    logp = shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=-1, keepdims=True))
    return -jnp.mean(jnp.sum(onehot * logp, axis=-1))


def mlp_train_jax(x, onehot, w1, b1, w2, b2, w3, b3):
    """One SGD step on mean softmax cross-entropy; returns the loss and the new parameters."""
    import jax
    params = (w1, b1, w2, b2, w3, b3)
    loss, grads = jax.value_and_grad(lambda p: _cross_entropy_jax(mlp_logits_jax(p, x), onehot))(params)
    return (loss,) + tuple(p - LR * g for p, g in zip(params, grads))


def mlp_train_numpy(x, onehot, w1, b1, w2, b2, w3, b3):
    z1 = x @ w1 + b1
    h1 = np.maximum(z1, 0.0)
    z2 = h1 @ w2 + b2
    h2 = np.maximum(z2, 0.0)
    logits = h2 @ w3 + b3
    shifted = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    total = e.sum(axis=-1, keepdims=True)
    batch = x.shape[0]
    loss = -np.mean(np.sum(onehot * (shifted - np.log(total)), axis=-1))
    dlogits = (e / total - onehot) / batch
    dw3, db3 = h2.T @ dlogits, dlogits.sum(axis=0)
    dz2 = (dlogits @ w3.T) * (z2 > 0)
    dw2, db2 = h1.T @ dz2, dz2.sum(axis=0)
    dz1 = (dz2 @ w2.T) * (z1 > 0)
    dw1, db1 = x.T @ dz1, dz1.sum(axis=0)
    grads = (dw1, db1, dw2, db2, dw3, db3)
    return (np.float32(loss),) + tuple(p - F32(LR) * g for p, g in zip((w1, b1, w2, b2, w3, b3), grads))


def mlp_train_torch(x, onehot, w1, b1, w2, b2, w3, b3):
    import torch
    params = [p.detach().requires_grad_(True) for p in (w1, b1, w2, b2, w3, b3)]
    with torch.enable_grad():
        h = torch.relu(x @ params[0] + params[1])
        h = torch.relu(h @ params[2] + params[3])
        logits = h @ params[4] + params[5]
        loss = -(onehot * torch.log_softmax(logits, dim=-1)).sum(dim=-1).mean()
        grads = torch.autograd.grad(loss, params)
    return (loss.detach(),) + tuple((p - LR * g).detach() for p, g in zip(params, grads))


def _mlp_params(rng, sizes):
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        params += [_normal(rng, (fan_in, fan_out), np.sqrt(2.0 / fan_in)), _normal(rng, (fan_out,), 0.1)]
    return params


# ----------------------------------------------------------------------------- transformer encoder layer
# Post-LN (as in the original Transformer): x1 = LN(x + MHA(x)); y = LN(x1 + FFN(x1)), FFN = relu, 4*d_model,
# no dropout. Parameters: wqkv [d, 3d] bqkv [3d] wo [d, d] bo [d] g1 be1 [d] w1 [d, f] c1 [f] w2 [f, d] c2 [d] g2 be2 [d].

def _transformer_jax(heads, x, wqkv, bqkv, wo, bo, g1, be1, w1, c1, w2, c2, g2, be2):
    import jax.numpy as jnp
    batch, seq, d = x.shape
    dh = d // heads
    qkv = (x @ wqkv + bqkv).reshape(batch, seq, 3, heads, dh)
    q, k, v = (qkv[:, :, i].transpose(0, 2, 1, 3) for i in range(3))       # [b, h, s, dh]
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(dh).astype(F32)
    attn = softmax_jax(scores)
    ctx = jnp.einsum("bhqk,bhkd->bhqd", attn, v).transpose(0, 2, 1, 3).reshape(batch, seq, d)
    x1 = layernorm_jax(x + ctx @ wo + bo, g1, be1)
    ffn = jnp.maximum(x1 @ w1 + c1, 0.0) @ w2 + c2
    return layernorm_jax(x1 + ffn, g2, be2)


def _layernorm_fwd_numpy(x, g, b):
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    inv = 1.0 / np.sqrt((centered * centered).mean(axis=-1, keepdims=True) + EPS)
    xhat = centered * inv
    return xhat * g + b, (xhat, inv, g)


def _layernorm_bwd_numpy(dy, cache):
    xhat, inv, g = cache
    axes = tuple(range(dy.ndim - 1))
    dg, db = (dy * xhat).sum(axis=axes), dy.sum(axis=axes)
    dxhat = dy * g
    dx = inv * (dxhat - dxhat.mean(axis=-1, keepdims=True) - xhat * (dxhat * xhat).mean(axis=-1, keepdims=True))
    return dx, dg, db


def _transformer_numpy(heads, x, wqkv, bqkv, wo, bo, g1, be1, w1, c1, w2, c2, g2, be2, with_cache=False):
    batch, seq, d = x.shape
    dh = d // heads
    qkv = (x @ wqkv + bqkv).reshape(batch, seq, 3, heads, dh)
    q, k, v = (qkv[:, :, i].transpose(0, 2, 1, 3) for i in range(3))
    scale = F32(1.0 / np.sqrt(dh))
    attn = softmax_numpy((q @ k.transpose(0, 1, 3, 2)) * scale)
    ctx = (attn @ v).transpose(0, 2, 1, 3).reshape(batch, seq, d)
    x1, ln1 = _layernorm_fwd_numpy(x + ctx @ wo + bo, g1, be1)
    z = x1 @ w1 + c1
    hidden = np.maximum(z, 0.0)
    y, ln2 = _layernorm_fwd_numpy(x1 + hidden @ w2 + c2, g2, be2)
    if not with_cache:
        return y
    return y, (q, k, v, attn, ctx, x1, ln1, z, hidden, ln2, scale)


def transformer_fwd_numpy_factory(heads):
    return lambda *args: _transformer_numpy(heads, *args)


def transformer_train_numpy_factory(heads):
    def step(x, target, wqkv, bqkv, wo, bo, g1, be1, w1, c1, w2, c2, g2, be2):
        params = (wqkv, bqkv, wo, bo, g1, be1, w1, c1, w2, c2, g2, be2)
        y, (q, k, v, attn, ctx, x1, ln1, z, hidden, ln2, scale) = _transformer_numpy(heads, x, *params, with_cache=True)
        batch, seq, d = x.shape
        diff = y - target
        loss = np.mean(diff * diff)
        dy = (2.0 / diff.size) * diff
        ds2, dg2, dbe2 = _layernorm_bwd_numpy(dy, ln2)
        flat = lambda t: t.reshape(-1, t.shape[-1])
        dw2, dc2 = flat(hidden).T @ flat(ds2), flat(ds2).sum(axis=0)
        dz = (ds2 @ w2.T) * (z > 0)
        dw1, dc1 = flat(x1).T @ flat(dz), flat(dz).sum(axis=0)
        dx1 = ds2 + dz @ w1.T
        ds1, dg1, dbe1 = _layernorm_bwd_numpy(dx1, ln1)
        dwo, dbo = flat(ctx).T @ flat(ds1), flat(ds1).sum(axis=0)
        dctx = (ds1 @ wo.T).reshape(batch, seq, heads, -1).transpose(0, 2, 1, 3)        # [b, h, s, dh]
        dattn = dctx @ v.transpose(0, 1, 3, 2)
        dv = attn.transpose(0, 1, 3, 2) @ dctx
        dscores = attn * (dattn - (dattn * attn).sum(axis=-1, keepdims=True)) * scale
        dq = dscores @ k
        dk = dscores.transpose(0, 1, 3, 2) @ q
        dqkv = np.stack([dq, dk, dv], axis=2).transpose(0, 3, 2, 1, 4).reshape(batch * seq, 3 * d)
        dwqkv, dbqkv = flat(x).T @ dqkv, dqkv.sum(axis=0)
        grads = (dwqkv, dbqkv, dwo, dbo, dg1, dbe1, dw1, dc1, dw2, dc2, dg2, dbe2)
        return (np.float32(loss),) + tuple(p - F32(LR) * g for p, g in zip(params, grads))
    return step


def transformer_fwd_jax_factory(heads):
    return lambda *args: _transformer_jax(heads, *args)


def transformer_train_jax_factory(heads):
    def step(x, target, *params):
        import jax
        import jax.numpy as jnp

        def loss_fn(p):
            diff = _transformer_jax(heads, x, *p) - target
            return jnp.mean(diff * diff)
        loss, grads = jax.value_and_grad(loss_fn)(params)
        return (loss,) + tuple(p - LR * g for p, g in zip(params, grads))
    return step


def _transformer_torch(heads, x, wqkv, bqkv, wo, bo, g1, be1, w1, c1, w2, c2, g2, be2):
    import torch
    batch, seq, d = x.shape
    dh = d // heads
    qkv = (x @ wqkv + bqkv).reshape(batch, seq, 3, heads, dh)
    q, k, v = (qkv[:, :, i].transpose(1, 2) for i in range(3))
    attn = torch.softmax(q @ k.transpose(-1, -2) / float(np.sqrt(dh)), dim=-1)
    ctx = (attn @ v).transpose(1, 2).reshape(batch, seq, d)
    x1 = torch.nn.functional.layer_norm(x + ctx @ wo + bo, (d,), g1, be1, EPS)
    ffn = torch.relu(x1 @ w1 + c1) @ w2 + c2
    return torch.nn.functional.layer_norm(x1 + ffn, (d,), g2, be2, EPS)


def transformer_fwd_torch_factory(heads):
    def fwd(*args):
        import torch
        with torch.no_grad():
            return _transformer_torch(heads, *args)
    return fwd


def transformer_train_torch_factory(heads):
    def step(x, target, *params):
        import torch
        params = [p.detach().requires_grad_(True) for p in params]
        with torch.enable_grad():
            loss = torch.mean((_transformer_torch(heads, x, *params) - target) ** 2)
            grads = torch.autograd.grad(loss, params)
        return (loss.detach(),) + tuple((p - LR * g).detach() for p, g in zip(params, grads))
    return step


def _transformer_params(rng, d, ffn):
    s = 1.0 / np.sqrt(d)
    return [_normal(rng, (d, 3 * d), s), _normal(rng, (3 * d,), 0.02), _normal(rng, (d, d), s), _normal(rng, (d,), 0.02),
            1.0 + _normal(rng, (d,), 0.1), _normal(rng, (d,), 0.1),
            _normal(rng, (d, ffn), s), _normal(rng, (ffn,), 0.02), _normal(rng, (ffn, d), 1.0 / np.sqrt(ffn)),
            _normal(rng, (d,), 0.02), 1.0 + _normal(rng, (d,), 0.1), _normal(rng, (d,), 0.1)]


# ----------------------------------------------------------------------------- conv block: relu(conv3x3(x) + b), NHWC / HWIO, SAME

def conv_block_jax(x, w, b):
    import jax
    y = jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jax.numpy.maximum(y + b, 0.0)


def conv_block_bwd_jax(x, w, b, dy):
    """Gradients (dx, dw, db) of sum(conv_block(x, w, b) * dy): the forward pass plus the backward pass."""
    import jax
    _, vjp = jax.vjp(conv_block_jax, x, w, b)
    return vjp(dy)


def _im2col3x3(x):
    """[n, h, w, c] -> [n*h*w, 9*c] patches of the zero-padded input, ordered (kh, kw, c) like HWIO weights."""
    n, h, wd, c = x.shape
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(1, 2))  # [n, h, w, c, 3, 3]
    return np.ascontiguousarray(windows.transpose(0, 1, 2, 4, 5, 3)).reshape(n * h * wd, 9 * c)


def conv_block_numpy(x, w, b):
    n, h, wd, _ = x.shape
    y = _im2col3x3(x) @ w.reshape(-1, w.shape[-1]) + b
    return np.maximum(y, 0.0).reshape(n, h, wd, -1)


def conv_block_bwd_numpy(x, w, b, dy):
    n, h, wd, c = x.shape
    cols = _im2col3x3(x)
    z = cols @ w.reshape(-1, w.shape[-1]) + b
    dz = dy.reshape(z.shape) * (z > 0)
    dw = (cols.T @ dz).reshape(w.shape)
    flipped = w[::-1, ::-1].transpose(0, 1, 3, 2).reshape(-1, c)          # [9*o, c]
    dx = (_im2col3x3(dz.reshape(n, h, wd, -1)) @ flipped).reshape(x.shape)
    return dx, dw, dz.sum(axis=0)


def conv_block_torch(x, w, b):
    import torch
    with torch.no_grad():
        y = torch.nn.functional.conv2d(x.permute(0, 3, 1, 2), w.permute(3, 2, 0, 1), b, padding=1)
        return torch.relu(y).permute(0, 2, 3, 1)


def conv_block_bwd_torch(x, w, b, dy):
    import torch
    x, w, b = (t.detach().requires_grad_(True) for t in (x, w, b))
    with torch.enable_grad():
        y = torch.nn.functional.conv2d(x.permute(0, 3, 1, 2), w.permute(3, 2, 0, 1), b, padding=1)
        y = torch.relu(y).permute(0, 2, 3, 1)
        return torch.autograd.grad(y, (x, w, b), dy)


def conv_transpose_jax(x, w):
    """A decoder's upsampling: stride-2 transposed 3x3 convolution, 'SAME' (the input gradient's shape of work)."""
    import jax
    return jax.lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def conv_transpose_numpy(x, w):
    # Input pixel i reaches output 2i + 2 - k through kernel tap k (JAX pads the 2x-dilated input by (2, 1)).
    n, h, wd, _ = x.shape
    out = np.zeros((n, 2 * h + 2, 2 * wd + 2, w.shape[-1]), x.dtype)
    for kh in range(3):
        for kw in range(3):
            out[:, 2 - kh:2 - kh + 2 * h:2, 2 - kw:2 - kw + 2 * wd:2] += x @ w[kh, kw]
    return out[:, :2 * h, :2 * wd]


# ----------------------------------------------------------------------------- linear algebra

def cholesky_jax(a):
    import jax.numpy as jnp
    return jnp.linalg.cholesky(a)


def cholesky_numpy(a):
    return np.linalg.cholesky(a)


def triangular_solve_jax(l, b):
    import jax.scipy.linalg
    return jax.scipy.linalg.solve_triangular(l, b, lower=True)


def triangular_solve_numpy(l, b):
    import scipy.linalg
    return scipy.linalg.solve_triangular(l, b, lower=True)


def solve_jax(a, b):
    import jax.numpy as jnp
    return jnp.linalg.solve(a, b)


def solve_numpy(a, b):
    return np.linalg.solve(a, b)


def _spd(rng, n):
    a = _normal(rng, (n, n))
    return (a @ a.T / n + np.eye(n, dtype=F32)).astype(F32)


# ----------------------------------------------------------------------------- embeddings

def embedding_jax(table, ids):
    return table[ids]


def embedding_numpy(table, ids):
    return table[ids]


def embedding_grad_jax(table, ids):
    """The table's gradient of sum(table[ids]^2): a scatter-add of the looked-up rows into zeros."""
    import jax
    import jax.numpy as jnp
    return jax.grad(lambda t: jnp.sum(t[ids] ** 2))(table)


def embedding_grad_numpy(table, ids):
    grad = np.zeros_like(table)
    np.add.at(grad, ids, 2.0 * table[ids])
    return grad


# ----------------------------------------------------------------------------- scans, segments, int8, random bits

def cumsum_jax(x):
    import jax.numpy as jnp
    return jnp.cumsum(x, axis=-1)


def cumsum_numpy(x):
    return np.cumsum(x, axis=-1)


def segment_sum_jax_factory(num_segments):
    def segment_sum_jax(x, segments):
        import jax
        return jax.ops.segment_sum(x, segments, num_segments=num_segments)
    return segment_sum_jax


def segment_sum_numpy_factory(num_segments):
    def segment_sum_numpy(x, segments):
        out = np.zeros((num_segments,) + x.shape[1:], dtype=x.dtype)
        np.add.at(out, segments, x)
        return out
    return segment_sum_numpy


def searchsorted_jax(a, v):
    import jax.numpy as jnp
    return jnp.searchsorted(a, v)


def searchsorted_numpy(a, v):
    return np.searchsorted(a, v).astype(np.int32)


def int8_matmul_jax(a, b):
    import jax.numpy as jnp
    return jnp.matmul(a, b, preferred_element_type=jnp.int32)


def int8_matmul_numpy(a, b):
    return a.astype(np.int32) @ b.astype(np.int32)


def random_uniform_jax_factory(n):
    def random_uniform_jax(key_data):
        import jax
        return jax.random.uniform(jax.random.wrap_key_data(key_data), (n,))
    return random_uniform_jax



# ----------------------------------------------------------------------------- small programs, loops, losses (issue 25)

def layer_stack_jax(x, w, b):
    """Batch-1 inference through a deep stack of small tanh layers (w[L, d, d], b[L, d]), each result awaited."""
    import jax.numpy as jnp
    for i in range(w.shape[0]):
        x = jnp.tanh(x @ w[i] + b[i])
    return x


def layer_stack_numpy(x, w, b):
    for i in range(w.shape[0]):
        x = np.tanh(x @ w[i] + b[i])
    return x


def rnn_scan_jax(xs, h0, wx, wh, b):
    """A tanh recurrent cell under lax.scan: h = tanh(x_t wx + h wh + b); returns the last state."""
    import jax
    import jax.numpy as jnp

    def cell(h, x):
        h = jnp.tanh(x @ wx + h @ wh + b)
        return h, None
    h, _ = jax.lax.scan(cell, h0, xs)
    return h


def rnn_scan_numpy(xs, h0, wx, wh, b):
    h = h0
    for x in xs:
        h = np.tanh(x @ wx + h @ wh + b)
    return h


def vocab_loss_grad_jax(logits, labels):
    """Mean cross-entropy over a large vocabulary (logsumexp, take_along_axis) and its gradient."""
    import jax
    import jax.numpy as jnp

    def loss(z):
        picked = jnp.take_along_axis(z, labels[:, None], axis=-1)[:, 0]
        return jnp.mean(jax.nn.logsumexp(z, axis=-1) - picked)
    return jax.value_and_grad(loss)(logits)


def vocab_loss_grad_numpy(logits, labels):
    z = logits.astype(np.float64)
    m = z.max(axis=-1, keepdims=True)
    e = np.exp(z - m)
    s = e.sum(axis=-1, keepdims=True)
    rows = np.arange(z.shape[0])
    loss = np.mean(np.log(s[:, 0]) + m[:, 0] - z[rows, labels])
    grad = e / s
    grad[rows, labels] -= 1.0
    return np.float32(loss), (grad / z.shape[0]).astype(F32)


def batched_cholesky_jax(a):
    import jax.numpy as jnp
    return jnp.linalg.cholesky(a)


def batched_solve_jax(a, b):
    import jax.numpy as jnp
    return jnp.linalg.solve(a, b)


def _spd_batch(rng, batch, n):
    a = _normal(rng, (batch, n, n))
    return (a @ a.transpose(0, 2, 1) / n + np.eye(n, dtype=F32)).astype(F32)


# ----------------------------------------------------------------------------- the list

def all_workloads(quick=False):
    """Every workload of this mode, in report order."""
    q = quick
    wl = []

    n = 1 << (18 if q else 22)
    wl.append(Workload("gelu_tanh", "elementwise", f"f32[{n}]", gelu_jax, gelu_numpy, gelu_torch,
                       lambda rng, n=n: [_normal(rng, (n,))], bytes=_nbytes(((n,), F32)) * 2))
    # NumPy has no erf: xla's result is the reference.
    wl.append(Workload("gelu_exact", "elementwise", f"f32[{n}]", gelu_exact_jax, None, gelu_exact_torch,
                       lambda rng, n=n: [_normal(rng, (n,))], bytes=_nbytes(((n,), F32)) * 2))
    n = 1 << (20 if q else 24)
    wl.append(Workload("elementwise_chain10", "elementwise", f"f32[{n}]", chain_jax, chain_numpy, chain_torch,
                       lambda rng, n=n: [_normal(rng, (n,))], bytes=_nbytes(((n,), F32)) * 2, arith_roof="chain"))
    if not q:
        # Cache-resident twins of the chain and of softmax: their input and
        # output stay in L2 between calls, so their GB/s is the arithmetic's
        # own speed. Close to the DRAM-sized rate, it says that workload is
        # bound by its arithmetic on this core, not by memory.
        n = 1 << 16
        wl.append(Workload("elementwise_chain10_in_l2", "elementwise", f"f32[{n}]", chain_jax, chain_numpy,
                           chain_torch, lambda rng, n=n: [_normal(rng, (n,))], bytes=_nbytes(((n,), F32)) * 2,
                           arith_roof="chain", notes="elementwise_chain10 on 256 KB: the arithmetic's speed without DRAM"))
        shape = (64, 4096)
        wl.append(Workload("softmax_64x4096_in_l2", "normalization", f"f32{list(shape)}", softmax_jax, softmax_numpy,
                           softmax_torch, lambda rng, s=shape: [_normal(rng, s)], bytes=2 * _nbytes((shape, F32)),
                           notes="softmax_1024x4096's rows on 1 MB: the arithmetic's speed without DRAM"))

    for shape in ([(64, 256), (4, 32, 128)] if q else [(1024, 4096), (8, 1024, 1024)]):
        tag = "x".join(map(str, shape))
        d = shape[-1]
        xb = _nbytes((shape, F32))
        wl.append(Workload(f"softmax_{tag}", "normalization", f"f32{list(shape)}", softmax_jax, softmax_numpy,
                           softmax_torch, lambda rng, s=shape: [_normal(rng, s)], bytes=2 * xb))
        if len(shape) == 2:
            import ml_dtypes
            bf16 = ml_dtypes.bfloat16
            wl.append(Workload(f"softmax_bf16_{tag}", "normalization", f"bf16{list(shape)}", softmax_jax,
                               softmax_bf16_numpy, softmax_torch, lambda rng, s=shape: [_normal(rng, s, dtype=bf16)],
                               bytes=xb, tolerance=2e-2, notes="sums in f32 (JAX's bf16 softmax)"))
        wl.append(Workload(f"layernorm_{tag}", "normalization", f"f32{list(shape)}", layernorm_jax, layernorm_numpy,
                           layernorm_torch,
                           lambda rng, s=shape, d=d: [_normal(rng, s), 1.0 + _normal(rng, (d,), 0.1), _normal(rng, (d,), 0.1)],
                           bytes=2 * xb + 2 * d * 4))
        wl.append(Workload(f"rmsnorm_{tag}", "normalization", f"f32{list(shape)}", rmsnorm_jax, rmsnorm_numpy,
                           rmsnorm_torch, lambda rng, s=shape, d=d: [_normal(rng, s), 1.0 + _normal(rng, (d,), 0.1)],
                           bytes=2 * xb + d * 4))

    rows, cols = (512, 512) if q else (4096, 4096)
    for kind in ("sum", "max"):
        for axis, label in ((1, "rows"), (0, "cols")):
            jf, nf, tf = _reduction(kind, axis)
            out = rows if axis == 1 else cols
            wl.append(Workload(f"reduce_{kind}_{label}", "reduction", f"f32[{rows},{cols}] axis={axis}", jf, nf, tf,
                               lambda rng, r=rows, c=cols: [rng.random((r, c), dtype=F32)],
                               bytes=_nbytes(((rows, cols), F32), ((out,), F32)),
                               notes=f"{'row' if axis == 1 else 'column'} {kind}s (reduces axis {axis})"))

    for size in ((64, 256) if q else (256, 1024, 2048)):
        for dtype, dname, tol in ((F32, "f32", 1e-4), (BF16, "bf16", 2e-2)):
            wl.append(Workload(f"gemm_{dname}_{size}", "gemm", f"{dname}[{size},{size}] x {dname}[{size},{size}]",
                               gemm_jax, gemm_numpy, gemm_torch,
                               lambda rng, s=size, t=dtype: [_normal(rng, (s, s), dtype=t), _normal(rng, (s, s), dtype=t)],
                               flops=2.0 * size ** 3, tolerance=tol,
                               notes="numpy: f32 BLAS rounded to bf16" if dtype is BF16 else ""))

    vocab, d, ids_shape = (1000, 64, (4, 32)) if q else (50000, 512, (8, 512))
    tokens = int(np.prod(ids_shape))
    emb_shape = f"f32[{vocab},{d}] rows at i32{list(ids_shape)}"

    def emb_inputs(rng, vocab=vocab, d=d, ids_shape=ids_shape):
        return [_normal(rng, (vocab, d)), rng.integers(0, vocab, ids_shape).astype(np.int32)]
    wl.append(Workload("embedding_lookup", "gather", emb_shape, embedding_jax, embedding_numpy, None, emb_inputs,
                       bytes=2.0 * tokens * d * 4 + tokens * 4, notes="gather of table rows"))
    wl.append(Workload("embedding_grad", "gather", emb_shape, embedding_grad_jax, embedding_grad_numpy, None,
                       emb_inputs, bytes=tokens * d * 4 + tokens * 4 + vocab * d * 4,
                       notes="scatter-add of rows into zeros"))

    rows, cols = (64, 256) if q else (1024, 4096)
    wl.append(Workload("cumsum", "scan", f"f32[{rows},{cols}] axis=-1", cumsum_jax, cumsum_numpy, None,
                       lambda rng, s=(rows, cols): [_normal(rng, s)], bytes=2.0 * rows * cols * 4,
                       notes="a reduce_window as long as the axis: one running sum per row"))
    seg_rows, seg_d, segs = (1024, 16, 64) if q else (65536, 64, 1024)
    wl.append(Workload("segment_sum", "scatter", f"f32[{seg_rows},{seg_d}] into {segs} segments",
                       segment_sum_jax_factory(segs), segment_sum_numpy_factory(segs), None,
                       lambda rng: [_normal(rng, (seg_rows, seg_d)),
                                    np.sort(rng.integers(0, segs, seg_rows)).astype(np.int32)],
                       bytes=2.0 * seg_rows * seg_d * 4, notes="scatter-add of rows"))
    ns = 1 << (10 if q else 16)
    wl.append(Workload("searchsorted", "gather", f"f32[{ns}] queries in f32[{ns}]", searchsorted_jax,
                       searchsorted_numpy, None,
                       lambda rng, ns=ns: [np.sort(_normal(rng, (ns,))), _normal(rng, (ns,))],
                       notes="a while loop of single-element gathers (binary search)"))
    ni = 128 if q else 512
    wl.append(Workload("int8_matmul", "gemm", f"i8[{ni},{ni}] x i8[{ni},{ni}] -> i32", int8_matmul_jax,
                       int8_matmul_numpy, None,
                       lambda rng, ni=ni: [rng.integers(-128, 128, (ni, ni)).astype(np.int8),
                                           rng.integers(-128, 128, (ni, ni)).astype(np.int8)],
                       tolerance=0.0, notes="quantized inference's matmul (exact)"))
    nr = 1 << (12 if q else 24)
    wl.append(Workload("random_uniform", "random", f"f32[{nr}] from a threefry key",
                       random_uniform_jax_factory(nr), None, None,
                       lambda rng: [np.array([0, 42], dtype=np.uint32)], bytes=4.0 * nr,
                       notes="jax.random.uniform: threefry rounds in a while loop"))

    n = 128 if q else 1024
    wl.append(Workload("cholesky", "linalg", f"f32[{n},{n}]", cholesky_jax, cholesky_numpy, None,
                       lambda rng, n=n: [_spd(rng, n)], flops=n ** 3 / 3, tolerance=1e-3,
                       notes="jnp.linalg.cholesky: a LAPACK potrf call in XLA"))
    wl.append(Workload("triangular_solve", "linalg", f"f32[{n},{n}] \\ f32[{n},{n}]", triangular_solve_jax,
                       triangular_solve_numpy, None,
                       lambda rng, n=n: [np.linalg.cholesky(_spd(rng, n)).astype(F32), _normal(rng, (n, n))],
                       flops=float(n) ** 3, tolerance=1e-3, notes="solve_triangular: a LAPACK trsm call in XLA"))
    wl.append(Workload("solve", "linalg", f"f32[{n},{n}] \\ f32[{n},{n}]", solve_jax, solve_numpy, None,
                       lambda rng, n=n: [_spd(rng, n) + _normal(rng, (n, n), 0.1), _normal(rng, (n, n))],
                       flops=2 * n ** 3 / 3 + 2.0 * n ** 3, tolerance=1e-3,
                       notes="jnp.linalg.solve: LU (getrf), pivots, two trsm"))

    batch, sizes = (32, (784, 256, 256, 10)) if q else (256, (784, 1024, 1024, 10))
    mlp_flops = 2.0 * batch * sum(a * b for a, b in zip(sizes[:-1], sizes[1:]))
    arch = "-".join(map(str, sizes))

    def mlp_inputs(rng, batch=batch, sizes=sizes, train=False):
        x = _normal(rng, (batch, sizes[0]))
        onehot = np.eye(sizes[-1], dtype=F32)[rng.integers(0, sizes[-1], batch)]
        return [x] + ([onehot] if train else []) + _mlp_params(rng, sizes)
    wl.append(Workload("mlp_infer", "model", f"{arch} batch {batch}", mlp_infer_jax, mlp_infer_numpy, mlp_infer_torch,
                       mlp_inputs, flops=mlp_flops))
    mlp_train = Workload("mlp_train_step", "model", f"{arch} batch {batch} SGD", mlp_train_jax, mlp_train_numpy,
                         mlp_train_torch, lambda rng: mlp_inputs(rng, train=True), flops=3 * mlp_flops, tolerance=1e-3)
    wl.append(mlp_train)

    batch, seq, d, heads = (2, 32, 128, 4) if q else (8, 128, 512, 8)
    ffn = 4 * d
    tokens = batch * seq
    fwd_flops = tokens * (2.0 * d * 3 * d + 2.0 * d * d + 2 * 2.0 * d * ffn) + 2 * 2.0 * batch * seq * seq * d
    shape = f"d_model {d}, {heads} heads, seq {seq}, batch {batch}, ffn {ffn}"

    def tr_inputs(rng, train, batch=batch, seq=seq, d=d, ffn=ffn):
        x = _normal(rng, (batch, seq, d))
        return [x] + ([_normal(rng, (batch, seq, d))] if train else []) + _transformer_params(rng, d, ffn)
    tr_fwd = Workload("transformer_fwd", "model", shape, transformer_fwd_jax_factory(heads),
                      transformer_fwd_numpy_factory(heads), transformer_fwd_torch_factory(heads),
                      lambda rng: tr_inputs(rng, False), flops=fwd_flops, tolerance=1e-3)
    tr_train = Workload("transformer_train_step", "model", shape + ", SGD on MSE", transformer_train_jax_factory(heads),
                        transformer_train_numpy_factory(heads), transformer_train_torch_factory(heads),
                        lambda rng: tr_inputs(rng, True), flops=3 * fwd_flops, tolerance=1e-3)
    wl += [tr_fwd, tr_train]

    batch, hw, ch = (2, 16, 16) if q else (8, 56, 64)
    conv_flops = 2.0 * batch * hw * hw * ch * ch * 9
    shape = f"x f32[{batch},{hw},{hw},{ch}] NHWC, w 3x3x{ch}x{ch}"

    def conv_inputs(rng, bwd, batch=batch, hw=hw, ch=ch):
        xs = [_normal(rng, (batch, hw, hw, ch)), _normal(rng, (3, 3, ch, ch), np.sqrt(2.0 / (9 * ch))), _normal(rng, (ch,), 0.1)]
        if not bwd:
            return xs
        # Where a pre-activation is within rounding of 0, two correct systems may take different sides
        # of the relu, and the one element's cotangent then moves dx, dw and db by up to a few percent.
        # A zero cotangent there makes the comparison exact-math safe without changing the work.
        x, w, b = (t.astype(np.float64) for t in xs)
        z = _im2col3x3(x) @ w.reshape(-1, ch) + b
        dy = _normal(rng, (batch, hw, hw, ch))
        dy[(np.abs(z) < 1e-4 * np.abs(z).max()).reshape(dy.shape)] = 0.0
        return xs + [dy]
    wl.append(Workload("conv_block_fwd", "model", shape, conv_block_jax, conv_block_numpy, conv_block_torch,
                       lambda rng: conv_inputs(rng, False), flops=conv_flops, tolerance=1e-3))
    wl.append(Workload("conv_block_bwd", "model", shape + " (recomputes forward)", conv_block_bwd_jax,
                       conv_block_bwd_numpy, conv_block_bwd_torch, lambda rng: conv_inputs(rng, True),
                       flops=3 * conv_flops, tolerance=1e-3, notes="forward + dx + dw + db"))
    hw_in = hw // 2
    wl.append(Workload("conv_transpose", "model", f"x f32[{batch},{hw_in},{hw_in},{ch}] NHWC, w 3x3x{ch}x{ch}, stride 2",
                       conv_transpose_jax, conv_transpose_numpy, None,
                       lambda rng: [_normal(rng, (batch, hw_in, hw_in, ch)),
                                    _normal(rng, (3, 3, ch, ch), np.sqrt(2.0 / (9 * ch)))],
                       flops=2.0 * batch * hw_in * hw_in * ch * ch * 9, tolerance=1e-3,
                       notes="lhs-dilated convolution (a deconvolution)"))

    tiny = (32, 32, 32, 10)
    wl.append(Workload("tiny_mlp_batch1", "overhead", "32-32-32-10 batch 1", mlp_infer_jax, mlp_infer_numpy,
                       mlp_infer_torch, lambda rng: [_normal(rng, (1, 32))] + _mlp_params(rng, tiny),
                       notes="fixed per-call overhead"))

    def ten_ops_jax(x):
        y = x * 2.0 + 1.0
        y = y - x * 0.5
        y = y * y + 3.0
        y = y / (x * x + 1.0)
        return y - 0.25
    wl.append(Workload("tiny_ten_ops_f32x8", "overhead", "f32[8], ten elementwise ops", ten_ops_jax, ten_ops_jax,
                       ten_ops_jax, lambda rng: [_normal(rng, (8,))],
                       notes="fixed per-call overhead of a tiny function (the PJRT plugin's goal: within 1.2x of XLA)"))

    # Small programs, loops, a large-vocabulary loss and batched small linear algebra (issue 25), several sizes each.
    for depth, width in ((4, 8), (16, 64), (16, 256)) if not q else ((4, 16),):
        wl.append(Workload(f"layer_stack_batch1_{depth}x{width}", "overhead", f"{depth} tanh layers of {width}, batch 1",
                           layer_stack_jax, layer_stack_numpy, None,
                           lambda rng, d=depth, n=width: [_normal(rng, (1, n)), _normal(rng, (d, n, n), np.sqrt(1.0 / n)),
                                                          _normal(rng, (d, n), 0.1)],
                           flops=2.0 * depth * width * width, notes="a deep stack of small layers at batch 1"))
    for steps, batch, hidden in ((64, 1, 32), (64, 8, 128), (32, 32, 512)) if not q else ((8, 2, 16),):
        wl.append(Workload(f"rnn_scan_{steps}x{batch}x{hidden}", "loop",
                           f"lax.scan of a tanh cell, {steps} steps, batch {batch}, hidden {hidden}",
                           rnn_scan_jax, rnn_scan_numpy, None,
                           lambda rng, t=steps, n=batch, h=hidden: [
                               _normal(rng, (t, n, h)), _normal(rng, (n, h)), _normal(rng, (h, h), np.sqrt(1.0 / h)),
                               _normal(rng, (h, h), np.sqrt(1.0 / h)), _normal(rng, (h,), 0.1)],
                           flops=4.0 * steps * batch * hidden * hidden, tolerance=1e-3,
                           notes="a recurrent cell under lax.scan"))
    for rows, vocab in ((32, 32000), (256, 50257)) if not q else ((8, 1000),):
        wl.append(Workload(f"vocab_loss_grad_{rows}x{vocab}", "gather", f"f32[{rows},{vocab}] logits, i32[{rows}] labels",
                           vocab_loss_grad_jax, vocab_loss_grad_numpy, None,
                           lambda rng, r=rows, v=vocab: [_normal(rng, (r, v)),
                                                         rng.integers(0, v, r).astype(np.int32)],
                           bytes=8.0 * rows * vocab, tolerance=1e-3,
                           notes="cross-entropy with logsumexp and take_along_axis, and its gradient"))
    for batch, n in ((4096, 4), (256, 16), (32, 64)) if not q else ((16, 8),):
        wl.append(Workload(f"batched_cholesky_{batch}x{n}", "linalg", f"f32[{batch},{n},{n}]", batched_cholesky_jax,
                           cholesky_numpy, None, lambda rng, k=batch, m=n: [_spd_batch(rng, k, m)],
                           flops=batch * n ** 3 / 3, tolerance=1e-3, notes="many small Cholesky factorizations"))
        wl.append(Workload(f"batched_solve_{batch}x{n}", "linalg", f"f32[{batch},{n},{n}] \\ f32[{batch},{n},1]",
                           batched_solve_jax, solve_numpy, None,
                           lambda rng, k=batch, m=n: [_spd_batch(rng, k, m) + _normal(rng, (k, m, m), 0.1),
                                                      _normal(rng, (k, m, 1))],
                           flops=batch * (2 * n ** 3 / 3 + 2.0 * n ** 2), tolerance=1e-3,
                           notes="many small LU solves"))

    for base in (tr_fwd, tr_train, mlp_train):
        wl.append(Workload(f"compile_{base.name}", "compile", base.shape, base.jax_fn, None, base.torch_fn,
                           base.make_inputs,
                           tolerance=base.tolerance, measures_compile=True,
                           notes="trace + lower + compile + first call of a fresh function"))
    return wl
