"""Runs sharded JAX programs, unmodified, on four kiln devices and on four
XLA:CPU devices in one process, and prints one JSON line per case.

Each case is jax.jit with in/out shardings over a mesh (NamedSharding), the
same program on both platforms: kiln partitions it (sharding_propagation,
spmd_partition) and runs each device's program; XLA does its own. The
results must agree -- bitwise for integer programs, within tolerance for
floats -- and every device's shard must be its block of the result. Run by
tests/python/test_spmd.py in a subprocess (JAX_PLATFORMS=kiln,cpu,
KILN_NUM_DEVICES=4, --xla_force_host_platform_device_count=4).
"""
import json
import sys
import traceback

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

KILN = jax.devices("kiln")
CPU = jax.devices("cpu")


def report(name, ok, detail=""):
    print(json.dumps({"name": name, "ok": bool(ok), "detail": detail[-2000:]}), flush=True)


def mesh_of(devices, shape, names):
    return jax.sharding.Mesh(np.array(devices[:int(np.prod(shape))]).reshape(shape), names,
                             axis_types=(AxisType.Auto,) * len(names))


def rand(shape, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed + sum(shape))
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-50, 50, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


# name -> (mesh shape, axis names, fn, argument arrays, in specs, out spec(s))
CASES = {}


def case(name, mesh, axes, args, in_specs, out_specs):
    def register(fn):
        CASES[name] = (mesh, axes, fn, args, in_specs, out_specs)
        return fn
    return register


@case("elementwise_rows", (4,), ("d",), [rand((8, 6)), rand((8, 6), seed=1)], [P("d"), P("d")], P("d"))
def _(a, b):
    return jnp.tanh(a) * b + 1.0


@case("elementwise_resharded_operand", (2, 2), ("x", "y"), [rand((8, 6)), rand((8, 6), seed=1)],
      [P("x", "y"), P("y", None)], P(None, "x"))
def _(a, b):
    return jnp.exp(a) - b


@case("matmul_free_dims", (2, 2), ("x", "y"), [rand((8, 4)), rand((4, 6))], [P("x", None), P(None, "y")],
      P("x", "y"))
def _(a, w):
    return a @ w


@case("matmul_contracting_split", (2, 2), ("x", "y"), [rand((8, 4)), rand((4, 6))], [P("x", "y"), P("y", None)],
      P("x"))
def _(a, w):
    return jnp.tanh(a @ w).sum(axis=1)


@case("reduce_sum_and_max_over_split_dim", (4,), ("d",), [rand((16, 3))], [P("d")], P())
def _(a):
    return a.sum(axis=0) + a.max(axis=0)


@case("softmax_batch_split", (4,), ("d",), [rand((8, 10))], [P("d")], P("d"))
def _(x):
    return jax.nn.softmax(x, axis=-1)


@case("broadcast_transpose_reshape", (2, 2), ("x", "y"), [rand((4, 6)), rand((6,))], [P("x", "y"), P("y")],
      P(None, "x"))
def _(a, v):
    b = (a + v[None, :]).T            # 6x4
    return b.reshape(3, 2, 4).sum(axis=1)  # 3x4


@case("reshape_merge_and_split", (4,), ("d",), [rand((8, 3, 2))], [P("d")], P("d"))
def _(a):
    return (a.reshape(24, 2) * 2.0).reshape(8, 6)


# A reshape splitting rows over "d" of 4 into 2 x 12 (or 2 x 4 x 6):
# propagation cuts "d" into its halves ("d":(1)2 for the new major dimension,
# "d":(2)2 for the next), so each device reshapes its block as it is
# (f32[2, 3] into f32[1, 6]) and the sum over the new dimension is partial over
# the minor half (tests/lit/passes/spmd_reshape_sub_axes.mlir).
@case("reshape_sub_axes_split_rows", (4,), ("d",), [rand((8, 3))], [P("d")], (P(), P()))
def _(a):
    r = a.reshape(2, 12) * 2.0
    return r.sum(axis=1), jnp.tanh(r)


