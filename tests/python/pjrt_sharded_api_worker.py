"""Runs JAX API cases beyond single-device jax.jit through the plugin and on
XLA:CPU in one process, and prints one JSON line per case: shard_map with
every collective, pmap, sharding constraints, donation, jax.Array methods,
jax.export round trips, remat, vmap of control flow, PRNG implementations,
loops over pytrees and many ops over complex, unsigned and bool dtypes.

Each case is a function of a list of devices (four kiln devices, or four
XLA:CPU devices) returning a pytree of arrays; the two pytrees must agree,
bitwise for integers and bools, within tolerance for floats. A case that
returns jax.Arrays must also have put them on the devices it was given.
Run by tests/python/test_pjrt_sharded_api.py (JAX_PLATFORMS=kiln,cpu,
KILN_NUM_DEVICES=4, --xla_force_host_platform_device_count=4).
"""
import json
import sys
import traceback
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
import jax.export
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

KILN = jax.devices("kiln")
CPU = jax.devices("cpu")
r = np.random.default_rng(0)
A = r.standard_normal((8, 6)).astype(np.float32)
B = r.standard_normal((6, 4)).astype(np.float32)
V = r.standard_normal(16).astype(np.float32)
I = r.integers(-50, 50, (8, 4)).astype(np.int32)
U = r.integers(0, 250, (8, 4)).astype(np.uint8)
Z = (r.standard_normal((4, 4)) + 1j * r.standard_normal((4, 4))).astype(np.complex64)

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def mesh_of(devices, shape=(4,), names=("d",)):
    return jax.sharding.Mesh(np.array(devices[:int(np.prod(shape))]).reshape(shape), names,
                             axis_types=(AxisType.Auto,) * len(names))


def smap(devices, fn, in_specs, out_specs, shape=(4,), names=("d",), **kw):
    mesh = mesh_of(devices, shape, names)
    return jax.jit(jax.shard_map(fn, mesh=mesh, in_specs=in_specs, out_specs=out_specs, **kw))


# --- shard_map: every collective ---------------------------------------------

@case
def smap_psum(ds):
    return smap(ds, lambda x: lax.psum(x.sum(0), "d"), P("d"), P())(A)


@case
def smap_pmean_pmax_pmin(ds):
    return smap(ds, lambda x: (lax.pmean(x, "d"), lax.pmax(x, "d"), lax.pmin(x, "d")), P("d"), P())(A)


@case
def smap_psum_int(ds):
    return smap(ds, lambda x: lax.psum(x, "d"), P("d"), P())(I)


@case
def smap_all_gather(ds):
    return smap(ds, lambda x: lax.all_gather(x, "d"), P("d"), P(), check_vma=False)(A)


@case
def smap_all_gather_tiled_axis1(ds):
    return smap(ds, lambda x: lax.all_gather(x, "d", axis=1, tiled=True), P(None, "d"), P(), check_vma=False)(I)


@case
def smap_ppermute_ring(ds):
    perm = [(i, (i + 1) % 4) for i in range(4)]
    return smap(ds, lambda x: lax.ppermute(x, "d", perm), P("d"), P("d"))(A)


@case
def smap_ppermute_partial(ds):  # devices not named as a destination get zeros
    return smap(ds, lambda x: lax.ppermute(x, "d", [(0, 2), (1, 0)]), P("d"), P("d"))(A)


@case
def smap_all_to_all(ds):
    return smap(ds, lambda x: lax.all_to_all(x, "d", 1, 0, tiled=True), P("d"), P("d"))(
        np.arange(8 * 16, dtype=np.float32).reshape(8, 16))


@case
def smap_psum_scatter(ds):
    return smap(ds, lambda x: lax.psum_scatter(x, "d", scatter_dimension=0, tiled=True), P(None), P("d"),
                check_vma=False)(A)


@case
def smap_axis_index(ds):
    return smap(ds, lambda x: x * lax.axis_index("d").astype(x.dtype) + lax.axis_size("d"), P("d"), P("d"))(A)


@case
def smap_2d_mesh_psum_one_axis(ds):
    return smap(ds, lambda x: lax.psum(x, "x"), P("x", "y"), P(None, "y"), shape=(2, 2), names=("x", "y"))(A)


@case
def smap_2d_mesh_psum_both_axes(ds):
    return smap(ds, lambda x: lax.psum(x, ("x", "y")), P("x", "y"), P(), shape=(2, 2), names=("x", "y"))(A)


@case
def smap_2d_ppermute_and_gather(ds):
    def body(x):
        y = lax.ppermute(x, "y", [(0, 1), (1, 0)])
        return lax.all_gather(y, "x", tiled=True)
    return smap(ds, body, P("x", "y"), P(None, "y"), shape=(2, 2), names=("x", "y"), check_vma=False)(A)


@case
def smap_matmul_reduce_scatter(ds):
    def body(a, b):
        return lax.psum_scatter(a @ b, "d", scatter_dimension=0, tiled=True)
    return smap(ds, body, (P(None, "d"), P("d")), P("d"), check_vma=False)(np.tile(A, (1, 2)), np.tile(B, (2, 1)))


@case
def smap_grad(ds):
    f = smap(ds, lambda w, x: lax.psum(jnp.sum(jnp.tanh(x @ w) ** 2), "d"), (P(), P("d")), P())
    return jax.jit(jax.grad(f))(B, A[:, :6])


@case
def smap_scan_inside(ds):
    def body(x):
        c, ys = lax.scan(lambda c, e: (c + lax.psum(e, "d"), c), jnp.zeros(x.shape[1:], x.dtype), x)
        return c[None], ys
    return smap(ds, body, P("d"), (P("d"), P("d")))(A)


@case
def smap_replicated_input_out_unreduced(ds):
    return smap(ds, lambda x, y: x * y, (P("d"), P()), P("d"))(A, V[:6])


COLLECTIVE_DTYPES = [jnp.bfloat16, jnp.float16, jnp.int8, jnp.uint8, jnp.int16, jnp.uint32, jnp.complex64]


def collectives_of(dtype):
    perm = [(i, (i + 1) % 4) for i in range(4)]
    def body(x):
        outs = [lax.psum(x, "d"), lax.all_gather(x, "d", tiled=True), lax.ppermute(x, "d", perm),
                lax.all_to_all(x, "d", 1, 1, tiled=True), lax.psum_scatter(x, "d", scatter_dimension=1, tiled=True)]
        if not jnp.issubdtype(dtype, jnp.complexfloating):
            outs += [lax.pmax(x, "d"), lax.pmin(x, "d")]
        return outs
    return body


@case
def smap_collectives_narrow_and_complex_dtypes(ds):
    outs = []
    for dtype in COLLECTIVE_DTYPES:
        x = (np.arange(8 * 8).reshape(8, 8) % 13 - 4)
        x = (x + 1j * x[::-1]) if dtype == jnp.complex64 else x
        x = np.asarray(jnp.asarray(x).astype(dtype))
        body = collectives_of(dtype)
        n = 5 if dtype == jnp.complex64 else 7
        f = smap(ds, body, P("d"), [P(None), P(None), P("d"), P("d"), P(None, "d"), P(None), P(None)][:n],
                 check_vma=False)
        outs += [np.asarray(o).astype(np.complex64 if dtype == jnp.complex64 else np.float64) for o in f(x)]
    return outs


