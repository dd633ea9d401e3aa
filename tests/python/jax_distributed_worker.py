"""One process of a multi-process JAX run on kiln (JAX_PLATFORMS=kiln):
jax.distributed.initialize, a mesh over every process's kiln devices, and
sharded programs whose instances span the processes (collectives over Gloo,
docs/distributed.md). Prints one JSON line per case: {"name", "ok",
"detail"}. Run by tests/python/test_jax_distributed.py, which starts one of
these per process.

  jax_distributed_worker.py PORT NUM_PROCESSES PROCESS_ID MODE

MODE "programs" runs the cases below and compares each with NumPy;
"diverge" runs a program that differs between the processes, and "die"
makes process 1 leave after a first program: the others must fail with a
clear error (within KILN_COLLECTIVE_TIMEOUT_S, or at once when a peer's
connections close), not hang.
"""
import json
import os
import sys
import traceback

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import multihost_utils
from jax.sharding import NamedSharding, PartitionSpec as P

PORT, NUM_PROCESSES, PROCESS_ID, MODE = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]


def report(name, ok, detail=""):
    print(json.dumps({"name": name, "ok": bool(ok), "detail": detail[-3000:]}), flush=True)


def leave(status):
    # Not sys.exit: jax.distributed's shutdown barrier at exit would wait for
    # a process that is gone.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


jax.distributed.initialize(coordinator_address=f"127.0.0.1:{PORT}", num_processes=NUM_PROCESSES,
                           process_id=PROCESS_ID, initialization_timeout=60)

devices = jax.devices()
local = jax.local_devices()
report("devices", jax.process_count() == NUM_PROCESSES and jax.process_index() == PROCESS_ID
       and len(devices) == NUM_PROCESSES * len(local)
       and [d.id for d in devices] == list(range(len(devices)))
       and all(d.process_index == d.id // len(local) for d in devices)
       and {d.id for d in local} == {d.id for d in devices if d.process_index == PROCESS_ID},
       f"process {jax.process_index()} of {jax.process_count()}: devices "
       f"{[(d.id, d.process_index) for d in devices]}, local {[d.id for d in local]}")


def global_array(data, sharding):
    return jax.make_array_from_callback(data.shape, sharding, lambda index: data[index])


def local_blocks_match(array, expected, rtol=1e-5, atol=1e-5):
    """Whether each of this process's shards of `array` is its block of `expected`."""
    for shard in array.addressable_shards:
        np.testing.assert_allclose(np.asarray(shard.data), expected[shard.index], rtol=rtol, atol=atol)
    return True


rng = np.random.default_rng(0)  # the same data in every process
n = len(devices)
mesh = jax.sharding.Mesh(np.array(devices), ("d",))
rows = NamedSharding(mesh, P("d"))
replicated = NamedSharding(mesh, P())

if MODE == "die":
    # Both run the program once (which connects them), then process 1 leaves.
    x = global_array(rng.standard_normal((2 * n, 3)).astype(np.float32), rows)
    step = jax.jit(lambda a: a.sum(axis=0), out_shardings=replicated)
    step(x).block_until_ready()
    if PROCESS_ID == 1:
        leave(0)
    try:
        step(x).block_until_ready()
        report("peer_died", False, "the program ran without process 1")
    except Exception as e:  # noqa: BLE001 - the error's text is the result
        report("peer_died", "a peer process stopped" in str(e), str(e))
    leave(0)

if MODE == "diverge":
    x = global_array(rng.standard_normal((2 * n, 3)).astype(np.float32), rows)
    fn = (lambda a: a.sum(axis=0)) if PROCESS_ID == 0 else (lambda a: a.max(axis=0))
    try:
        jax.jit(fn, out_shardings=replicated)(x).block_until_ready()
        report("diverged", False, "different programs ran together")
    except Exception as e:  # noqa: BLE001
        report("diverged", "every process must run the same programs" in str(e), str(e))
    leave(0)


def run_case(name, body):
    try:
        report(name, body())
    except Exception:  # noqa: BLE001 - one case's failure must not hide the others
        report(name, False, traceback.format_exc())


def psum_over_shard_map():
    data = rng.standard_normal((2 * n, 3)).astype(np.float32)
    f = jax.jit(jax.shard_map(lambda b: jax.lax.psum(b, "d"), mesh=mesh, in_specs=P("d"), out_specs=P()),
                out_shardings=replicated)
    out = f(global_array(data, rows))
    return local_blocks_match(out, data.reshape(n, 2, 3).sum(axis=0))


def all_gather_over_shard_map():
    data = np.arange(4 * n * 2, dtype=np.int32).reshape(4 * n, 2)
    f = jax.jit(jax.shard_map(lambda b: jax.lax.all_gather(b, "d", tiled=True), mesh=mesh, in_specs=P("d"), check_vma=False,
                              out_specs=P()), out_shardings=replicated)
    out = f(global_array(data, rows))
    for shard in out.addressable_shards:  # integers: bitwise
        np.testing.assert_array_equal(np.asarray(shard.data), data)
    return True


def data_parallel_matmul():
    x = rng.standard_normal((4 * n, 8)).astype(np.float32)
    w = rng.standard_normal((8, 5)).astype(np.float32)
    f = jax.jit(lambda a, b: jnp.tanh(a @ b), out_shardings=rows)
    out = f(global_array(x, rows), global_array(w, replicated))
    expected = np.tanh(x @ w)
    local_blocks_match(out, expected)
    gathered = multihost_utils.process_allgather(out, tiled=True)
    np.testing.assert_allclose(gathered, expected, rtol=1e-5, atol=1e-5)
    return True


def gradient_of_sharded_loss():
    # A loss summed over every process's rows: the partitioner's all-reduce
    # across processes, then a replicated update.
    x = rng.standard_normal((4 * n, 6)).astype(np.float32)
    w = rng.standard_normal((6,)).astype(np.float32)
    loss = lambda w, x: jnp.mean((x @ w) ** 2)  # noqa: E731
    f = jax.jit(jax.value_and_grad(loss), out_shardings=(replicated, replicated))
    value, grad = f(global_array(w, replicated), global_array(x, rows))
    local_blocks_match(value, np.asarray(np.mean((x @ w) ** 2)), rtol=1e-4)
    return local_blocks_match(grad, 2 * x.T @ (x @ w) / len(x), rtol=1e-4, atol=1e-4)


def two_by_two_mesh():
    # A 2-D mesh whose rows are the processes: a matmul sharded on both axes.
    if n % 2:
        return True
    mesh2 = jax.sharding.Mesh(np.array(devices).reshape(2, n // 2), ("p", "q"))
    a = rng.standard_normal((4, 6)).astype(np.float32)
    b = rng.standard_normal((6, 2 * n)).astype(np.float32)
    out_sharding = NamedSharding(mesh2, P("p", "q"))
    f = jax.jit(lambda a, b: a @ b, out_shardings=out_sharding)
    out = f(global_array(a, NamedSharding(mesh2, P("p", None))), global_array(b, NamedSharding(mesh2, P(None, "q"))))
    return local_blocks_match(out, a @ b, rtol=1e-4, atol=1e-4)


run_case("psum_shard_map", psum_over_shard_map)
run_case("all_gather_shard_map", all_gather_over_shard_map)
run_case("data_parallel_matmul", data_parallel_matmul)
run_case("gradient_of_sharded_loss", gradient_of_sharded_loss)
run_case("two_by_two_mesh", two_by_two_mesh)
# Every process reaches here before any leaves (the shutdown barrier).
jax.distributed.shutdown()
