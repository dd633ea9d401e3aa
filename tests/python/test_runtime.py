"""The Python runtime API: arrays and their lifetimes, donation, DLPack,
threads, several devices, the default client, and kiln.jit's cache.

Programs here use only ops every back end compiles (elementwise, dot,
reductions), so each test runs on the cpu back end unless it says otherwise.
"""
import gc
import os
import pathlib
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import kiln
from kiln.config import Config

REPO = pathlib.Path(__file__).resolve().parents[2]

AXPY = """
func.func @main(%a: tensor<f32>, %x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
  %1 = stablehlo.multiply %0, %x : tensor<2x3xf32>
  %2 = stablehlo.add %1, %y : tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}
"""

TWO_RESULTS = """
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  %0 = stablehlo.negate %x : tensor<4xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %0, %1 : tensor<4xf32>, tensor<f32>
}
"""

BACKENDS = ["cpu", "interpreter"]


def axpy_args(seed=0):
    rng = np.random.default_rng(seed)
    return np.float32(rng.standard_normal()), rng.standard_normal((2, 3)).astype(np.float32), \
        rng.standard_normal((2, 3)).astype(np.float32)


def test_package_under_test_is_the_source_tree():
    """The build's copy of python/kiln/*.py is current (CMake copies them)."""
    imported = pathlib.Path(kiln.__file__).resolve().parent
    for source in sorted((REPO / "python" / "kiln").glob("*.py")):
        copy = imported / source.name
        assert copy.exists() and copy.read_text() == source.read_text(), \
            f"{copy} differs from {source}: rebuild the kiln_python target"


def test_import_kiln_does_not_import_jax():
    """kiln.compile needs no JAX; kiln.jit imports it on first use."""
    code = ("import sys, kiln; assert 'jax' not in sys.modules; "
            "f = kiln.jit; assert 'jax' in sys.modules and callable(f) and kiln.jit is f")
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(kiln.__file__).parent.parent))
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=120)


# -- compile and execute ----------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_compile_text_and_run_with_numpy(backend):
    a, x, y = axpy_args()
    f = kiln.compile(AXPY, backend=backend)
    result = f(a, x, y)
    assert isinstance(result, kiln.Array)
    assert result.shape == (2, 3) and result.dtype == np.float32
    np.testing.assert_allclose(np.asarray(result), a * x + y, rtol=1e-6)


def test_compile_from_a_path(tmp_path):
    path = tmp_path / "axpy.mlir"
    path.write_text(AXPY)
    a, x, y = axpy_args()
    for program in (path, str(path)):
        np.testing.assert_allclose(np.asarray(kiln.compile(program)(a, x, y)), a * x + y, rtol=1e-6)


def test_several_results_come_back_as_a_tuple():
    x = np.arange(4, dtype=np.float32)
    negated, total = kiln.compile(TWO_RESULTS)(x)
    np.testing.assert_array_equal(np.asarray(negated), -x)
    assert float(np.asarray(total)) == 6.0


def test_parameter_and_result_types():
    f = kiln.compile(TWO_RESULTS)
    assert [tuple(shape) for shape, _ in f.parameter_types()] == [(4,)]
    assert [(tuple(shape), np.dtype(dtype)) for shape, dtype in f.result_types()] == \
        [((4,), np.dtype(np.float32)), ((), np.dtype(np.float32))]


# -- arrays and their lifetimes ---------------------------------------------------

def test_numpy_view_is_zero_copy_and_read_only():
    array = kiln.device_put(np.arange(6, dtype=np.float32).reshape(2, 3))
    first, second = np.asarray(array), np.asarray(array)
    assert np.shares_memory(first, second)  # both views of the buffer, no copy
    assert not first.flags.writeable
    np.testing.assert_array_equal(array.numpy(), first)


def test_numpy_view_keeps_the_buffer_alive():
    array = kiln.compile(AXPY)(*axpy_args())
    expected = np.array(np.asarray(array))  # a real copy
    view = np.asarray(array)
    del array
    gc.collect()
    junk = [kiln.device_put(np.full((2, 3), 7.0, np.float32)) for _ in range(8)]  # reuse freed memory
    np.testing.assert_array_equal(view, expected)
    del junk


def test_deleted_buffer_raises():
    array = kiln.device_put(np.ones(4, np.float32))  # TWO_RESULTS takes f32[4]
    assert not array.is_deleted()
    array.delete()
    assert array.is_deleted()
    with pytest.raises(kiln.KilnError) as error:
        np.asarray(array)
    assert error.value.code == "FAILED_PRECONDITION"
    with pytest.raises(kiln.KilnError):
        kiln.compile(TWO_RESULTS)(array)