@case
def pmap_collectives_narrow_and_complex_dtypes(ds):
    outs = []
    for dtype in COLLECTIVE_DTYPES:
        x = np.asarray(jnp.asarray((np.arange(4 * 6).reshape(4, 6) % 7 - 2) * (1 + 1j if dtype == jnp.complex64 else 1)).astype(dtype))
        f = jax.pmap(lambda v: (lax.psum(v, "i"), lax.all_gather(v, "i"), lax.ppermute(v, "i", [(0, 3), (3, 0), (1, 2), (2, 1)])),
                     axis_name="i", devices=ds)
        outs += [np.asarray(o).astype(np.complex64 if dtype == jnp.complex64 else np.float64) for o in f(x)]
    return outs


@case
def smap_pipeline_scan_ppermute_grad(ds):  # a ring pipeline: each step passes the carry on
    perm = [(i, (i + 1) % 4) for i in range(4)]
    def body(w, x):
        def step(c, _):
            c = jnp.tanh(c @ w[0])
            return lax.ppermute(c, "d", perm), c.sum()
        c, ys = lax.scan(step, x, None, length=4)
        return lax.psum(c.sum() + ys.sum(), "d")
    f = smap(ds, body, (P("d"), P("d")), P())
    w = np.stack([np.eye(6, dtype=np.float32) * 0.5 + 0.1 * i for i in range(4)])
    return jax.jit(jax.grad(f))(w, A)


@case
def smap_grad_through_all_to_all_and_gather(ds):
    def body(x):
        y = lax.all_to_all(x, "d", 0, 1, tiled=True)
        return lax.psum(jnp.sum(jnp.sin(lax.all_gather(y, "d", tiled=True)) ** 2), "d")
    f = smap(ds, body, P(None, "d"), P(), check_vma=False)
    return jax.jit(jax.grad(f))(np.arange(8 * 8, dtype=np.float32).reshape(8, 8) / 10)


@case
def vmap_over_shard_map(ds):
    f = smap(ds, lambda x: lax.psum(x, "d") * 2, P("d"), P())
    return jax.jit(jax.vmap(f))(np.stack([A, A * 3]))


@case
def smap_cond_and_while_on_axis_index(ds):
    def body(x):
        i = lax.axis_index("d")
        y = lax.cond(i % 2 == 0, lambda v: v * 2, lambda v: -v, x)
        z = lax.while_loop(lambda c: c[0] < i + 1, lambda c: (c[0] + 1, c[1] + 1.0), (0, y))[1]
        return z
    return smap(ds, body, P("d"), P("d"))(A)


# Pipelining: a while loop whose body holds collectives, trip counts the same on every device.
@case
def smap_fori_with_psum_in_body(ds):
    return smap(ds, lambda x: lax.fori_loop(0, 3, lambda i, c: lax.pmean(c * 1.5, "d") + c, x), P("d"), P("d"))(A)


@case
def smap_inside_jit_with_other_ops(ds):
    inner = jax.shard_map(lambda x: lax.psum(x, "d"), mesh=mesh_of(ds), in_specs=P("d"), out_specs=P())
    return jax.jit(lambda x: jnp.sin(inner(x * 2)) + 1)(A)


@case
def smap_partial_manual(ds):  # manual over "x" only, "y" stays automatic
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    f = jax.shard_map(lambda x: lax.psum(x, "x") * 2, mesh=mesh, in_specs=P("x"), out_specs=P(), axis_names={"x"})
    x = jax.device_put(A, NamedSharding(mesh, P("x", "y")))
    return jax.jit(f)(x)


@case
def smap_partial_manual_gather_and_index(ds):  # manual over "y" only: per-"y" collectives and axis_index
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    f = jax.shard_map(lambda v: lax.all_gather(v, "y", tiled=True) * (lax.axis_index("y") + 1), mesh=mesh,
                      in_specs=P(None, "y"), out_specs=P("y"), axis_names={"y"}, check_vma=False)
    return jax.jit(f)(np.arange(8 * 4, dtype=np.float32).reshape(8, 4))


@case
def smap_partial_manual_inside_jit_with_grad(ds):
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    inner = jax.shard_map(lambda w, v: lax.psum(jnp.sum(jnp.tanh(v @ w) ** 2), "x"), mesh=mesh,
                          in_specs=(P(), P("x")), out_specs=P(), axis_names={"x"})
    return jax.jit(jax.grad(lambda w, v: inner(w, v * 2) + jnp.sum(w ** 2)))(B, A)


# Manual over "x", with shardings over the free axis "y" in the body (kiln
# drops them and computes the body over the whole of "y" on each of its
# devices; kiln/pjrt/partial_manual.h).

@case
def smap_partial_manual_free_axis_constraint(ds):
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    body = lambda v: lax.with_sharding_constraint(v * 2, P(None, "y")) + 1
    return jax.jit(jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"), axis_names={"x"}))(A)


@case
def smap_partial_manual_free_axis_matmul_psum(ds):
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    body = lambda v: lax.psum(lax.with_sharding_constraint(jnp.tanh(v) @ v.T, P("y")), "x")
    return jax.jit(jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P(), axis_names={"x"}))(A)


def free_axis_scan_body(v, w):
    def step(c, _):
        c = lax.with_sharding_constraint(jnp.tanh(c @ w), P(None, "y"))
        return c, c.sum()
    c, sums = lax.scan(step, v, None, length=3)
    return lax.psum(c, "x"), sums


@case
def smap_partial_manual_free_axis_scan_committed_over_y(ds):  # arguments committed over "y" too
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    f = jax.shard_map(free_axis_scan_body, mesh=mesh, in_specs=(P("x"), P()), out_specs=(P(), P("x")), axis_names={"x"})
    w = (B @ B.T)[:6, :6] * 0.05
    return jax.jit(f, in_shardings=(NamedSharding(mesh, P("x", "y")), NamedSharding(mesh, P(None, "y"))),
                   out_shardings=(NamedSharding(mesh, P(None, "y")), NamedSharding(mesh, P("x"))))(A * 0.1, w)


@case
def smap_partial_manual_free_axis_grad(ds):
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    f = jax.shard_map(free_axis_scan_body, mesh=mesh, in_specs=(P("x"), P()), out_specs=(P(), P("x")), axis_names={"x"})
    w = (B @ B.T)[:6, :6] * 0.05
    return jax.jit(jax.grad(lambda v, w: f(v, w)[0].sum() + f(v, w)[1].sum(), argnums=(0, 1)))(A * 0.1, w)


# A shard_map over the free axis nested in one manual over "x" only (kiln
# slices each device's block out of the operands, runs the nest's body on it
# and gathers or sums the results over the free axis).

@case
def smap_partial_manual_nested_free_axis_psum(ds):
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    inner = jax.shard_map(lambda u: lax.psum(u, "y"), in_specs=P(None, "y"), out_specs=P(), axis_names={"y"})
    return jax.jit(jax.shard_map(lambda v: inner(v * 2) + 1, mesh=mesh, in_specs=P("x"), out_specs=P("x"),
                                 axis_names={"x"}))(A)