@case("reshape_sub_axes_int_sum", (4,), ("d",), [rand((8, 6), np.int32)], [P("d", None)], P())
def _(a):
    return (a.reshape(2, 4, 6) * 3).sum(axis=1)


@case("batched_einsum", (2, 2), ("x", "y"), [rand((4, 6, 4)), rand((4, 4, 2))], [P("x", None, "y"), P("x", "y")],
      P("x"))
def _(a, b):
    return jnp.einsum("bij,bjk->bik", a, b)


@case("sharding_constraint_switches_split", (2, 2), ("x", "y"), [rand((8, 8))], [P("x", "y")], P("y", "x"))
def _(a):
    mesh = mesh_of(CURRENT_DEVICES, (2, 2), ("x", "y"))
    b = jax.lax.with_sharding_constraint(jnp.sin(a), NamedSharding(mesh, P(None, "x")))
    return b * 3.0


@case("split_moves_between_dims_all_to_all", (4,), ("d",), [rand((8, 12))], [P("d", None)], P(None, "d"))
def _(a):
    return jnp.cos(a) * 2.0


@case("contracting_split_reduce_scattered", (4,), ("d",), [rand((8, 8)), rand((8, 4), seed=1)], [P(None, "d"), P("d")],
      P("d"))
def _(a, w):
    return a @ w


@case("while_loop_keeps_batch_split", (4,), ("d",), [rand((8, 6)), rand((6, 6), seed=1)], [P("d"), P()], P("d"))
def _(x, w):
    return jax.lax.fori_loop(0, 3, lambda i, h: jnp.tanh(h @ w), x)


@case("scan_over_layers_data_parallel", (2, 2), ("x", "y"), [rand((8, 6)), rand((3, 6, 6), seed=1)], [P("x"), P()],
      P("x"))
def _(x, ws):
    h, _ = jax.lax.scan(lambda h, w: (jnp.tanh(h @ w), None), x, ws)
    return h


@case("integers_bitwise", (4,), ("d",), [rand((8, 4), np.int32), rand((8, 4), np.int32, seed=2)], [P("d"), P()],
      P("d"))
def _(a, b):
    return (a * b + (a >> 1)) ^ b


@case("integer_sum_over_split_dim", (2, 2), ("x", "y"), [rand((8, 4), np.int32)], [P("x", "y")], P())
def _(a):
    return a.sum()


@case("no_rule_ops_run_whole", (4,), ("d",), [rand((8, 5)), np.arange(8, dtype=np.int32) % 5], [P("d"), P("d")],
      P("d"))
def _(a, idx):
    s = jnp.sort(a, axis=0)  # sorts across the split dimension
    return jnp.cumsum(s, axis=0) + jnp.take(a, idx, axis=1)[:, :5]


@case("concat_slice_pad", (4,), ("d",), [rand((8, 3)), rand((8, 2))], [P("d"), P("d")], P("d"))
def _(a, b):
    c = jnp.concatenate([a, b], axis=1)
    return jnp.pad(c[:, 1:4], ((0, 0), (2, 1)))


@case("iota_plus_split", (4,), ("d",), [rand((8, 4))], [P("d")], P("d"))
def _(a):
    return a + jnp.arange(8, dtype=jnp.float32)[:, None]


@case("conv_batch_split", (4,), ("d",), [rand((4, 8, 8, 3)), rand((3, 3, 3, 5))], [P("d"), P()], P("d"))
def _(x, k):
    return jax.lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


# Windows across a split spatial dimension: each device widens its block by
# its neighbours' edge rows (halo exchange, collective_permute) and runs the
# window on it; no device gathers the whole image (tests/lit/passes/spmd_halo.mlir).
@case("conv_rows_split_halo", (4,), ("d",), [rand((2, 8, 8, 3)), rand((3, 3, 3, 5))], [P(None, "d"), P()],
      P(None, "d"))
def _(x, k):
    return jax.lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


@case("conv_rows_and_columns_split_halo", (2, 2), ("x", "y"), [rand((2, 8, 8, 3)), rand((5, 5, 3, 4))],
      [P(None, "x", "y"), P()], P(None, "x", "y"))