def test_memory_stats_follow_buffers():
    client = kiln.Client(backend="interpreter")
    device = client.devices()[0]
    before = device.memory_stats()["bytes_in_use"]
    array = client.buffer_from_pyval(np.zeros(1 << 16, np.float32))
    assert device.memory_stats()["bytes_in_use"] >= before + array.nbytes
    array.delete()
    assert device.memory_stats()["bytes_in_use"] <= before


def test_a_numpy_view_keeps_its_memory_counted_on_the_device():
    # The view shares the buffer's memory, which stays counted on its device
    # until the last user (here the view) lets go of it.
    client = kiln.Client(backend="interpreter")
    device = client.devices()[0]
    before = device.memory_stats()["bytes_in_use"]
    array = client.buffer_from_pyval(np.arange(1 << 14, dtype=np.float32))
    view = np.asarray(array)
    array.delete()
    gc.collect()
    assert device.memory_stats()["bytes_in_use"] == before + view.nbytes
    assert view[-1] == (1 << 14) - 1
    del view
    gc.collect()
    assert device.memory_stats()["bytes_in_use"] == before


def test_device_put_of_a_pytree():
    tree = {"w": np.ones((2, 2), np.float32), "b": [np.zeros(2, np.int32), 3.0]}
    placed = kiln.device_put(tree)
    assert jax.tree_util.tree_structure(placed) == jax.tree_util.tree_structure(tree)
    for leaf in jax.tree_util.tree_leaves(placed):
        assert isinstance(leaf, kiln.Array)
    np.testing.assert_array_equal(np.asarray(placed["b"][0]), tree["b"][0])


def test_low_precision_dtypes_round_trip():
    for dtype in (ml_dtypes.bfloat16, np.float16, np.int8, np.uint64, np.bool_, np.complex64):
        x = (np.arange(6) % 3).astype(dtype)
        array = kiln.device_put(x)
        assert array.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(np.asarray(array), x)


# -- donation ---------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_donated_argument_is_consumed(backend):
    update = kiln.jit(lambda w, g: w - 0.5 * g, donate_argnums=(0,), backend=backend)
    w = kiln.device_put(np.ones(5, np.float32), backend=backend)
    g = kiln.device_put(np.arange(5, dtype=np.float32), backend=backend)
    new_w = update(w, g)
    np.testing.assert_allclose(np.asarray(new_w), 1.0 - 0.5 * np.arange(5))
    assert w.is_donated() and not g.is_donated()
    with pytest.raises(kiln.KilnError) as error:
        np.asarray(w)
    assert error.value.code == "FAILED_PRECONDITION"
    with pytest.raises(kiln.KilnError) as error:
        update(w, g)  # a donated array cannot be an argument again
    assert error.value.code == "FAILED_PRECONDITION"
    np.testing.assert_array_equal(np.asarray(g), np.arange(5))


def test_donating_a_pytree_consumes_every_leaf():
    step = kiln.jit(lambda state, x: jax.tree_util.tree_map(lambda s: s + x, state), donate_argnums=0)
    state = kiln.device_put({"a": np.zeros(3, np.float32), "b": [np.ones(2, np.float32)]})
    x = kiln.device_put(np.float32(2))
    new_state = step(state, x)
    assert all(leaf.is_donated() for leaf in jax.tree_util.tree_leaves(state))
    assert not x.is_donated()
    np.testing.assert_array_equal(np.asarray(new_state["a"]), np.full(3, 2.0))
    np.testing.assert_array_equal(np.asarray(new_state["b"][0]), np.full(2, 3.0))


def test_donating_a_numpy_array_leaves_it_intact():
    w = np.ones(5, np.float32)
    kiln.jit(lambda w: w * 2, donate_argnums=0)(w)
    np.testing.assert_array_equal(w, np.ones(5))


def test_donation_through_compiled():
    x = kiln.device_put(np.arange(4, dtype=np.float32))
    negated, _ = kiln.compile(TWO_RESULTS)(x, donate=[0])
    assert x.is_donated()
    np.testing.assert_array_equal(np.asarray(negated), -np.arange(4))


# -- DLPack -----------------------------------------------------------------------

def test_dlpack_to_numpy():
    array = kiln.device_put(np.arange(12, dtype=np.int32).reshape(3, 4))
    assert array.__dlpack_device__()[0] == 1  # kDLCPU
    np.testing.assert_array_equal(np.from_dlpack(array), np.arange(12).reshape(3, 4))