@case
def smap_partial_manual_nested_free_axis_gathered(ds):  # a result split over "y", and axis_index there
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    inner = jax.shard_map(lambda u: jnp.sin(u) * (lax.axis_index("y") + 1), in_specs=P(None, "y"),
                          out_specs=P(None, "y"), axis_names={"y"})
    return jax.jit(jax.shard_map(lambda v: inner(v * 2) + lax.psum(v, "x"), mesh=mesh, in_specs=P("x"),
                                 out_specs=P("x"), axis_names={"x"}))(A)


@case
def smap_partial_manual_nested_over_the_first_axis(ds):  # manual over "y" outside, a nest over "x" inside
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    inner = jax.shard_map(lambda u: lax.all_gather(u * 3, "x", tiled=True), in_specs=P("x"), out_specs=P(),
                          axis_names={"x"}, check_vma=False)
    return jax.jit(jax.shard_map(lambda v: inner(v) - lax.axis_index("y"), mesh=mesh, in_specs=P(None, "y"),
                                 out_specs=P(None, "y"), axis_names={"y"}, check_vma=False))(A)


@case
def smap_partial_manual_nested_matmul(ds):  # two operands split over "y", their product summed over it
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    inner = jax.shard_map(lambda u, w: lax.psum(jnp.tanh(u) @ w, "y"), in_specs=(P(None, "y"), P("y")),
                          out_specs=P(), axis_names={"y"})
    g = jax.shard_map(lambda v, w: lax.psum(inner(v, w) ** 2, "x"), mesh=mesh, in_specs=(P("x"), P()),
                      out_specs=P(), axis_names={"x"})
    return jax.jit(g)(A, B)


@case
def smap_partial_manual_nested_in_scan_reordered_devices(ds):  # the nest in a scan body (a called function)
    mesh = jax.sharding.Mesh(np.array([ds[2], ds[0], ds[3], ds[1]]).reshape(2, 2), ("x", "y"),
                             axis_types=(AxisType.Auto,) * 2)
    inner = jax.shard_map(lambda u: lax.psum(jnp.tanh(u), "y"), in_specs=P(None, "y"), out_specs=P(),
                          axis_names={"y"})

    def body(v):
        def step(c, _):
            return jnp.concatenate([inner(c), inner(c * 2)], axis=1) * 0.5, c.sum()
        return lax.scan(step, v, None, length=3)
    return jax.jit(jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=(P("x"), P("x")),
                                 axis_names={"x"}))(A)


@case
def smap_full_manual_argument_committed_elsewhere(ds):  # main's argument split over ("x", "y"), the body's over "x"
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    x = jax.device_put(A, NamedSharding(mesh, P("x", "y")))
    return jax.jit(jax.shard_map(lambda v: lax.psum(v, "x") * 2, mesh=mesh, in_specs=P("x"), out_specs=P()))(x)


# --- sharding constraints, jit shardings ---------------------------------------

@case
def with_sharding_constraint_chain(ds):
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    def f(x):
        y = lax.with_sharding_constraint(jnp.sin(x), NamedSharding(mesh, P("x", "y")))
        z = lax.with_sharding_constraint(y @ y.T, NamedSharding(mesh, P(None, "x")))
        return z.sum(1)
    return jax.jit(f)(A)


@case
def jit_in_out_shardings_pytree(ds):
    mesh = mesh_of(ds)
    s = NamedSharding(mesh, P("d"))
    f = jax.jit(lambda t: {"a": t["x"] * 2, "b": (t["y"] + 1, t["x"].sum())},
                in_shardings=({"x": s, "y": NamedSharding(mesh, P())},),
                out_shardings={"a": s, "b": (NamedSharding(mesh, P()), NamedSharding(mesh, P()))})
    return f({"x": A, "y": I})


@case
def device_put_sharded_then_jit(ds):
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    x = jax.device_put(A, NamedSharding(mesh, P("x", "y")))
    y = jax.jit(lambda v: v.T * 3)(x)
    return [y, np.array([len(y.addressable_shards)])]


@case
def reshard_device_put(ds):
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    x = jax.device_put(A, NamedSharding(mesh, P("x", "y")))
    y = jax.device_put(x, NamedSharding(mesh, P("y", None)))
    z = jax.device_put(y, NamedSharding(mesh, P()))
    return [y, z, np.stack([np.asarray(s.data) for s in y.addressable_shards])]


@case
def single_device_sharding_subset(ds):
    x = jax.device_put(A, ds[2])
    y = jax.jit(lambda v: v * 2)(x)
    return [y, np.array([y.devices().pop().id - ds[0].id])]