def _(x, k):
    return jax.nn.relu(jax.lax.conv_general_dilated(x, k, (1, 1), "SAME",
                                                    dimension_numbers=("NHWC", "HWIO", "NHWC")))


@case("max_pool_rows_split_halo", (4,), ("d",), [rand((8, 6))], [P("d")], P("d"))
def _(x):  # the edge devices' halo is the window's padding, -inf
    return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (3, 3), (1, 1), "SAME")


@case("window_sum_uneven_halo", (4,), ("d",), [rand((8, 5))], [P("d")], P("d"))
def _(x):  # window 4: one row from the block before, two from the block after
    return jax.lax.reduce_window(x, 0.0, jax.lax.add, (4, 1), (1, 1), "SAME")


@case("window_wider_than_a_block", (4,), ("d",), [rand((8, 6))], [P("d")], P("d"))
def _(x):  # a halo of 3 rows from blocks of 2: gathered instead, still right
    return jax.lax.reduce_window(x, 0.0, jax.lax.add, (7, 1), (1, 1), "SAME")


# Strided and dilated windows: a block of b rows gives b / stride result
# rows, reading halos of the neighbours' rows (tests/lit/passes/spmd_halo_strided.mlir).
@case("max_pool_stride_2_rows_split", (4,), ("d",), [rand((16, 6))], [P("d")], P("d"))
def _(x):  # window 3, stride 2, "SAME": one row of the next block
    return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (3, 1), (2, 1), "SAME")


@case("conv_stride_2_rows_split", (4,), ("d",), [rand((2, 16, 8, 3)), rand((4, 3, 3, 5))], [P(None, "d"), P()],
      P(None, "d"))