def test_dlpack_to_and_from_jax():
    x = jnp.linspace(0.0, 1.0, 10, dtype=jnp.float32)
    array = kiln.device_put(x)  # via x.__dlpack__
    np.testing.assert_array_equal(np.asarray(array), np.asarray(x))
    back = jnp.from_dlpack(array)
    assert isinstance(back, jax.Array)
    np.testing.assert_array_equal(np.asarray(back), np.asarray(x))


def test_jax_arrays_as_arguments():
    a, x, y = axpy_args()
    result = kiln.compile(AXPY)(jnp.asarray(a), jnp.asarray(x), y)
    np.testing.assert_allclose(np.asarray(result), a * x + y, rtol=1e-6)


def test_numpy_arguments_of_every_layout_give_numpys_answer():
    # C-contiguous arrays of kiln's dtypes are read in place; the others
    # (strided, big-endian, float64 for an f32 parameter is an error) are
    # copied first. Either way the values are numpy's.
    a, x, y = axpy_args(3)
    f = kiln.compile(AXPY)
    expected = a * x + y
    strided = np.zeros((2, 6), np.float32)
    strided[:, ::2] = x
    big_endian = x.astype(">f4")
    read_only = x.copy()
    read_only.setflags(write=False)
    for x_in in (x, strided[:, ::2], big_endian, read_only, np.asfortranarray(x)):
        np.testing.assert_allclose(np.asarray(f(a, x_in, y)), expected, rtol=1e-6)
    with pytest.raises(kiln.KilnError):
        f(a, x.astype(np.float64), y)


def test_numpy_arguments_may_change_once_the_call_returns():
    a, x, y = axpy_args(4)
    f = kiln.compile(AXPY)
    x_in = x.copy()
    result = f(a, x_in, y)
    x_in[:] = 1000
    del x_in
    gc.collect()
    np.testing.assert_allclose(np.asarray(result), a * x + y, rtol=1e-6)


def test_jax_numpy_takes_kiln_arrays_through_jax_array():
    # What honours __jax_array__ in this JAX: constructors, operators of JAX
    # arrays, einsum, stack. (Jitted jnp functions abstractify their arguments
    # instead: test_interop.py covers those, through JAX's handler tables.)
    x = np.linspace(-1, 1, 7, dtype=np.float32)
    array = kiln.device_put(x)
    assert isinstance(array.__jax_array__(), jax.Array)
    np.testing.assert_array_equal(np.asarray(jnp.asarray(array)), x)
    np.testing.assert_allclose(np.asarray(jnp.full(7, 3.0, jnp.float32) * array), 3 * x, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.einsum("i,i->", array, array)), np.dot(x, x), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(jnp.stack([array, array])), np.stack([x, x]))


# -- threads ----------------------------------------------------------------------

def test_eight_threads_share_one_executable():
    f = kiln.compile(AXPY)
    cases = [axpy_args(seed) for seed in range(8)]

    def run(case):
        results = [np.array(np.asarray(f(*case))) for _ in range(25)]
        a, x, y = case
        return all(np.allclose(r, a * x + y, rtol=1e-6) for r in results)

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert all(pool.map(run, cases))


def test_eight_threads_share_one_jit_function():
    """The first calls race to compile; every thread still gets right answers."""
    f = kiln.jit(lambda x, y: jnp.tanh(x) @ y)
    rng = np.random.default_rng(3)
    cases = [(rng.standard_normal((4, 5)).astype(np.float32), rng.standard_normal((5, 2)).astype(np.float32))
             for _ in range(8)]
    barrier = threading.Barrier(8)

    def run(case):
        barrier.wait()
        return np.allclose(np.asarray(f(*case)), np.tanh(case[0]) @ case[1], rtol=1e-4, atol=1e-5)

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert all(pool.map(run, cases))
    assert f.cache_size() == 1


# -- devices ----------------------------------------------------------------------

def test_default_client_devices():
    devices = kiln.devices()
    assert len(devices) == kiln.config.num_devices
    assert devices[0].id == 0 and repr(devices[0]) == "cpu:0"


