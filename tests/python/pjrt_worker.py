"""Runs JAX programs, unmodified, on kiln's PJRT plugin and on XLA:CPU in one
process (JAX_PLATFORMS=kiln,cpu) and prints one JSON line per check.

Run by tests/python/test_pjrt_plugin.py in a subprocess, so that the plugin's
platform never leaks into the other tests' JAX:

    python3 pjrt_worker.py zoo|corpus|behaviour|serialization|optimized_program
"""
import json
import pathlib
import sys
import tempfile
import traceback

import jax
import jax.numpy as jnp
import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "tests" / "python"))


def report(name, ok, detail=""):
    print(json.dumps({"name": name, "ok": bool(ok), "detail": detail[-2000:]}), flush=True)


KILN = jax.devices("kiln")
CPU = jax.devices("cpu")[0]


def on(device, fn, args):
    """jax.jit(fn)(*args) with the arguments committed to `device`."""
    args = jax.device_put(args, device)
    return jax.jit(fn)(*args)


def compare(got, want, rtol, atol, atol_of_scale=False):
    got_leaves, got_tree = jax.tree_util.tree_flatten(got)
    want_leaves, want_tree = jax.tree_util.tree_flatten(want)
    assert got_tree == want_tree, f"{got_tree} != {want_tree}"
    for index, (g, w) in enumerate(zip(got_leaves, want_leaves)):
        if jax.dtypes.issubdtype(w.dtype, jax.dtypes.prng_key):
            g, w = jax.random.key_data(g), jax.random.key_data(w)
        assert isinstance(g, jax.Array) and g.devices() <= set(KILN), f"leaf {index} is not a jax.Array on kiln"
        g, w = np.asarray(g), np.asarray(w)
        assert (g.shape, g.dtype) == (w.shape, w.dtype), f"leaf {index}: {g.shape} {g.dtype} vs {w.shape} {w.dtype}"
        if np.issubdtype(w.dtype, np.inexact):
            loose = w.dtype in (np.float16, jnp.bfloat16)
            if atol_of_scale:  # programs with dots: sums in another order, held to the result's scale
                finite = np.abs(w[np.isfinite(w)]).astype(np.float64)
                atol = atol * max(1.0, float(finite.max()) if finite.size else 1.0)
            np.testing.assert_allclose(g.astype(w.dtype if not loose else np.float32),
                                       w.astype(w.dtype if not loose else np.float32),
                                       rtol=1e-2 if loose else rtol, atol=1e-2 if loose else atol,
                                       equal_nan=True, err_msg=f"leaf {index}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"leaf {index}")


def check(name, fn, args, rtol=1e-5, atol=1e-5, atol_of_scale=False):
    try:
        want = on(CPU, fn, args)
        got = on(KILN[0], fn, args)
        compare(got, want, rtol, atol, atol_of_scale)
        report(name, True)
    except Exception:  # noqa: BLE001  (every failure is reported, the run goes on)
        report(name, False, traceback.format_exc())


def zoo_cases():
    """(case, fn, args) for each zoo case, static arguments bound into fn."""
    from test_jit_zoo import CASES  # noqa: PLC0415
    for case in CASES:
        args = case.make_args(np.random.default_rng(0))
        fn = case.fn
        if case.static_argnums:
            statics = {i: args[i] for i in case.static_argnums}
            dynamic = [a for i, a in enumerate(args) if i not in statics]

            def fn(*dyn, _fn=case.fn, _statics=statics, _n=len(args)):
                it = iter(dyn)
                return _fn(*[_statics[i] if i in _statics else next(it) for i in range(_n)])
            args = dynamic
        yield case, fn, tuple(args)


def run_zoo():
    for case, fn, args in zoo_cases():
        check(case.name, fn, args, case.rtol, case.atol)


def physical(leaf):
    """A leaf as its HLO parameter sees it (a PRNG key as its key data)."""
    if jax.dtypes.issubdtype(jnp.result_type(leaf), jax.dtypes.prng_key):
        return jax.random.key_data(leaf)
    return leaf


def run_optimized_program():
    """compile().as_text() on kiln is kiln's optimized program (its kernels
    as called computations); XLA:CPU compiles that text and runs it, and
    must give what jax.jit gives on XLA:CPU."""
    from jax._src import xla_bridge  # noqa: PLC0415
    from jax._src.lib import xla_client as xc  # noqa: PLC0415
    cpu_backend = xla_bridge.get_backend("cpu")
    for case, fn, args in zoo_cases():
        try:
            jitted = jax.jit(fn, keep_unused=True)  # the HLO then takes every leaf
            compiled = jitted.lower(*jax.device_put(args, KILN[0])).compile()
            text = compiled.as_text()
            assert "kiln." not in text and "HloModule" in text, text[:2000]
            # The module itself, not its text: as_text elides large constants.
            (module,) = compiled.runtime_executable().hlo_modules()
            mlir_module = xc._xla.mlir.hlo_to_stablehlo(module.as_serialized_hlo_module_proto())
            executable = cpu_backend.compile_and_load(mlir_module, xc.DeviceList((CPU,)), xc.CompileOptions())
            leaves = [jax.device_put(physical(leaf), CPU) for leaf in jax.tree_util.tree_leaves(args)]
            results = executable.execute_sharded(leaves).disassemble_into_single_device_arrays()
            got = [result[0] for result in results]
            want = [physical(leaf) for leaf in jax.tree_util.tree_leaves(jitted(*jax.device_put(args, CPU)))]
            assert len(got) == len(want), f"{len(got)} results, {len(want)} wanted"
            for index, (g, w) in enumerate(zip(got, want)):
                g, w = np.asarray(g), np.asarray(w)
                assert (g.shape, g.dtype) == (w.shape, w.dtype), f"result {index}: {g.shape} {g.dtype} vs {w.shape} {w.dtype}"
                loose = w.dtype in (np.float16, jnp.bfloat16)
                if np.issubdtype(w.dtype, np.inexact):
                    np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), equal_nan=True,
                                               rtol=1e-2 if loose else case.rtol, atol=1e-2 if loose else case.atol,
                                               err_msg=f"result {index}")
                else:
                    np.testing.assert_array_equal(g, w, err_msg=f"result {index}")
            report(case.name, True, f"{text.count(' call(')} calls")
        except Exception:  # noqa: BLE001
            report(case.name, False, traceback.format_exc())


