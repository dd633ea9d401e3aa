"""Misuse of kiln's Python API and of kiln.jit gives a Python exception carrying
kiln's message and leaves the process usable: after each mistake the next
call works and gives the right values. Covered: wrong dtypes and shapes,
non-array arguments, deleted and donated arrays, programs too large for the
memory (docs/limits.md), and KeyboardInterrupt while waiting for a long run
(docs/python.md, "Errors and interrupts")."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import kiln

ADD = """
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.add %x, %y : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""

# acc = sine(acc) + 1 on 1024 floats, %n times: seconds for a few million trips.
LOOP = """
func.func @main(%n: tensor<i32>) -> tensor<1024xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %init = stablehlo.constant dense<0.0> : tensor<1024xf32>
  %ones = stablehlo.constant dense<1.0> : tensor<1024xf32>
  %r:2 = stablehlo.while(%i = %zero, %acc = %init) : tensor<i32>, tensor<1024xf32>
   cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %k = stablehlo.add %i, %one : tensor<i32>
    %s = stablehlo.sine %acc : tensor<1024xf32>
    %a = stablehlo.add %s, %ones : tensor<1024xf32>
    stablehlo.return %k, %a : tensor<i32>, tensor<1024xf32>
  }
  return %r#1 : tensor<1024xf32>
}
"""


@pytest.fixture(scope="module")
def add():
    return kiln.compile(ADD)


def x():
    return np.arange(6, dtype=np.float32).reshape(2, 3)


def expect_add_still_works(add):
    np.testing.assert_array_equal(np.asarray(add(x(), x())), 2 * x())


@pytest.mark.parametrize("bad, message", [
    (np.ones((2, 3), np.int64), r"argument 1: expected tensor<2x3xf32>, given tensor<2x3xi64>"),
    (np.ones((2, 3), np.complex64), r"argument 1: expected tensor<2x3xf32>, given tensor<2x3xcomplex<f32>>"),
    (np.ones((3, 2), np.float32), r"argument 1: expected tensor<2x3xf32>, given tensor<3x2xf32>"),
    (np.ones((2, 3, 1), np.float32), r"argument 1: expected tensor<2x3xf32>, given tensor<2x3x1xf32>"),
    (np.float32(1), r"argument 1: expected tensor<2x3xf32>, given tensor<f32>"),
])
def test_wrong_dtype_or_shape(add, bad, message):
    with pytest.raises(kiln.KilnError, match=message) as error:
        add(x(), bad)
    assert error.value.code == "INVALID_ARGUMENT"
    expect_add_still_works(add)


@pytest.mark.parametrize("bad, dtype", [
    ("text", "str"), (None, "object"), ({"a": 1}, "object"), (object(), "object"),
    (np.array([["a", "b", "c"]] * 2), "str"),
])
def test_non_array_argument(add, bad, dtype):
    with pytest.raises(kiln.KilnError, match=rf"kiln has no element type for numpy dtype '{dtype}") as error:
        add(x(), bad)
    assert error.value.code == "INVALID_ARGUMENT"
    expect_add_still_works(add)


def test_deleted_array(add):
    a = kiln.device_put(x())
    a.delete()
    with pytest.raises(kiln.KilnError, match="argument 1 was deleted") as error:
        add(x(), a)
    assert error.value.code == "FAILED_PRECONDITION"
    with pytest.raises(kiln.KilnError, match="deleted"):
        np.asarray(a)
    with pytest.raises(kiln.KilnError, match="deleted"):
        a.block_until_ready()
    expect_add_still_works(add)


def test_donated_array(add):
    a = kiln.device_put(x())
    np.testing.assert_array_equal(np.asarray(add(a, x(), donate=[0])), 2 * x())
    assert a.is_deleted() and a.is_donated()
    with pytest.raises(kiln.KilnError, match="argument 0 was donated to an execution") as error:
        add(a, x())
    assert error.value.code == "FAILED_PRECONDITION"
    with pytest.raises(kiln.KilnError, match="donated"):
        np.asarray(a)
    expect_add_still_works(add)


def test_program_too_large_for_the_memory(add):
    huge = """
func.func @main() -> tensor<100000x100000x100xf32> {
  %0 = stablehlo.iota dim = 0 : tensor<100000x100000x100xf32>
  return %0 : tensor<100000x100000x100xf32>
}
"""
    with pytest.raises(kiln.KilnError, match=r"<input>:3:8: .*'stablehlo.iota' op result 0 "
                                             r"\(tensor<100000x100000x100xf32>\) needs 3.64 TiB, more than "
                                             r"the memory limit") as error:
        kiln.compile(huge)
    assert error.value.code == "RESOURCE_EXHAUSTED"
    expect_add_still_works(add)