def test_client_with_several_devices():
    client = kiln.Client(num_devices=4, backend="interpreter")
    devices = client.devices()
    assert [d.id for d in devices] == [0, 1, 2, 3]
    assert [repr(d) for d in devices] == [f"cpu:{i}" for i in range(4)]
    array = client.buffer_from_pyval(np.ones(3, np.float32), devices[2])
    assert array.device.id == 2
    executable = client.compile(TWO_RESULTS)
    inputs = [[client.buffer_from_pyval(np.full(4, float(i), np.float32), d)] for i, d in enumerate(devices)]
    outputs = executable.execute_sharded(inputs)
    assert len(outputs) == 4
    for i, (negated, total) in enumerate(outputs):
        assert negated.device.id == i and total.device.id == i
        np.testing.assert_array_equal(np.asarray(negated), np.full(4, -float(i)))
        assert float(np.asarray(total)) == 4.0 * i


DATA_PARALLEL = """
module attributes {mhlo.num_replicas = 4 : i32} {
  func.func @main(%x: tensor<6xf32>) -> (tensor<6xf32>, tensor<ui32>) {
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<6xf32>) -> tensor<6xf32>
    %r = stablehlo.replica_id : tensor<ui32>
    return %s, %r : tensor<6xf32>, tensor<ui32>
  }
}
"""


@pytest.mark.parametrize("backend", ["cpu", "interpreter"])
def test_sharded_execution_runs_replicas_that_meet_at_collectives(backend):
    client = kiln.Client(num_devices=4, backend=backend)
    executable = client.compile(DATA_PARALLEL)
    shards = [np.arange(6, dtype=np.float32) * (i + 1) for i in range(4)]
    inputs = [[client.buffer_from_pyval(x, d)] for x, d in zip(shards, client.devices())]
    outputs = executable.execute_sharded(inputs)
    for i, (total, replica) in enumerate(outputs):
        assert total.device.id == i
        np.testing.assert_array_equal(np.asarray(total), sum(shards))
        assert int(np.asarray(replica)) == i
    with pytest.raises(kiln.KilnError, match="4 replica"):
        executable.execute_sharded(inputs[:2])


# -- the default client and config --------------------------------------------------

def test_config_reads_the_environment():
    config = Config.from_environment({"KILN_BACKEND": "interpreter", "KILN_NUM_DEVICES": "2",
                                      "KILN_FLAGS": "--dump-dir=/tmp/x --explain_recompiles"})
    assert (config.backend, config.num_devices, config.explain_recompiles) == ("interpreter", 2, True)
    default = Config.from_environment({})
    assert (default.backend, default.num_devices, default.explain_recompiles) == ("cpu", 1, False)


def test_default_client_follows_config_backend(monkeypatch):
    monkeypatch.setattr(kiln.config, "backend", "interpreter")
    assert kiln.get_client() is kiln.get_client("interpreter")
    monkeypatch.setattr(kiln.config, "backend", "cpu")
    assert kiln.get_client() is kiln.get_client("cpu")
    assert kiln.get_client("cpu") is not kiln.get_client("interpreter")


# -- kiln.jit's cache -------------------------------------------------------------

def test_same_signature_compiles_once_whatever_the_array_kind():
    f = kiln.jit(lambda x: x * 2)
    x = np.arange(3, dtype=np.float32)
    for argument in (x, jnp.asarray(x), kiln.device_put(x)):
        np.testing.assert_array_equal(np.asarray(f(argument)), x * 2)
    assert f.cache_size() == 1


def test_weak_type_static_args_and_structure_key_the_cache():
    f = kiln.jit(lambda x, n: x * n, static_argnums=1)
    f(1.0, 2), f(np.float32(1.0), 2), f(1.0, 3), f(2.0, 2)
    assert f.cache_size() == 3  # weak f32, strong f32, static 3; a new value of a weak scalar reuses
    g = kiln.jit(lambda tree: sum(jax.tree_util.tree_leaves(tree)))
    g((np.float32(1), np.float32(2))), g([np.float32(1), np.float32(2)])
    assert g.cache_size() == 2


def test_repeated_calls_of_changing_kinds_give_each_signatures_answer():
    # Calls alternate between argument kinds and signatures that the fast
    # path keys separately (numpy, kiln Array, Python scalar, a float64 array
    # converted to float32, a new static value): each gets its own answer and
    # the compiled signatures are only those JAX would make.
    f = kiln.jit(lambda x, s, n: x * s + n, static_argnums=2)
    x = np.arange(4, dtype=np.float32)
    calls = [(x, 2.0, 1), (kiln.device_put(x), np.float32(3), 1), (x.astype(np.float64), 2.0, 1),
             (x, 2.0, 5), (x[:2], 4.0, 1)]
    for _ in range(3):
        for xs, s, n in calls:
            expected = np.asarray(xs, np.float32) * np.float32(s) + n
            np.testing.assert_allclose(np.asarray(f(xs, s, n)), expected, rtol=1e-6)
    # f32[4] weak s n=1 (numpy, kiln and converted float64 share it), strong
    # s, n=5, f32[2].
    assert f.cache_size() == 4