def _(x, k):  # kernel 4, stride 2, "SAME": a row from each neighbour
    return jax.lax.conv_general_dilated(x, k, (2, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


@case("conv_dilated_rows_split", (4,), ("d",), [rand((2, 16, 6, 3)), rand((3, 3, 3, 4))], [P(None, "d"), P()],
      P(None, "d"))
def _(x, k):  # kernel 3 dilated by 2: two rows from each neighbour
    return jax.lax.conv_general_dilated(x, k, (1, 1), "SAME", rhs_dilation=(2, 1),
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))


# Branches (stablehlo.case/if) run on local blocks; each device takes the
# same branch (the index is replicated).
@case("cond_branches_split_rows", (4,), ("d",), [rand((8, 6)), np.array(1.5, np.float32)], [P("d"), P()],
      (P("d"), P()))
def _(x, t):
    return jax.lax.cond(t > 1.0, lambda a: (jnp.tanh(a), a.sum(axis=0)), lambda a: (a * 2.0, a.max(axis=0)), x)


@case("switch_branches_split_2x2", (2, 2), ("x", "y"), [rand((8, 6)), np.array(2, np.int32)], [P("x", "y"), P()],
      P("x", "y"))
def _(x, i):
    weights = jnp.arange(36, dtype=jnp.float32).reshape(6, 6) / 36.0
    return jax.lax.switch(i, [lambda a: a + 1.0, lambda a: jnp.exp(a), lambda a: a @ weights], x)


@case("shard_map_psum", (4,), ("d",), [rand((8, 4))], [P("d")], P())
def _(a):
    mesh = mesh_of(CURRENT_DEVICES, (4,), ("d",))
    f = jax.shard_map(lambda x: jax.lax.psum(x.sum(axis=0), "d"), mesh=mesh, in_specs=P("d"), out_specs=P())
    return f(a) * 2.0


@case("gather_embedding_ids_split", (4,), ("d",), [rand((10, 6)), np.arange(8, dtype=np.int32) * 3 % 10],
      [P(), P("d")], P("d"))
def _(table, ids):
    return table[ids] * 2.0


@case("gather_table_columns_split", (4,), ("d",), [rand((10, 8)), np.array([3, 1, 4, 1, 5, 9], np.int32)],
      [P(None, "d"), P()], P(None, "d"))
def _(table, ids):
    return jnp.take(table, ids, axis=0)


@case("gather_take_along_rows_split", (4,), ("d",), [rand((8, 5)), (np.arange(24, dtype=np.int32) % 5).reshape(8, 3)],
      [P("d"), P("d")], P("d"))
def _(x, idx):
    return jnp.take_along_axis(x, idx, axis=1)


@case("scatter_add_columns_split", (4,), ("d",),
      [rand((10, 8), np.int32), np.array([3, 1, 4, 1, 5, 9], np.int32), rand((6, 8), np.int32, seed=1)],
      [P(None, "d"), P(), P(None, "d")], P(None, "d"))
def _(x, ids, updates):
    return x.at[ids].add(updates)  # integers: bitwise, whatever the order of the repeated index


# Base (input) dilation: a transposed convolution doubles the rows; each
# block of 2 input rows gives 4 result rows, widened by its neighbours' edge
# rows (tests/lit/passes/spmd_halo_strided.mlir).
@case("conv_transpose_rows_split_halo", (4,), ("d",), [rand((2, 8, 6, 3)), rand((3, 3, 3, 4))], [P(None, "d"), P()],
      P(None, "d"))
def _(x, k):
    return jax.lax.conv_transpose(x, k, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


@case("conv_transpose_kernel_4_rows_split_halo", (4,), ("d",), [rand((1, 8, 4, 2)), rand((4, 4, 2, 3))],
      [P(None, "d"), P()], P(None, "d"))
def _(x, k):
    return jax.lax.conv_transpose(x, k, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


# Uneven shardings: with_sharding_constraint over a dimension its number of
# blocks does not divide (jit's own in/out shardings must divide). kiln pads
# each block to ceil(n / k) and masks the padding before reductions
# (tests/lit/passes/spmd_uneven.mlir).
@case("uneven_constraint_elementwise_and_sum", (4,), ("d",), [rand((10,))], [P()], (P(), P()))
def _(x):
    mesh = mesh_of(CURRENT_DEVICES, (4,), ("d",))
    y = jax.lax.with_sharding_constraint(jnp.exp(x), NamedSharding(mesh, P("d")))  # 10 in blocks of 3
    z = jnp.log(y) * 2.0 + y  # padding: log(0) = -inf
    return z, z.sum() + jnp.max(jnp.log(y))


@case("uneven_contracting_dot", (4,), ("d",), [rand((6, 10)), rand((10, 3), seed=1)], [P(), P()], P())
def _(a, w):
    mesh = mesh_of(CURRENT_DEVICES, (4,), ("d",))
    a = jax.lax.with_sharding_constraint(jnp.sqrt(jnp.abs(a)), NamedSharding(mesh, P(None, "d")))
    w = jax.lax.with_sharding_constraint(w, NamedSharding(mesh, P("d")))
    return jnp.tanh(a / a * a @ w)  # a / a: NaN in the zero padding, masked before the dot


@case("uneven_rows_and_columns_int", (2, 2), ("x", "y"), [rand((5, 3), np.int32)], [P()], (P(), P(), P()))
def _(x):
    mesh = mesh_of(CURRENT_DEVICES, (2, 2), ("x", "y"))
    c = jax.lax.with_sharding_constraint(x * 3 + 1, NamedSharding(mesh, P("x", "y")))  # 5 -> 3+3, 3 -> 2+2
    q = jax.lax.div(c, c)  # integer: 0 / 0 in the padding
    return c.T, (q + c).sum(axis=0), jnp.max(c, axis=1)


@case("uneven_batch_softmax", (4,), ("d",), [rand((6, 8))], [P()], (P(), P()))
def _(x):
    mesh = mesh_of(CURRENT_DEVICES, (4,), ("d",))
    x = jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P("d")))  # 6 rows in blocks of 2
    s = jax.nn.log_softmax(x, axis=1)
    return s, s.sum(axis=0)


# Uneven splits through control flow: the loop carries the padded blocks,
# the branches return them, and reductions inside mask the padding.
@case("uneven_fori_loop_carried", (4,), ("d",), [rand((10,))], [P()], (P(), P()))
def _(x):
    mesh = mesh_of(CURRENT_DEVICES, (4,), ("d",))
    c = jax.lax.with_sharding_constraint(jnp.abs(x) + 1.0, NamedSharding(mesh, P("d")))  # 10 in blocks of 3

    def body(i, v):
        q = v / v * v  # NaN in the zero padding
        return q * 0.5 + jnp.sum(q) * 0.01 + jnp.max(q) * i

    v = jax.lax.fori_loop(0, 3, body, c)  # not returned as it is: the closed P() would make the loop replicated
    return v * 2.0, jnp.sum(jnp.log(v))


@case("uneven_cond_and_switch", (4,), ("d",), [rand((10,)), np.array([2], np.int32)], [P(), P()], (P(), P(), P()))
def _(x, k):
    mesh = mesh_of(CURRENT_DEVICES, (4,), ("d",))
    c = jax.lax.with_sharding_constraint(jnp.abs(x) + 1.0, NamedSharding(mesh, P("d")))
    a = jax.lax.cond(x[0] < 5.0, lambda v: v / v * jnp.sum(v / v * v), lambda v: jnp.log(v), c)
    b = jax.lax.switch(k[0], [lambda v: -v, lambda v: v / v, lambda v: jnp.log(v) * jnp.max(jnp.log(v))], c)
    return a * 2.0, b + 1.0, jnp.sum(a * b)


# One value read twice by one op, each use needing its own split: the left
# operand keeps its rows split, the right one is gathered (v v^T), or moves
# its split to the contracting dimension (v v).
@case("einsum_of_a_value_with_itself_rows_split", (2,), ("x",), [rand((8, 6))], [P("x")], P("x"))
def _(v):
    return jnp.einsum("ij,kj->ik", v, v)


@case("square_of_a_value_rows_split", (4,), ("d",), [rand((8, 8))], [P("d")], P("d"))
def _(v):
    return v @ v + jnp.einsum("ij,kj->ik", v, v)


def mlp_loss(params, x, y):
    w1, b1, w2, b2 = params
    h = jax.nn.relu(x @ w1 + b1)
    logits = h @ w2 + b2
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))