def random_input(rng, spec):
    dtype = np.dtype(spec.dtype)
    if dtype == np.bool_:
        return rng.random(spec.shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 4, spec.shape).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.standard_normal(spec.shape) + 1j * rng.standard_normal(spec.shape)).astype(dtype)
    return rng.standard_normal(spec.shape).astype(dtype)


def run_corpus():
    from gen_jax_corpus import PROGRAMS  # noqa: PLC0415
    for program in PROGRAMS:
        rng = np.random.default_rng(0)
        args = jax.tree_util.tree_map(lambda s: random_input(rng, s), program.args)
        # Unscaled normal weights: outputs in the thousands, where a dot's
        # order of sums moves an element that cancels to -9.6 by 1e-3.
        check(program.name, program.fn, tuple(args), rtol=1e-4, atol=1e-4, atol_of_scale=True)


def expect_error(name, thunk, *needles):
    """`thunk` must raise an exception whose text holds every needle."""
    try:
        thunk()
    except Exception as error:  # noqa: BLE001
        text = f"{type(error).__name__}: {error}"
        missing = [n for n in needles if n not in text]
        report(name, not missing, f"missing {missing} in: {text}" if missing else text)
        return
    report(name, False, "no exception was raised")


def run_behaviour():
    x = jnp.arange(8.0)
    report("default_backend_is_kiln", jax.default_backend() == "kiln" and x.devices() == {KILN[0]},
           f"{jax.default_backend()} {x.devices()}")

    # Each device runs what is put on it, and the result stays there.
    for device in KILN:
        try:
            y = jax.jit(lambda t: t * 2 + 1)(jax.device_put(np.arange(3.0, dtype=np.float32), device))
            report(f"device_put_{device.id}", y.devices() == {device} and np.array_equal(np.asarray(y), [1, 3, 5, 7][:3]),
                   f"{y.devices()} {np.asarray(y)}")
        except Exception:  # noqa: BLE001
            report(f"device_put_{device.id}", False, traceback.format_exc())

    # Donation: the donated argument is deleted, and reusing it is an error.
    def donate():
        a = jnp.ones(16)
        out = jax.jit(lambda p, q: p + q, donate_argnums=0)(a, jnp.ones(16))
        out.block_until_ready()
        assert a.is_deleted(), "the donated argument is still alive"
        assert np.array_equal(np.asarray(out), np.full(16, 2.0))
        a + 1
    expect_error("donated_argument_is_deleted", donate, "deleted")

    def deleted():
        a = jnp.ones(4)
        a.delete()
        jax.jit(lambda t: t + 1)(a)
    expect_error("deleted_buffer_raises", deleted, "deleted")

    # An op kiln cannot compile: a custom call to a target kiln does not know.
    def unknown_target():
        call = jax.ffi.ffi_call("kiln_test_unknown_target", jax.ShapeDtypeStruct((4,), jnp.float32))
        jax.jit(call)(jnp.ones(4)).block_until_ready()
    expect_error("unsupported_op_raises_with_kiln_message", unknown_target, "kiln: ", "kiln_test_unknown_target")

    # block_until_ready, copies between devices, to host.
    try:
        y = jax.jit(lambda t: jnp.sin(t).sum())(x).block_until_ready()
        moved = jax.device_put(y, KILN[-1])
        report("block_until_ready_and_copy", moved.devices() == {KILN[-1]} and np.allclose(moved, np.sin(np.arange(8.0)).sum()))
    except Exception:  # noqa: BLE001
        report("block_until_ready_and_copy", False, traceback.format_exc())

    # Device memory statistics: what kiln counts, nothing made up.
    try:
        held = jax.device_put(np.ones(1000, np.float32), KILN[1])
        stats = KILN[1].memory_stats()
        ok = stats["bytes_in_use"] >= held.nbytes and "bytes_limit" not in stats and "pool_bytes" not in stats
        report("memory_stats", ok, str(stats))
    except Exception:  # noqa: BLE001
        report("memory_stats", False, traceback.format_exc())

    # pmap over the two devices, with collectives (sdy.manual_computation).
    try:
        summed = jax.pmap(lambda v: v * 2 + jax.lax.psum(v, "i"), axis_name="i")(jnp.arange(2.0))
        gathered = jax.pmap(lambda v: jax.lax.all_gather(v, "i"), axis_name="i")(jnp.arange(4.0).reshape(2, 2))
        ok = (np.array_equal(np.asarray(summed), [1.0, 3.0])
              and np.array_equal(np.asarray(gathered), np.broadcast_to(np.arange(4.0).reshape(2, 2), (2, 2, 2)))
              and summed.devices() == set(KILN))
        report("pmap_with_collectives", ok, f"{np.asarray(summed)} {np.asarray(gathered).tolist()}")
    except Exception:  # noqa: BLE001
        report("pmap_with_collectives", False, traceback.format_exc())

    # jax.profiler around kiln calls: no crash.
    try:
        with tempfile.TemporaryDirectory() as tmp, jax.profiler.trace(tmp):
            jax.jit(lambda t: t @ t)(jnp.ones((4, 4))).block_until_ready()
        report("jax_profiler_trace", True)
    except Exception:  # noqa: BLE001
        report("jax_profiler_trace", False, traceback.format_exc())

    # Compiled.cost_analysis reads the plugin's cost properties.
    try:
        cost = jax.jit(lambda a, b: a @ b).lower(jnp.ones((8, 16)), jnp.ones((16, 4))).compile().cost_analysis()
        cost = cost[0] if isinstance(cost, list) else cost
        report("cost_analysis", cost and cost.get("flops", 0) >= 2 * 8 * 16 * 4, str(cost))
    except Exception:  # noqa: BLE001
        report("cost_analysis", False, traceback.format_exc())


def run_serialization():
    """Compiled executables serialize and load back (PJRT_Executable_Serialize
    and DeserializeAndLoad), as jax.experimental.serialize_executable does."""
    from jax.experimental import serialize_executable  # noqa: PLC0415
    try:
        compiled = jax.jit(lambda t: jnp.tanh(t) * 3).lower(jnp.arange(5.0)).compile()
        payload, in_tree, out_tree = serialize_executable.serialize(compiled)
        loaded = serialize_executable.deserialize_and_load(payload, in_tree, out_tree, execution_devices=KILN[:1])
        y = loaded(jnp.arange(5.0))
        report("serialize_and_load", np.allclose(np.asarray(y), np.tanh(np.arange(5.0)) * 3, rtol=1e-6),
               f"{len(payload)} bytes")
    except Exception:  # noqa: BLE001
        report("serialize_and_load", False, traceback.format_exc())


if __name__ == "__main__":
    suite = sys.argv[1]
    {"zoo": run_zoo, "corpus": run_corpus, "behaviour": run_behaviour, "serialization": run_serialization,
     "optimized_program": run_optimized_program}[suite]()