@case
def mesh_of_reordered_devices(ds):  # the device assignment is not 0..3
    order = [ds[2], ds[0], ds[3], ds[1]]
    mesh = jax.sharding.Mesh(np.array(order).reshape(2, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    s = NamedSharding(mesh, P("x", "y"))
    x = jax.device_put(A, s)
    y = jax.jit(lambda v: (v @ v.T, jnp.cumsum(v, 1)), out_shardings=(NamedSharding(mesh, P("y")), s))(x)
    z = jax.jit(jax.shard_map(lambda v: lax.psum(v, "x") + lax.axis_index("y"), mesh=mesh, in_specs=P("x", "y"),
                              out_specs=P(None, "y")))(x)
    shards = [np.asarray(sh.data) for sh in sorted(y[1].addressable_shards, key=lambda sh: sh.device.id)]
    return [y, z, shards]


@case
def mesh_of_two_of_four_devices(ds):
    mesh = jax.sharding.Mesh(np.array([ds[3], ds[1]]), ("d",), axis_types=(AxisType.Auto,))
    s = NamedSharding(mesh, P("d"))
    y = jax.jit(lambda v: jnp.sin(v) @ B, out_shardings=s)(jax.device_put(A, s))
    p = jax.pmap(lambda v: lax.psum(v, "i"), axis_name="i", devices=[ds[3], ds[1]])(A[:2])
    return [y, p, np.array(sorted(d.id - ds[0].id for d in y.devices()))]


@case
def explicit_axes_mesh(ds):  # sharding in types: jax.sharding.reshard and the ops' explicit out shardings
    mesh = jax.sharding.Mesh(np.array(ds).reshape(2, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    with jax.set_mesh(mesh):
        x = jax.device_put(A, NamedSharding(mesh, P("x", None)))
        def f(v):
            w = jax.sharding.reshard(v, P(None, "y"))
            return jnp.sin(w) * 2, (v * v).sum(axis=1), jnp.einsum("ij,jk->ik", v, B, out_sharding=P("x", None))
        out = jax.jit(f)(x)
    return [out, [np.array(str(o.sharding.spec)) for o in out]]


@case
def dot_of_a_value_with_itself_rows_split(ds):  # both operands the same value, its rows split: a kiln bug (below)
    mesh = mesh_of(ds)
    s = NamedSharding(mesh, P("d"))
    return jax.jit(lambda v: jnp.einsum("ij,kj->ik", v, v), in_shardings=s, out_shardings=s)(A)


@case
def sharding_constraint_in_scan_and_while(ds):
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    c1, c2 = NamedSharding(mesh, P("x", "y")), NamedSharding(mesh, P("y", None))
    def f(v):
        def step(c, e):
            c = lax.with_sharding_constraint(jnp.tanh(c + e), c1)
            return c, lax.with_sharding_constraint(c.T, c2).sum(0)
        c, ys = lax.scan(step, v[0:4, 0:4], v[:, None, 0:4].repeat(4, 1))
        w = lax.while_loop(lambda t: t[0] < 3, lambda t: (t[0] + 1, lax.with_sharding_constraint(t[1] * 1.1, c2)), (0, c))[1]
        return c, ys, w
    return jax.jit(f)(A)


@case
def make_array_from_callback(ds):
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    x = jax.make_array_from_callback(A.shape, NamedSharding(mesh, P("x", "y")), lambda idx: A[idx])
    return jax.jit(lambda v: v @ v.T)(x)


@case
def sharded_gather_to_one_device(ds):
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    x = jax.device_put(A, NamedSharding(mesh, P("x", "y")))
    y = jax.device_put(x, ds[3])
    return [y, jax.device_get(x), np.asarray(x.addressable_data(2))]


@case
def sharded_complex_bool_int8(ds):
    mesh = mesh_of(ds)
    s = NamedSharding(mesh, P("d"))
    z = jax.device_put(np.concatenate([Z, Z]), s)
    b = jax.device_put(A > 0, s)
    q = jax.device_put((I * 3).astype(np.int8), s)
    return jax.jit(lambda z, b, q: (z * z.conj(), jnp.where(b, 1, -1).sum(0), q.astype(jnp.int32).sum(), ~b),
                   out_shardings=(s, NamedSharding(mesh, P()), NamedSharding(mesh, P()), s))(z, b, q)


@case
def sharded_zero_size_and_constant_outputs(ds):
    mesh = mesh_of(ds)
    s = NamedSharding(mesh, P("d"))
    x = jax.device_put(A, s)
    return jax.jit(lambda v: (v[:, :0], jnp.ones((4, 2)), v.sum() * 0 + 3, jnp.zeros((0,))))(x)


@case
def sharded_static_argnums_keep_unused(ds):
    mesh = mesh_of(ds)
    s = NamedSharding(mesh, P("d"))
    f = jax.jit(lambda v, n, unused: v * n, static_argnums=1, keep_unused=True)
    return [f(jax.device_put(A, s), 3, jax.device_put(A, s)), f(jax.device_put(A, s), 4, A)]


@case
def sharded_donation_then_reuse_output(ds):
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    s = NamedSharding(mesh, P("x", "y"))
    step = jax.jit(lambda w, g: w - 0.5 * g, donate_argnums=0, out_shardings=s)
    w = jax.device_put(A, s)
    for _ in range(3):
        w = step(w, jnp.ones_like(A))
    return w


@case
def sharded_cost_and_memory_analysis(ds):
    mesh = mesh_of(ds)
    s = NamedSharding(mesh, P("d"))
    c = jax.jit(lambda v: v @ v.T, in_shardings=s, out_shardings=s).lower(jax.ShapeDtypeStruct(A.shape, A.dtype)).compile()
    m = c.memory_analysis()
    return [np.array([m.argument_size_in_bytes, m.output_size_in_bytes]), np.array([len(c.input_shardings[0])])]


@case
def pmap_scan_and_out_axes_none(ds):
    f = jax.pmap(lambda x: (lax.scan(lambda c, e: (c + e, c), 0.0, x)[0], lax.psum(x.sum(), "i")), axis_name="i",
                 out_axes=(0, None), devices=ds)
    return f(A[:4])


@case
def pmap_donate_and_static(ds):
    f = jax.pmap(lambda x, n: x * n, static_broadcasted_argnums=1, donate_argnums=0, devices=ds)
    return f(jnp.asarray(A[:4]), 3)


# --- pmap ----------------------------------------------------------------------

@case
def pmap_psum(ds):
    return jax.pmap(lambda x: lax.psum(x, "i"), axis_name="i", devices=ds)(A[:4])


@case
def pmap_all_gather_ppermute(ds):
    f = jax.pmap(lambda x: (lax.all_gather(x, "i"), lax.ppermute(x, "i", [(i, (i + 3) % 4) for i in range(4)])),
                 axis_name="i", devices=ds)
    return f(A[:4])


@case
def pmap_in_axes_static_broadcast(ds):
    f = jax.pmap(lambda x, w: x @ w, in_axes=(0, None), devices=ds)
    return f(A.reshape(4, 2, 6), B)


@case
def pmap_nested_vmap(ds):
    return jax.pmap(jax.vmap(lambda x: x * lax.pmean(x.sum(), "i")), axis_name="i", devices=ds)(A.reshape(4, 2, 6))


@case
def pmap_grad_pmean(ds):
    def step(w, x):
        g = jax.grad(lambda w: jnp.mean(jnp.tanh(x @ w) ** 2))(w)
        return w - 0.1 * lax.pmean(g, "i")
    return jax.pmap(step, axis_name="i", in_axes=(None, 0), devices=ds)(B, A.reshape(4, 2, 6))


@case
def pmap_int_and_bool(ds):
    return jax.pmap(lambda x: (lax.psum(x, "i"), lax.pmax(x, "i"), x > 0), axis_name="i", devices=ds)(I[:4])


# --- donation ------------------------------------------------------------------

@case
def donate_in_place_update(ds):
    f = jax.jit(lambda x, y: (x + y, y * 2), donate_argnums=0)
    x = jax.device_put(A, ds[0])
    out = f(x, jax.device_put(A, ds[0]))
    return [out, np.array([x.is_deleted()])]


@case
def donate_sharded(ds):
    mesh = mesh_of(ds)
    s = NamedSharding(mesh, P("d"))
    x = jax.device_put(A, s)
    out = jax.jit(lambda v: v * 3 + 1, donate_argnums=0, out_shardings=s)(x)
    return [out, np.array([x.is_deleted()])]


@case
def donate_pytree_loop(ds):
    f = jax.jit(lambda p, g: jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g), donate_argnums=0)
    p = {"w": jax.device_put(B, ds[0]), "b": jax.device_put(V[:4], ds[0])}
    for _ in range(3):
        p = f(p, {"w": B, "b": V[:4]})
    return p


@case
def donate_unused_and_shape_mismatch(ds):  # no output fits x: nothing aliases it
    f = jax.jit(lambda x, y: y.sum(), donate_argnums=0)
    x = jax.device_put(A, ds[0])
    return [f(x, V)]


# --- jax.Array operations ------------------------------------------------------

@case
def device_put_across_devices(ds):
    x = jax.device_put(A, ds[0])
    ys = [jax.device_put(x, d) for d in ds]
    z = jax.device_put(ys[3], ds[1]) + 1
    return ys + [z, np.array([d.id - ds[0].id for y in ys for d in y.devices()])]


@case
def copy_to_host_async_and_ready(ds):
    x = jax.jit(lambda v: v @ B)(jax.device_put(A, ds[1]))
    x.copy_to_host_async()
    x.block_until_ready()
    return [np.asarray(x), np.array([x.is_fully_addressable, x.is_fully_replicated])]


@case
def block_until_ready_pytree(ds):
    out = jax.block_until_ready(jax.jit(lambda v: {"a": v, "b": [v * 2, v.sum()]})(jax.device_put(A, ds[0])))
    return out


@case
def astype_across_dtypes(ds):
    x = jax.device_put(np.linspace(-3, 3, 16, dtype=np.float32), ds[0])
    outs = []
    for t in [jnp.bfloat16, jnp.float16, jnp.float64, jnp.int8, jnp.int16, jnp.uint16, jnp.uint32, jnp.bool_,
              jnp.complex64, jnp.int4, jnp.uint4, jnp.float8_e4m3fn, jnp.float8_e5m2, jnp.float8_e4m3fnuz,
              jnp.float8_e5m2fnuz, jnp.float8_e4m3b11fnuz]:
        y = x.astype(t)
        outs.append(np.asarray(y).astype(np.float32) if t != jnp.complex64 else np.asarray(y))
        outs.append(np.asarray(jax.jit(lambda v: (v + v).astype(jnp.float32) if v.dtype != jnp.bool_ else v)(y)
                               ).astype(np.float32))
    return outs


@case
def device_put_narrow_dtypes(ds):
    outs = []
    for t in [jnp.int4, jnp.uint4, jnp.float8_e4m3fn, jnp.float8_e5m2, jnp.bfloat16, jnp.int2]:
        host = np.arange(-3, 5).astype(t) if t not in (jnp.uint4,) else np.arange(8).astype(t)
        y = jax.device_put(host, ds[0])
        outs.append(np.asarray(y).astype(np.float32))
        outs.append(np.asarray(jax.jit(lambda v: v[::-1])(y)).astype(np.float32))
    return outs


@case
def array_methods(ds):
    x = jax.device_put(A, ds[0])
    return [x[2:5, ::2], x.T, x.reshape(4, 12), x.sum(axis=1), x.argmax(), x.clip(-1, 1), x.round(2), x.ravel()[3],
            x.at[0].set(5.0), np.array([float(x[0, 0]), x.nbytes, x.size, x.ndim])]


@case
def array_iter_and_index_with_device_array(ds):
    x = jax.device_put(A, ds[0])
    idx = jax.device_put(np.array([1, 3, 7], np.int32), ds[0])
    return [list(x)[5], x[idx], x[idx, idx[:1]]]


@case
def addressable_shards_data(ds):
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    x = jax.device_put(A, NamedSharding(mesh, P("x", "y")))
    return [np.asarray(s.data) for s in sorted(x.addressable_shards, key=lambda s: s.device.id)]


@case
def sharded_astype_and_host_copies(ds):
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    x = jax.device_put(A, NamedSharding(mesh, P("x", "y")))
    outs = []
    for t in [jnp.bfloat16, jnp.float16, jnp.int8, jnp.uint32, jnp.bool_, jnp.complex64, jnp.int4, jnp.float8_e4m3fn]:
        y = x.astype(t)
        y.copy_to_host_async()
        outs.append(np.asarray(y.block_until_ready()).astype(np.complex64 if t == jnp.complex64 else np.float32))
        outs.append(np.stack([np.asarray(sh.data).astype(np.complex64 if t == jnp.complex64 else np.float32)
                              for sh in sorted(y.addressable_shards, key=lambda sh: sh.device.id)]))
    return outs


@case
def donate_with_aliasing_pytrees_and_reuse(ds):
    mesh = mesh_of(ds)
    s = NamedSharding(mesh, P("d"))
    f = jax.jit(lambda st, g: ({"w": st["w"] - g, "n": st["n"] + 1}, st["w"].sum()), donate_argnums=0)
    st = {"w": jax.device_put(A, s), "n": jax.device_put(np.int32(0), NamedSharding(mesh, P()))}
    sums = []
    for _ in range(3):
        st, total = f(st, jax.device_put(A * 0.1, s))
        sums.append(total)
    return [st, sums]


# --- jax.export ----------------------------------------------------------------
# Exported for both platforms (the artifact then takes a platform index and
# switches on it), or for "cpu" only with JAX's platform check disabled (kiln
# lowers as the cpu, so a cpu artifact runs on kiln). The export_serialized_*
# cases go through Exported.serialize() (which needs the flatbuffers
# package, requirements.txt) and jax.export.deserialize before calling.

BOTH = ("cpu", "kiln")
ANY_PLATFORM = dict(platforms=["cpu"], disabled_checks=[jax.export.DisabledSafetyCheck.platform()])


@case
def export_two_platforms(ds):
    exp = jax.export.export(jax.jit(lambda x, y: jnp.tanh(x @ y).sum(0)), platforms=BOTH)(
        jax.ShapeDtypeStruct(A.shape, A.dtype), jax.ShapeDtypeStruct(B.shape, B.dtype))
    return jax.jit(exp.call)(jax.device_put(A, ds[0]), jax.device_put(B, ds[0]))


@case
def export_symbolic_shape(ds):
    b, = jax.export.symbolic_shape("b")
    exp = jax.export.export(jax.jit(lambda x: jnp.cumsum(x, 0) * x.shape[0]), platforms=BOTH)(
        jax.ShapeDtypeStruct((b, 6), np.float32))
    x = jax.device_put(A, ds[0])
    return [exp.call(x), exp.call(x[:3])]


@case
def export_vjp(ds):
    exp = jax.export.export(jax.jit(lambda x: jnp.sin(x).sum()), platforms=BOTH)(jax.ShapeDtypeStruct(V.shape, V.dtype))
    return jax.jit(jax.grad(exp.call))(jax.device_put(V, ds[0]))


@case
def export_cpu_artifact_sharded(ds):
    mesh = mesh_of(ds)
    s = NamedSharding(mesh, P("d"))
    exp = jax.export.export(jax.jit(lambda x: x * 2 + 1, in_shardings=s, out_shardings=s), **ANY_PLATFORM)(
        jax.ShapeDtypeStruct(A.shape, A.dtype))
    return jax.jit(exp.call, in_shardings=s, out_shardings=s)(jax.device_put(A, s))


@case
def export_cpu_artifact_pytree_linalg(ds):
    exp = jax.export.export(jax.jit(lambda t: {"s": t[0] + t[1].astype(np.float32), "m": t[1] * 2,
                                             "e": jnp.linalg.eigh(t[0].T @ t[0])[0]}), **ANY_PLATFORM)(
        (jax.ShapeDtypeStruct((8, 4), np.float32), jax.ShapeDtypeStruct((8, 4), np.int32)))
    return exp.call((jax.device_put(A[:, :4], ds[0]), I))


@case
def export_shard_map_two_platforms(ds):
    mesh = mesh_of(ds)
    f = jax.jit(jax.shard_map(lambda v: (lax.psum(v, "d"), v + lax.axis_index("d")), mesh=mesh, in_specs=P("d"),
                              out_specs=(P(), P("d"))))
    exp = jax.export.export(f, platforms=BOTH)(jax.ShapeDtypeStruct(A.shape, A.dtype))
    return jax.jit(exp.call)(jax.device_put(A, NamedSharding(mesh, P("d"))))


def round_trip(exp):
    """The artifact as a file would carry it: serialized, then read back."""
    data = exp.serialize(vjp_order=1)
    assert isinstance(data, (bytes, bytearray)) and len(data) > 0
    return jax.export.deserialize(data)


@case
def export_serialized_two_platforms(ds):
    exp = round_trip(jax.export.export(jax.jit(lambda x, y: jnp.tanh(x @ y).sum(0)), platforms=BOTH)(
        jax.ShapeDtypeStruct(A.shape, A.dtype), jax.ShapeDtypeStruct(B.shape, B.dtype)))
    return jax.jit(exp.call)(jax.device_put(A, ds[0]), jax.device_put(B, ds[0]))


@case
def export_serialized_symbolic_shapes(ds):
    # Two symbolic dimensions, one constrained, in a pytree.
    b, k = jax.export.symbolic_shape("b, k", constraints=["k >= 2"])
    exp = round_trip(jax.export.export(
        jax.jit(lambda t: {"s": jnp.cumsum(t["x"], 0) * t["x"].shape[0], "m": t["x"] @ t["y"]}), platforms=BOTH)(
        {"x": jax.ShapeDtypeStruct((b, k), np.float32), "y": jax.ShapeDtypeStruct((k, 4), np.float32)}))
    x = jax.device_put(A, ds[0])
    return [exp.call({"x": x, "y": B}), exp.call({"x": x[:3, :2], "y": B[:2]})]


@case
def export_serialized_vjp(ds):
    exp = round_trip(jax.export.export(jax.jit(lambda x: jnp.sin(x).sum() * x[0]), platforms=BOTH)(
        jax.ShapeDtypeStruct(V.shape, V.dtype)))
    return jax.jit(jax.grad(exp.call))(jax.device_put(V, ds[0]))


@case
def export_serialized_sharded(ds):
    mesh = mesh_of(ds, (2, 2), ("x", "y"))
    s_in = NamedSharding(mesh, P("x", "y"))
    s_out = NamedSharding(mesh, P("y"))
    exp = round_trip(jax.export.export(jax.jit(lambda x: (x * 2 + 1).sum(1), in_shardings=s_in, out_shardings=s_out),
                                       platforms=BOTH)(jax.ShapeDtypeStruct(A.shape, A.dtype)))
    assert exp.nr_devices == 4, exp.nr_devices
    out = jax.jit(exp.call, in_shardings=s_in, out_shardings=s_out)(jax.device_put(A, s_in))
    assert out.sharding.is_equivalent_to(s_out, 1), out.sharding
    return out


@case
def export_serialized_shard_map(ds):
    mesh = mesh_of(ds)
    f = jax.jit(jax.shard_map(lambda v: (lax.psum(v, "d"), v + lax.axis_index("d")), mesh=mesh, in_specs=P("d"),
                              out_specs=(P(), P("d"))))
    exp = round_trip(jax.export.export(f, platforms=BOTH)(jax.ShapeDtypeStruct(A.shape, A.dtype)))
    return jax.jit(exp.call)(jax.device_put(A, NamedSharding(mesh, P("d"))))


@case
def export_serialized_cpu_artifact_symbolic_sharded(ds):
    # A cpu-only artifact with a symbolic batch over a mesh, read back and run.
    mesh = mesh_of(ds)
    s = NamedSharding(mesh, P("d"))
    b, = jax.export.symbolic_shape("4*b")
    exp = round_trip(jax.export.export(jax.jit(lambda x: jnp.tanh(x) * x.shape[0], in_shardings=s, out_shardings=s),
                                       **ANY_PLATFORM)(jax.ShapeDtypeStruct((b, 6), np.float32)))
    call = jax.jit(exp.call, in_shardings=s, out_shardings=s)
    return [call(jax.device_put(A, s)), call(jax.device_put(np.concatenate([A, A]), s))]


@case
def x64_collectives_and_sharded_ops(ds):
    with jax.enable_x64(True):
        mesh = mesh_of(ds)
        s = NamedSharding(mesh, P("d"))
        x = jax.device_put(A.astype(np.float64), s)
        u = jax.device_put((I.astype(np.uint64) * np.uint64(2**40)), s)
        f = jax.jit(jax.shard_map(lambda a, b: (lax.psum(a, "d"), lax.pmax(b, "d"), lax.all_gather(b, "d", tiled=True)),
                                  mesh=mesh, in_specs=(P("d"), P("d")), out_specs=(P(), P(), P()), check_vma=False))
        g = jax.jit(lambda a: (jnp.sort(a, 0), jnp.fft.fft(a, axis=0), lax.dynamic_slice(a, (3, 1), (4, 2)), jnp.cumsum(a, 0)))
        return [f(x, u), g(x)]


@case
def sharded_random_keys(ds):
    mesh = mesh_of(ds)
    keys = jax.device_put(jax.random.split(jax.random.key(5), 8), NamedSharding(mesh, P("d")))
    return jax.jit(jax.vmap(lambda k: jax.random.normal(k, (3,))))(keys)


# --- remat ---------------------------------------------------------------------

def mlp(w, x):
    for _ in range(3):
        x = jnp.tanh(x @ w)
    return jnp.sum(x ** 2)


@case
def remat_policies(ds):
    outs = []
    for policy in [None, jax.checkpoint_policies.dots_saveable, jax.checkpoint_policies.nothing_saveable,
                   jax.checkpoint_policies.everything_saveable,
                   jax.checkpoint_policies.dots_with_no_batch_dims_saveable]:
        outs.append(jax.jit(jax.grad(jax.checkpoint(mlp, policy=policy)))(jax.device_put(np.eye(6, dtype=np.float32) * 0.7 + A[:6] * 0.1, ds[0]), A))
    return outs


@case
def remat_in_scan(ds):
    def f(w, xs):
        step = jax.checkpoint(lambda c, x: (jnp.tanh(c @ w + x), c.sum()))
        c, ys = lax.scan(step, jnp.zeros(6), xs)
        return c.sum() + ys.sum()
    return jax.jit(jax.grad(f))(np.eye(6, dtype=np.float32) * 0.5, A)


@case
def remat_static_argnums_and_names(ds):
    from jax.ad_checkpoint import checkpoint_name
    def f(x):
        y = checkpoint_name(jnp.sin(x), "a")
        return jnp.sum(jnp.cos(y) * x)
    g = jax.checkpoint(f, policy=jax.checkpoint_policies.save_only_these_names("a"))
    return jax.jit(jax.grad(g))(A)


# --- vmap of control flow ------------------------------------------------------

@case
def vmap_while_loop(ds):  # batched predicate: each row stops at its own step
    f = jax.vmap(lambda x: lax.while_loop(lambda c: c[0].sum() < 10, lambda c: (c[0] * 1.5 + 0.1, c[1] + 1),
                                          (jnp.abs(x), 0)))
    return jax.jit(f)(A)


@case
def vmap_cond_switch(ds):
    f = jax.vmap(lambda x, i: (lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x),
                               lax.switch(i, [lambda v: v, lambda v: v * 2, jnp.exp], x)))
    return jax.jit(f)(A, np.array([0, 1, 2, 0, 1, 2, 5, -1], np.int32))


@case
def vmap_scan(ds):
    f = jax.vmap(lambda x: lax.scan(lambda c, e: (c * 0.9 + e, c), 0.0, x))
    return jax.jit(f)(A)


@case
def vmap_fori_dynamic_bound(ds):
    f = jax.vmap(lambda n, x: lax.fori_loop(0, n, lambda i, c: c + i * x, jnp.zeros_like(x)))
    return jax.jit(f)(np.array([0, 1, 2, 3, 4, 5, 6, 7], np.int32), A)


@case
def vmap_in_axes_out_axes(ds):
    f = jax.vmap(lambda x, y: (x @ y, x.sum()), in_axes=(1, None), out_axes=(1, 0))
    return jax.jit(f)(np.stack([A, A * 2], 1), np.ones((6, 3), np.float32))


@case
def vmap_of_grad_of_while(ds):
    f = jax.vmap(jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * x, x)))
    return jax.jit(f)(V)