@case("mlp_train_step_data_parallel", (4,), ("d",),
      [(rand((6, 16)), rand((16,), seed=1), rand((16, 3), seed=2), rand((3,), seed=3)), rand((8, 6), seed=4),
       jax.nn.one_hot(np.arange(8) % 3, 3)],
      [(P(), P(), P(), P()), P("d"), P("d")], ((P(), P(), P(), P()), P()))
def _(params, x, y):
    loss, grads = jax.value_and_grad(mlp_loss)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads), loss


@case("mlp_tensor_parallel", (2, 2), ("x", "y"), [rand((8, 6)), rand((6, 16), seed=1), rand((16, 4), seed=2)],
      [P("x"), P(None, "y"), P("y", None)], P("x"))
def _(x, w1, w2):
    return jax.nn.gelu(x @ w1) @ w2


# Checks that are whole programs of their own: name -> function(devices) -> result.
CHECKS = {}


def check_case(name):
    def register(fn):
        CHECKS[name] = fn
        return fn
    return register


@check_case("explicit_mesh_sharding_in_types")
def _(devices):
    """jax.make_mesh's default (Explicit axes): shardings travel in the types,
    jit takes no shardings, and JAX lowers sharding constraints after each op."""
    mesh = jax.make_mesh((2, 2), ("x", "y"), devices=devices[:4])
    a = jax.device_put(rand((8, 4)), NamedSharding(mesh, P("x", None)))
    w = jax.device_put(rand((4, 6), seed=1), NamedSharding(mesh, P(None, "y")))
    with jax.set_mesh(mesh):
        return jax.jit(lambda a, w: jnp.tanh(a @ w).sum(axis=1))(a, w)