def test_explain_recompiles(monkeypatch, capsys):
    monkeypatch.setattr(kiln.config, "explain_recompiles", True)

    def scale(x, params, factor):
        return x * params["w"] * factor
    f = kiln.jit(scale, static_argnums=2)
    w = {"w": np.float32(2.0)}
    f(np.ones((2, 3), np.float32), w, 1)
    f(np.ones((2, 3), np.float32), w, 1)       # cached: nothing printed
    f(np.ones((4, 3), np.float32), w, 1)
    f(np.ones((4, 3), np.float32), {"w": 2.0}, 1)
    f(np.ones((4, 3), np.float32), w, 5)
    f(np.ones((4, 3), np.float32), {"w": np.float32(2.0), "v": np.float32(1.0)}, 5)
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 5, lines
    assert "first time" in lines[0]
    assert "x changed: float32[2,3] -> float32[4,3]" in lines[1]
    assert "params['w'] changed: float32[] -> weak float32[]" in lines[2]
    assert "static argument 2 changed: 1 -> 5" in lines[3]
    assert "argument structure changed" in lines[4]


def test_jit_converts_to_jax_dtypes_like_jax_jit():
    """Without jax_enable_x64, float64/int64 inputs become float32/int32, as in jax.jit."""
    fn = lambda x, n: x * n  # noqa: E731
    x, n = np.linspace(0, 1, 5), np.arange(5)
    got, want = kiln.jit(fn)(x, n), jax.jit(fn)(x, n)
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_jit_unused_and_passthrough_arguments():
    """Every leaf is a parameter of the program (keep_unused), used or not."""
    f = kiln.jit(lambda unused, x, same: (x + 1, same))
    out, same = f(np.zeros(7, np.int8), np.arange(3, dtype=np.int32), np.float32(4))
    np.testing.assert_array_equal(np.asarray(out), np.arange(1, 4))
    assert float(np.asarray(same)) == 4.0 and isinstance(same, kiln.Array)
    assert len(f.lower(np.zeros(7, np.int8), np.arange(3, dtype=np.int32), np.float32(4)).compile()
               .parameter_types()) == 3


def test_jit_results_and_typed_keys():
    @kiln.jit
    def draw(key):
        key, sub = jax.random.split(key)
        return key, jax.random.uniform(sub, (3,))
    key, values = draw(jax.random.key(0))
    want_key, want_values = jax.jit(draw.fn)(jax.random.key(0))
    assert jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key)
    np.testing.assert_array_equal(jax.random.key_data(key), jax.random.key_data(want_key))
    assert isinstance(values, kiln.Array)
    np.testing.assert_allclose(np.asarray(values), np.asarray(want_values), rtol=1e-6)
    draw(key)  # a key result feeds the next call without recompiling
    assert draw.cache_size() == 1


def test_jit_under_a_jax_transformation_inlines():
    f = kiln.jit(lambda x: jnp.sin(x) * x)
    x = np.float32(0.7)
    np.testing.assert_allclose(jax.grad(f)(x), np.cos(x) * x + np.sin(x), rtol=1e-6)
    assert f.cache_size() == 0


def test_jit_keyword_arguments_and_static_argnames():
    f = kiln.jit(lambda x, *, scale, power: x ** power * scale, static_argnames="power")
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(f(x, scale=np.float32(2), power=2)), 2 * x ** 2)
    np.testing.assert_allclose(np.asarray(f(x, scale=np.float32(2), power=3)), 2 * x ** 3)
    assert f.cache_size() == 2


def test_lowered_text_is_what_kiln_compiles():
    f = kiln.jit(lambda x: x + 1)
    lowered = f.lower(np.zeros(3, np.float32))
    assert "stablehlo.add" in lowered.as_text()
    assert "sdy." not in lowered.as_text()
    assert [tuple(s) for s, _ in lowered.compile().parameter_types()] == [(3,)]
    abstract = jax.ShapeDtypeStruct((3,), jnp.float32)
    assert f.lower(abstract).as_text() == lowered.as_text()
    with pytest.raises(TypeError, match="lowered, not run"):
        f(abstract)