@case
def nested_vmap_cond(ds):
    f = jax.vmap(jax.vmap(lambda x: lax.cond(x > 0, lambda v: v ** 2, lambda v: -v, x)))
    return jax.jit(f)(A)


# --- PRNG implementations ------------------------------------------------------

@case
def prng_impls(ds):
    outs = []
    for impl in ["threefry2x32", "rbg", "unsafe_rbg"]:
        k = jax.random.key(42, impl=impl)
        f = jax.jit(lambda k: (jax.random.normal(k, (5,)), jax.random.uniform(jax.random.split(k)[1], (3, 2)),
                               jax.random.randint(jax.random.fold_in(k, 3), (4,), 0, 100),
                               jax.random.key_data(jax.random.split(k, 2))))
        outs.append(f(jax.device_put(k, ds[0])))
    return outs


@case
def prng_raw_keys(ds):
    k = jax.random.PRNGKey(7)
    return jax.jit(lambda k: (jax.random.normal(k, (6,)), jax.random.split(k, 3), jax.random.bits(k, (4,), jnp.uint8),
                              jax.random.bits(k, (3,), jnp.uint16)))(jax.device_put(k, ds[0]))


@case
def prng_sharded_generation(ds):
    mesh = mesh_of(ds)
    f = jax.jit(lambda k: jax.random.normal(k, (8, 16)), out_shardings=NamedSharding(mesh, P("d")))
    return f(jax.random.key(3))