@check_case("gspmd_form_imported")
def _(devices):
    """JAX's older GSPMD form (mhlo.sharding strings, @Sharding custom calls),
    which kiln imports into Shardy's before partitioning."""
    jax.config.update("jax_use_shardy_partitioner", False)
    try:
        mesh = mesh_of(devices, (2, 2), ("x", "y"))
        a = jax.device_put(rand((8, 4)), NamedSharding(mesh, P("x", "y")))
        w = jax.device_put(rand((4, 6), seed=1), NamedSharding(mesh, P("y", None)))

        def f(a, w):
            h = jax.lax.with_sharding_constraint(jnp.tanh(a @ w), NamedSharding(mesh, P(None, "x")))
            return h * 2.0
        return jax.jit(f, out_shardings=NamedSharding(mesh, P("x")))(a, w)
    finally:
        jax.config.update("jax_use_shardy_partitioner", True)


def named(mesh, specs):
    return jax.tree_util.tree_map(lambda s: NamedSharding(mesh, s), specs, is_leaf=lambda s: isinstance(s, P))


def run(devices, name):
    global CURRENT_DEVICES
    CURRENT_DEVICES = devices
    shape, axes, fn, args, in_specs, out_specs = CASES[name]
    mesh = mesh_of(devices, shape, axes)
    in_shardings = named(mesh, tuple(in_specs))
    placed = jax.tree_util.tree_map(lambda a, s: jax.device_put(a, s), tuple(args), in_shardings)
    return jax.jit(fn, in_shardings=in_shardings, out_shardings=named(mesh, out_specs))(*placed)


def compiled_text(devices, name):
    global CURRENT_DEVICES
    CURRENT_DEVICES = devices
    shape, axes, fn, args, in_specs, out_specs = CASES[name]
    mesh = mesh_of(devices, shape, axes)
    jitted = jax.jit(fn, in_shardings=named(mesh, tuple(in_specs)), out_shardings=named(mesh, out_specs))
    return jitted.lower(*args).compile().as_text()


def check(name):
    if name in CHECKS:
        got, want = CHECKS[name](KILN), CHECKS[name](CPU)
    else:
        got, want = run(KILN, name), run(CPU, name)
    if name.startswith("uneven_"):  # really split unevenly: the constraint pads the value into whole blocks
        text = compiled_text(KILN, name)
        assert " pad(" in text and "partition-id" in text, f"no uneven split in kiln's program:\n{text[:3000]}"
    if name.startswith("uneven_") and ("loop" in name or "cond" in name):  # control flow on padded blocks
        text = compiled_text(KILN, name)
        flow = [line for line in text.splitlines() if " while(" in line or " conditional(" in line]
        assert flow and all("f32[3]" in line for line in flow), f"control flow not on blocks of 3:\n{flow}"
    if "stride_2_rows_split" in name or "dilated_rows_split" in name or "conv_transpose" in name:  # a halo exchange, not a gather
        text = compiled_text(KILN, name)
        assert "collective-permute" in text and "all-gather" not in text, f"no halo exchange:\n{text[:3000]}"
    if name.startswith("reshape_sub_axes"):  # the reshape runs on each device's block
        text = compiled_text(KILN, name)
        local = {"reshape_sub_axes_split_rows": "f32[1,6]", "reshape_sub_axes_int_sum": "s32[1,2,6]"}[name]
        reshapes = [line for line in text.splitlines() if " reshape(" in line]
        assert any(local in line for line in reshapes), f"no reshape to {local}:\n{text[:3000]}"
    got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for index, (g, w) in enumerate(zip(got_leaves, want_leaves)):
        assert g.devices() <= set(KILN), f"leaf {index} is not on kiln devices"
        for shard in g.addressable_shards:  # each device holds its block of the result
            np.testing.assert_array_equal(np.asarray(shard.data), np.asarray(g)[shard.index],
                                          err_msg=f"leaf {index}, shard on {shard.device}")
        g, w = np.asarray(g), np.asarray(w)
        assert (g.shape, g.dtype) == (w.shape, w.dtype), f"leaf {index}: {g.shape} {g.dtype} vs {w.shape} {w.dtype}"
        if np.issubdtype(w.dtype, np.inexact):
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5, err_msg=f"leaf {index}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"leaf {index}")


CURRENT_DEVICES = KILN

if __name__ == "__main__":
    names = sys.argv[1:] or list(CASES) + list(CHECKS)
    for name in names:
        try:
            check(name)
            report(name, True)
        except Exception:
            report(name, False, traceback.format_exc())