jax = pytest.importorskip("jax")
jnp = jax.numpy


def test_jit_wrong_and_non_array_arguments():
    f = kiln.jit(lambda a, b: a * b)
    with pytest.raises(TypeError, match=r"argument b is a str"):
        f(x(), "text")
    with pytest.raises(TypeError):  # None is an empty pytree, passed on as with jax.jit
        f(x(), None)
    with pytest.raises(TypeError):  # JAX's own message: shapes that do not broadcast
        f(x(), np.ones((4, 5), np.float32))
    # A new dtype is a new trace, as with jax.jit; an unsupported one is an error.
    np.testing.assert_array_equal(np.asarray(f(np.int32(3), np.int32(4))), 12)
    # (JAX's message, from tracing: kiln.jit passes numpy arrays on as jax.jit does.)
    with pytest.raises((TypeError, ValueError), match="dtype"):
        f(x(), np.array([["a", "b", "c"]] * 2))
    np.testing.assert_array_equal(np.asarray(f(x(), x())), x() * x())


def test_jit_deleted_and_donated_arrays():
    f = kiln.jit(lambda a: a + 1.0, donate_argnums=0)
    a = kiln.device_put(x())
    np.testing.assert_array_equal(np.asarray(f(a)), x() + 1)
    assert a.is_deleted()
    with pytest.raises(kiln.KilnError, match="donated") as error:
        f(a)
    assert error.value.code == "FAILED_PRECONDITION"
    b = kiln.device_put(x())
    b.delete()
    with pytest.raises(kiln.KilnError, match="deleted"):
        kiln.jit(lambda v: v * 2.0)(b)
    np.testing.assert_array_equal(np.asarray(f(kiln.device_put(x()))), x() + 1)


# The child: a long run of LOOP through kiln.compile and one of a fori_loop
# through kiln.jit, each interrupted by SIGINT from a timer thread while the
# main thread waits for the result; then a short call of each must work.
INTERRUPTED_CHILD = textwrap.dedent("""
    import os, signal, sys, threading, time
    import numpy as np
    import kiln

    # Python installs its SIGINT handler only where SIGINT was not ignored:
    # a parent run in the background by a non-interactive shell (`cmd &`)
    # passes SIGINT on ignored, and the timer's SIGINT would do nothing.
    signal.signal(signal.SIGINT, signal.default_int_handler)

    def interrupt_after(seconds):
        threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT)).start()

    def interrupted(call):
        start = time.monotonic()
        interrupt_after(0.3)
        try:
            np.asarray(call())
        except KeyboardInterrupt:
            print("interrupted", round(time.monotonic() - start, 2), flush=True)
            return
        print("finished before the interrupt", round(time.monotonic() - start, 2), flush=True)

    loop = kiln.compile(sys.argv[1])
    interrupted(lambda: loop(np.int32(2_000_000)))
    short = np.asarray(loop(np.int32(3)))
    print("compile next call", float(short[0]), flush=True)

    import jax, jax.numpy as jnp
    @kiln.jit
    def count(n):
        return jax.lax.fori_loop(0, n, lambda i, a: jnp.sin(a) + 1.0, jnp.zeros(1024, jnp.float32))
    print("jit warm", float(np.asarray(count(np.int32(1)))[0]), flush=True)
    interrupted(lambda: count(np.int32(2_000_000)))
    print("jit next call", float(np.asarray(count(np.int32(3)))[0]), flush=True)
""")


def test_keyboard_interrupt_during_a_long_run_leaves_the_process_usable():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    child = subprocess.run([sys.executable, "-c", INTERRUPTED_CHILD, LOOP], env=env, capture_output=True,
                           text=True, timeout=600)
    assert child.returncode == 0, child.stdout + child.stderr
    lines = child.stdout.splitlines()
    three = np.float32(np.sin(np.sin(np.float32(1.0)) + 1) + 1)  # sin(sin(sin(0) + 1) + 1) + 1
    interrupts = [line for line in lines if line.startswith("interrupted")]
    assert len(interrupts) == 2, child.stdout + child.stderr
    for line in interrupts:  # promptly: the waits look for signals every 50 ms
        assert float(line.split()[1]) < 10, child.stdout
    values = {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in lines if "call" in line}
    assert values["compile next call"] == pytest.approx(three, rel=1e-5), child.stdout
    assert values["jit next call"] == pytest.approx(three, rel=1e-5), child.stdout