@case
def prng_vmap_keys(ds):
    keys = jax.random.split(jax.random.key(1), 8)
    return jax.jit(jax.vmap(lambda k: jax.random.uniform(k, (3,))))(keys)


@case
def prng_distributions_x(ds):
    k = jax.random.key(11)
    return jax.jit(lambda k: (jax.random.exponential(k, (5,)), jax.random.laplace(k, (5,)), jax.random.cauchy(k, (5,)),
                              jax.random.poisson(k, 3.0, (5,)), jax.random.dirichlet(k, jnp.ones(3), (2,)),
                              jax.random.multivariate_normal(k, jnp.zeros(2), jnp.eye(2), (3,)),
                              jax.random.orthogonal(k, 3), jax.random.rademacher(k, (6,)),
                              jax.random.gumbel(k, (4,)), jax.random.t(k, 3.0, (4,))))(jax.device_put(k, ds[0]))


# --- loops over pytrees ---------------------------------------------------------

@case
def while_loop_pytree(ds):
    def cond(s):
        return (s["i"] < 6) & (s["acc"]["x"].sum() < 1e6)
    def body(s):
        return {"i": s["i"] + 1, "acc": {"x": s["acc"]["x"] * 1.3 + s["w"], "n": (s["acc"]["n"][0] + 2, s["acc"]["n"][1] | 1)},
                "w": s["w"]}
    init = {"i": jnp.int32(0), "acc": {"x": jnp.asarray(A), "n": (jnp.int32(0), jnp.uint8(4))}, "w": jnp.asarray(A[0])}
    return jax.jit(lambda s: lax.while_loop(cond, body, s))(init)


