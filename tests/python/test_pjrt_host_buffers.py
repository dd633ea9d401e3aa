"""Host buffers through the plugin without copies (docs/pjrt.md, "Host
buffers without a copy"): jax.device_put of a NumPy array computes on the
array's memory, np.asarray of a kiln jax.Array is a read-only view of the
buffer's, and both stay right next to XLA:CPU where kiln must copy instead
(misaligned, strided data) or must not write (donation).

The checks run in one subprocess with JAX_PLATFORMS=kiln,cpu, which prints
one JSON line per check (as tests/python/pjrt_worker.py does).
"""

import pytest

from test_pjrt_plugin import plugin_environment, run_reporting_checks

PROGRAM = r'''
import gc, json, traceback, weakref
import jax, jax.numpy as jnp, numpy as np
import ml_dtypes

KILN, CPU = jax.devices("kiln")[0], jax.devices("cpu")[0]

def report(name, ok, detail=""):
    print(json.dumps({"name": name, "ok": bool(ok), "detail": str(detail)[-2000:]}), flush=True)

def check(name):
    def run(fn):
        try:
            ok, detail = fn()
            report(name, ok, detail)
        except Exception:
            report(name, False, traceback.format_exc())
    return run

def shares(array, host):
    return array.unsafe_buffer_pointer() == host.ctypes.data

@check("device_put_borrows_aligned_numpy")
def _():
    a = np.arange(1 << 16, dtype=np.float32)
    x = jax.device_put(a, KILN)
    y = jax.jit(lambda t: jnp.sin(t) * 2)(x)
    want = jax.jit(lambda t: jnp.sin(t) * 2)(jax.device_put(a, CPU))
    return shares(x, a) and np.allclose(np.asarray(y), np.asarray(want), rtol=1e-6), (shares(x, a),)

@check("the_caller_array_is_released_when_the_buffer_goes")
def _():
    a = np.arange(1 << 12, dtype=np.float32)
    alive = weakref.ref(a)
    x = jax.device_put(a, KILN)
    del a
    gc.collect()
    held = alive() is not None  # jaxlib keeps it for kiln
    x.delete()
    del x
    for _ in range(3):  # jaxlib drops its reference at its next garbage collection
        jax.device_put(np.ones(4, np.float32), KILN).block_until_ready()
        gc.collect()
    return held and alive() is None, (held, alive() is None)

@check("misaligned_numpy_is_copied")
def _():
    raw = np.zeros((1 << 12) * 4 + 1, dtype=np.uint8)
    a = raw[1:].view(np.float32)
    a[:] = np.arange(1 << 12)
    x = jax.device_put(a, KILN)
    a[:] = -1  # kiln copied: the buffer keeps the values it was given
    return not shares(x, a) and np.array_equal(np.asarray(x), np.arange(1 << 12, dtype=np.float32)), ""

@check("strided_numpy_is_gathered")
def _():
    a = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
    for view in (a.T, a[::2, 1::3], a[:, ::-1]):
        got = np.asarray(jax.jit(lambda t: t * 3)(jax.device_put(view, KILN)))
        want = np.asarray(jax.jit(lambda t: t * 3)(jax.device_put(view, CPU)))
        if not np.array_equal(got, want):
            return False, view.strides
    return True, ""

@check("donating_a_borrowed_buffer_leaves_the_numpy_array_alone")
def _():
    a = np.arange(1 << 14, dtype=np.float32)
    before = a.copy()
    x = jax.device_put(a, KILN)
    y = jax.jit(lambda t: t * 2 + 1, donate_argnums=0)(x)
    return x.is_deleted() and np.array_equal(np.asarray(y), before * 2 + 1) and np.array_equal(a, before), ""

@check("asarray_is_a_read_only_view")
def _():
    a = np.arange(1 << 14, dtype=np.float32)
    y = jax.jit(lambda t: t * 2)(jax.device_put(a, KILN))
    v = np.asarray(y)
    view = v.ctypes.data == y.unsafe_buffer_pointer()
    return view and not v.flags.writeable and np.array_equal(v, a * 2), (view, v.flags.writeable)

@check("asarray_view_outlives_delete_and_donation")
def _():
    a = np.arange(1 << 14, dtype=np.float32)
    f = jax.jit(lambda t: t * 2)
    y = f(jax.device_put(a, KILN))
    v = np.asarray(y)
    z = jax.jit(lambda t: t + 1, donate_argnums=0)(y)  # must not compute into the viewed memory
    w = np.asarray(z)
    again = f(jax.device_put(a + 5, KILN)).block_until_ready()  # may reuse freed memory
    ok = y.is_deleted() and np.array_equal(v, a * 2) and np.array_equal(w, a * 2 + 1)
    u = np.asarray(f(jax.device_put(a, KILN)))
    f(jax.device_put(a, KILN)).delete()
    return ok and np.array_equal(u, a * 2), ""

@check("every_dtype_round_trips_like_xla_cpu")
def _():
    rng = np.random.default_rng(0)
    bad = []
    for dtype in (np.bool_, np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.float16,
                  ml_dtypes.bfloat16, np.float32, np.float64, np.complex64, np.complex128, ml_dtypes.int4):
        host = (rng.integers(-7, 7, size=(33, 65)) if dtype != np.bool_ else rng.random((33, 65)) < 0.5).astype(dtype)
        for arr in (host, host[:, 1:]):
            got = np.asarray(jax.jit(lambda t: t)(jax.device_put(arr, KILN)))
            want = np.asarray(jax.jit(lambda t: t)(jax.device_put(arr, CPU)))
            if got.dtype != want.dtype or not np.array_equal(got, want) or not np.array_equal(got, arr):
                bad.append(str(np.dtype(dtype)))
    return not bad, bad

@check("jit_on_numpy_arguments")
def _():
    a = np.linspace(-1, 1, 4096, dtype=np.float32).reshape(64, 64)
    got = np.asarray(jax.jit(lambda t: jnp.tanh(t @ t))(a))
    want = np.tanh(a @ a)
    return np.allclose(got, want, atol=1e-5), ""
'''

CHECKS = ["device_put_borrows_aligned_numpy", "the_caller_array_is_released_when_the_buffer_goes",
          "misaligned_numpy_is_copied", "strided_numpy_is_gathered",
          "donating_a_borrowed_buffer_leaves_the_numpy_array_alone", "asarray_is_a_read_only_view",
          "asarray_view_outlives_delete_and_donation", "every_dtype_round_trips_like_xla_cpu",
          "jit_on_numpy_arguments"]

_results = {}


def results():
    if not _results:
        _results.update(run_reporting_checks(PROGRAM, plugin_environment()))
    return _results


@pytest.mark.parametrize("name", CHECKS)
def test_host_buffer(name):
    got = results()
    assert name in got, f"the subprocess reported nothing for {name}:\n{got['stderr'][-3000:]}"
    assert got[name]["ok"], got[name]["detail"]
