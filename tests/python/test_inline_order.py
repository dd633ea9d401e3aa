"""When kiln.jit's calls run on the caller's thread, and that doing so keeps
the order of earlier asynchronous calls and donation (docs/runtime.md,
"Where an execution runs").

At one kernel thread, a program that a waiting caller may run (straight-line
or with bounded loops) runs on the calling thread when its arguments are
ready and no earlier execution on its device is pending: its results are
ready when the call returns. With an execution pending on the device it is
handed to a worker, as before. Results are compared with NumPy.
"""
import numpy as np
import pytest

import kiln

# Above the size that always runs inline (kInlineMaxBytes, 8 MB moved): a
# 1024x2048 f32 array read and written is 16 MB.
BIG = """
func.func @main(%x: tensor<1024x2048xf32>) -> tensor<1024x2048xf32> {
  %t = stablehlo.tanh %x : tensor<1024x2048xf32>
  return %t : tensor<1024x2048xf32>
}
"""

# A loop whose trip count is an argument: never run inline, always handed to
# a worker, so it is pending on the device for as long as it runs. It reads
# %x on every trip.
SLOW = """
func.func @main(%x: tensor<1024xf32>, %n: tensor<i32>) -> tensor<1024xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %half = stablehlo.constant dense<0.5> : tensor<1024xf32>
  %r:2 = stablehlo.while(%i = %zero, %acc = %x) : tensor<i32>, tensor<1024xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %next = stablehlo.add %i, %one : tensor<i32>
      %h = stablehlo.multiply %acc, %half : tensor<1024xf32>
      %s = stablehlo.add %h, %x : tensor<1024xf32>
      stablehlo.return %next, %s : tensor<i32>, tensor<1024xf32>
    }
  return %r#1 : tensor<1024xf32>
}
"""

# Doubles its argument: donated, its result may take the argument's memory.
DOUBLE = """
func.func @main(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %d = stablehlo.add %x, %x : tensor<1024xf32>
  return %d : tensor<1024xf32>
}
"""

# Trips enough for the loop to run for a while (tens of milliseconds or more
# on any host here); the tests never depend on how long.
TRIPS = 200_000


def slow_expected(x, n):
    acc = x.astype(np.float64)
    # acc -> acc / 2 + x converges to 2x; after many trips it is 2x to f32.
    for _ in range(min(n, 200)):
        acc = acc * 0.5 + x
    return acc.astype(np.float32)


@pytest.fixture(scope="module")
def client():
    return kiln.Client(num_threads=1)


@pytest.fixture(scope="module")
def programs(client):
    return client.compile(BIG), client.compile(SLOW), client.compile(DOUBLE)


def big_input(seed):
    return np.random.default_rng(seed).standard_normal((1024, 2048), dtype=np.float32)


def test_on_an_idle_device_the_call_runs_on_the_caller(client, programs):
    big, _, _ = programs
    x = big_input(0)
    arg = client.buffer_from_pyval(x)
    r = big.execute([arg])[0]
    assert r.is_ready(), "at one thread with nothing pending, the call runs on the caller's thread"
    np.testing.assert_allclose(r.numpy(), np.tanh(x), rtol=2e-6, atol=2e-6)


def test_with_an_execution_pending_the_call_is_handed_off_and_the_device_goes_idle_again(client, programs):
    big, slow, _ = programs
    x = np.linspace(-1, 1, 1024, dtype=np.float32)
    pending = slow.execute([client.buffer_from_pyval(x), client.buffer_from_pyval(np.int32(TRIPS))])[0]
    assert not pending.is_ready(), "the loop runs on a worker"
    b = big_input(1)
    # A call whose argument is ready, made while the loop is pending: the
    # caller does not run it ahead of the loop; it is handed to a worker.
    r = big.execute([client.buffer_from_pyval(b)])[0]
    np.testing.assert_allclose(r.numpy(), np.tanh(b), rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(pending.numpy(), slow_expected(x, TRIPS), rtol=1e-6)
    # Both done: the device is idle, so the next call runs on the caller again
    # (the pending count drops before the results become ready).
    r2 = big.execute([client.buffer_from_pyval(b)])[0]
    assert r2.is_ready()
    np.testing.assert_allclose(r2.numpy(), np.tanh(b), rtol=2e-6, atol=2e-6)


def test_a_call_on_a_pending_result_waits_for_it(client, programs):
    _, slow, double = programs
    x = np.linspace(0, 3, 1024, dtype=np.float32)
    pending = slow.execute([client.buffer_from_pyval(x), client.buffer_from_pyval(np.int32(TRIPS))])[0]
    r = double.execute([pending])[0]
    np.testing.assert_allclose(r.numpy(), 2 * slow_expected(x, TRIPS), rtol=1e-6)
    assert pending.is_ready()


@pytest.mark.parametrize("donate_while_pending", [True, False])
def test_donating_what_a_pending_execution_reads_leaves_it_intact(client, programs, donate_while_pending):
    # The loop reads x on every trip; a later call donates x, and its result
    # may be computed into x's memory only if nobody else still reads it.
    _, slow, double = programs
    x = np.linspace(-2, 2, 1024, dtype=np.float32)
    arg = client.buffer_from_pyval(x)
    pending = slow.execute([arg, client.buffer_from_pyval(np.int32(TRIPS))])[0]
    if not donate_while_pending:
        pending.block_until_ready()
    doubled = double.execute([arg], donate=[0])[0]
    assert arg.is_deleted()
    np.testing.assert_allclose(doubled.numpy(), 2 * x, rtol=1e-6)
    np.testing.assert_allclose(pending.numpy(), slow_expected(x, TRIPS), rtol=1e-6)
    with pytest.raises(kiln.KilnError, match="donated"):
        double.execute([arg])


def test_kiln_jit_runs_on_the_caller_when_idle_and_keeps_order(monkeypatch):
    # kiln.jit through the default client at one thread: a chain of calls,
    # each on the previous result, with one donating call in the middle.
    import jax.numpy as jnp
    monkeypatch.setattr(kiln.config, "num_threads", 1)
    step = kiln.jit(lambda x: jnp.tanh(x) * 0.5 + x)
    donating = kiln.jit(lambda x: x * 2.0, donate_argnums=0)
    x = big_input(2)
    a = kiln.device_put(x)
    r = step(a)
    assert r.is_ready(), "idle device, one thread: run on the caller"
    expected = np.tanh(x) * 0.5 + x
    r = donating(r)
    expected = expected * 2.0
    r = step(r)
    expected = np.tanh(expected) * 0.5 + expected
    np.testing.assert_allclose(np.asarray(r), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(np.asarray(a), x)  # never donated