@case
def while_loop_tuple_mixed_dtypes(ds):
    def body(c):
        i, x, b, z = c
        return i + 1, x * 2, ~b, z * (1 + 1j)
    return jax.jit(lambda c: lax.while_loop(lambda c: c[0] < 5, body, c))(
        (0, jnp.asarray(V[:3]), jnp.array([True, False]), jnp.asarray(Z[0])))


@case
def scan_pytree_carry_and_xs(ds):
    def step(c, x):
        return {"h": jnp.tanh(c["h"] + x["a"]), "n": c["n"] + x["b"]}, (c["h"].sum(), x["b"] * 2)
    return jax.jit(lambda xs: lax.scan(step, {"h": jnp.zeros(6), "n": jnp.int32(0)}, xs, reverse=True))(
        {"a": A, "b": np.arange(8, dtype=np.int32)})


@case
def while_loop_zero_trips_and_empty(ds):
    return jax.jit(lambda x: (lax.while_loop(lambda c: c[0] > 0, lambda c: (c[0] - 1, c[1] * 2), (0, x)),
                              lax.fori_loop(0, 0, lambda i, c: c + 1, x),
                              lax.scan(lambda c, e: (c + e, e), 0.0, jnp.zeros((0,)))))(A)


# --- dtypes across ops -----------------------------------------------------------

def over(values, fn):
    return jax.jit(fn)(values)


@case
def complex_elementwise(ds):
    return over(Z, lambda z: (z + z, z * z, z / (z + 3), jnp.abs(z), jnp.angle(z), jnp.real(z), jnp.imag(z),
                              jnp.conj(z), jnp.exp(z), jnp.log(z), jnp.sqrt(z), jnp.sin(z), jnp.cos(z), jnp.tanh(z),
                              z ** 2, z ** 0.5, jnp.expm1(z), jnp.log1p(z), jnp.sign(z), jnp.square(z), 1 / z))


@case
def complex_reductions_and_linalg(ds):
    return over(Z, lambda z: (z.sum(0), z.prod(1), z.mean(), jnp.cumsum(z, 1), z @ z, jnp.einsum("ij,jk", z, z.T),
                              jnp.linalg.det(z + 3 * jnp.eye(4)), jnp.linalg.solve(z + 3 * jnp.eye(4), z[:, 0]),
                              jnp.vdot(z, z), jnp.linalg.norm(z), z.T, jnp.flip(z), z == z[::-1],
                              jnp.where(jnp.abs(z) > 1, z, 0)))


@case
def complex128(ds):
    with jax.enable_x64(True):
        z = Z.astype(np.complex128)
        return jax.jit(lambda z: (z @ z, jnp.exp(z), jnp.fft.fft(z), z.sum(), jnp.abs(z), jnp.sort_complex(z.ravel())))(z)


@case
def complex_sort_and_compare(ds):
    return over(Z, lambda z: (jnp.sort(z.ravel()), jnp.argsort(jnp.real(z).ravel()), jnp.unique(jnp.round(z.ravel()), size=16)))


@case
def complex_grad(ds):
    return jax.jit(jax.grad(lambda x: jnp.abs(jnp.sum(jnp.exp(1j * x) * (x + 2j)) ** 2)))(V)


@case
def complex_casts(ds):
    return over(V, lambda x: (x.astype(jnp.complex64), lax.complex(x, -x), jnp.real(lax.complex(x, x) * 1j),
                              jnp.imag(lax.complex(x, x)),
                              lax.bitcast_convert_type(x, jnp.int32)))


@case
def uint_ops_all_widths(ds):
    outs = []
    for t in [np.uint8, np.uint16, np.uint32]:
        u = (U.astype(np.uint32) * 97 % np.iinfo(t).max).astype(t)
        outs.append(over(u, lambda x: (x + x, x - 7, x * 3, x // 5, x % 7, x >> 2, x << 3, x & 0x55, x | 1, x ^ x[::-1],
                                       ~x, jnp.maximum(x, 100), x.sum(0), x.max(1), x.min(), jnp.sort(x, 0),
                                       jnp.argmax(x, 0), x > 100, x.astype(jnp.float32), x.astype(jnp.int8),
                                       jnp.cumsum(x, 1), lax.population_count(x), lax.clz(x), jnp.abs(x), -x,
                                       lax.rem(x, x + 1), jnp.where(x > 50, x, 0), lax.shift_right_arithmetic(x, x * 0 + 1))))
    return outs


@case
def uint64_ops(ds):
    with jax.enable_x64(True):
        u = (U.astype(np.uint64) * np.uint64(2**40 + 12345))
        return jax.jit(lambda x: (x + x, x * 3, x // 7, x % 11, x >> 5, x.max(), jnp.sort(x.ravel()),
                                  x.astype(jnp.float64), x.astype(jnp.int64), x > 2**41, x.sum()))(u)


@case
def bool_ops(ds):
    b = A > 0
    return over(b, lambda x: (x & x[::-1], x | x[:, ::-1], x ^ True, ~x, x.sum(), x.all(1), x.any(0),
                              jnp.logical_and(x, ~x), x.astype(jnp.float32) * 2, x.astype(jnp.int32), jnp.where(x, 1, 2),
                              jnp.cumsum(x, 0), x == x, jnp.sort(x, 1), jnp.argmax(x, 1),
                              x.max(0), x.min(1), x.prod(0), jnp.flip(x), x.T, jnp.concatenate([x, x]),
                              x[jnp.array([0, 3])], x.at[0].set(True), lax.select(x, x, ~x), jnp.count_nonzero(x, 0)))


@case
def int8_int16_ops(ds):
    outs = []
    for t in [np.int8, np.int16]:
        x = I.astype(t)
        outs.append(over(x, lambda x: (x * 5, x // 3, x % 3, -x, jnp.abs(x), x >> 1, x << 2, x.sum(0), x.prod(1),
                                       jnp.sort(x, 0), jnp.cumsum(x, 0), x.astype(jnp.uint8), x.astype(jnp.float16),
                                       lax.population_count(x), lax.clz(x), jnp.sign(x), x @ x.T)))
    return outs


@case
def f16_bf16_ops(ds):
    outs = []
    for t in [jnp.float16, jnp.bfloat16]:
        outs.append(over(A, lambda x: (jnp.exp(x.astype(t)), jnp.sort(x.astype(t), 0), x.astype(t).sum(0),
                                       jnp.cumsum(x.astype(t), 1), x.astype(t) @ x.astype(t).T, x.astype(t).max(1),
                                       jnp.argmax(x.astype(t), 1), jax.nn.softmax(x.astype(t)), jnp.floor(x.astype(t)),
                                       x.astype(t).astype(jnp.int32), x.astype(t) > 0)))
    return outs


@case
def fp8_ops(ds):
    outs = []
    for t in [jnp.float8_e4m3fn, jnp.float8_e5m2]:
        outs.append(over(A, lambda x: (x.astype(t).astype(jnp.float32), (x.astype(t) * x.astype(t)).astype(jnp.float32),
                                       jnp.sort(x.astype(t), 0).astype(jnp.float32),
                                       jnp.maximum(x.astype(t), x.astype(t)[::-1]).astype(jnp.float32),
                                       (x.astype(t) > 0))))
    return outs


@case
def int4_ops(ds):
    x = (I % 8).astype(jnp.int4)
    return over(x, lambda x: ((x + x).astype(jnp.int32), (x * 2).astype(jnp.int32), x.astype(jnp.int8),
                              jnp.where(x > 0, x, -x).astype(jnp.int32), x[::-1].astype(jnp.int32),
                              jnp.concatenate([x, x], 1).astype(jnp.int32)))


@case
def x64_mixed(ds):
    with jax.enable_x64(True):
        return jax.jit(lambda x: (x.astype(jnp.float64) ** 2, x.astype(jnp.int64) * 2**40, jnp.cumsum(x.astype(jnp.int64)),
                                  x.astype(jnp.float64) @ x.astype(jnp.float64).T, jnp.arange(5, dtype=jnp.int64) * 3))(A)


def leaves(tree):
    return [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(tree)]


def placed_on(tree, devices):
    for leaf in jax.tree_util.tree_leaves(tree):
        if isinstance(leaf, jax.Array) and not leaf.devices() <= set(devices):
            return f"a result is on {leaf.devices()}, not on the devices given"
    return None


def difference(got, want, tolerance):
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"{got.dtype}{list(got.shape)} where XLA:CPU gives {want.dtype}{list(want.shape)}"
    if got.dtype.kind in "fcV" or got.dtype.name in ("bfloat16",) or got.dtype.name.startswith("float8"):
        g = got.astype(np.complex128 if got.dtype.kind == "c" else np.float64)
        w = want.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
        if np.allclose(g, w, rtol=tolerance, atol=tolerance, equal_nan=True):
            return None
    elif np.array_equal(got, want):
        return None
    return f"kiln {got.ravel()[:8]} where XLA:CPU gives {want.ravel()[:8]}"


def check(name):
    want_tree = CASES[name](CPU)
    got_tree = CASES[name](KILN)
    misplaced = placed_on(got_tree, KILN)
    if misplaced:
        return misplaced
    got, want = leaves(got_tree), leaves(want_tree)
    if len(got) != len(want):
        return f"{len(got)} results where XLA:CPU gives {len(want)}"
    problems = [f"result {i}: {d}" for i, (g, w) in enumerate(zip(got, want)) if (d := difference(g, w, 2e-3))]
    return "; ".join(problems) or None


if __name__ == "__main__":
    for name in sys.argv[1:] or list(CASES):
        try:
            problem = check(name)
            print(json.dumps({"name": name, "ok": problem is None, "detail": problem or ""}), flush=True)
        except Exception:
            print(json.dumps({"name": name, "ok": False, "detail": traceback.format_exc()[-2500:]}), flush=True)
