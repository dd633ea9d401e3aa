"""A program that fails while it runs, in one process: the failure reaches
Python as an exception carrying kiln's located message, never a crash or a
hang, whichever way the program's result is read, and the process goes on
running programs afterwards.

Inside one process the runs are asynchronous: execute returns at once and a
failure arrives through the results' events (PJRT_Event error), which
jaxlib reads when the result is awaited (block_until_ready), viewed as a
NumPy array (an external reference to its memory) or passed to the next
program. The failure here is a user's bug: a shard_map over two kiln
devices whose lax.cond sends only device 0 into a psum when `flag` is set.
Device 1 finishes without reaching the collective, and device 0's psum
fails with "rank 1 stopped before reaching this collective" (XLA:CPU would
wait forever, so it runs only the calls with the flag clear, which are
compared with kiln's).

The message names the psum's line and the calls that led to it, out to the
line that traced the function; with `jax_send_traceback_to_runtime` set,
jaxlib passes the failing call's own location in the execute options
(PJRT_ExecuteOptions.call_location), and the message names that too.
"""
import json
import os
import subprocess
import sys

import pytest

from test_pjrt_plugin import plugin_environment

PROGRAM = '''
import json, sys
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P


def report(name, value):
    print(json.dumps({"name": name, "value": value}), flush=True)


def reduce_on_first(v):
    return jax.lax.psum(v, "d")  # FAILING OP


def step(v, flag):
    first = (jax.lax.axis_index("d") == 0) & (flag[0] > 0)
    return jax.lax.cond(first, reduce_on_first, lambda v: v * 2, v)  # CALLER


def build(platform):
    mesh = jax.sharding.Mesh(np.array(jax.devices(platform)[:2]), ("d",))
    f = jax.jit(jax.shard_map(step, mesh=mesh, in_specs=(P("d"), P()), out_specs=P("d"), check_vma=False))
    x = jax.device_put(np.arange(8, dtype=np.float32), NamedSharding(mesh, P("d")))
    flags = [jax.device_put(np.array([v], np.int32), NamedSharding(mesh, P())) for v in (0, 1)]
    return f, x, flags


kiln_f, kiln_x, (kiln_clear, kiln_set) = build("kiln")
cpu_f, cpu_x, (cpu_clear, _) = build("cpu")
want = np.asarray(cpu_f(cpu_x, cpu_clear))


def same(result):
    return bool(np.array_equal(np.asarray(result), want))


report("clear_flag_runs", same(kiln_f(kiln_x, kiln_clear)))  # TRACED HERE


def failure(read):
    try:
        read()
        return None
    except Exception as e:
        return f"{type(e).__name__}: {e}"


# Each way of reading a failed run's result.
report("block_until_ready", failure(lambda: kiln_f(kiln_x, kiln_set).block_until_ready()))  # FAILING CALL off
report("asarray", failure(lambda: np.asarray(kiln_f(kiln_x, kiln_set))))
report("next_program", failure(lambda: np.asarray(jnp.sin(kiln_f(kiln_x, kiln_set)) + 1)))
report("after_failures", same(kiln_f(kiln_x, kiln_clear)))


def call_again():
    return kiln_f(kiln_x, kiln_set).block_until_ready()  # FAILING CALL on


jax.config.update("jax_send_traceback_to_runtime", "on")
report("traceback_on", failure(call_again))
jax.config.update("jax_send_traceback_to_runtime", "full")
report("traceback_full", failure(call_again))
jax.config.update("jax_send_traceback_to_runtime", "off")
report("after_all", same(kiln_f(kiln_x, kiln_clear)))
'''

RUN_TIMEOUT_S = 300


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    path = tmp_path_factory.mktemp("one_process_errors") / "user_program.py"
    path.write_text(PROGRAM)
    env = plugin_environment(shared_devices=2)
    # A hang would show as this timeout instead of the test's: the failure
    # itself is immediate (device 1's exit ends device 0's wait).
    env["KILN_COLLECTIVE_TIMEOUT_S"] = "60"
    try:
        out = subprocess.run([sys.executable, str(path)], env=env, capture_output=True, text=True,
                             timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the program did not finish within {RUN_TIMEOUT_S} s (a hang)")
    lines = PROGRAM.splitlines()
    got = {"path": str(path), "output": out.stdout + out.stderr, "returncode": out.returncode,
           "line": {}, "reports": {}}
    for i, text in enumerate(lines, 1):
        for mark in ("# FAILING OP", "# CALLER", "# TRACED HERE", "# FAILING CALL off", "# FAILING CALL on"):
            if text.rstrip().endswith(mark):
                got["line"][mark] = i
    for line in out.stdout.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            got["reports"][record["name"]] = record["value"]
    return got


def message_of(run, name):
    assert run["returncode"] == 0, f"the program died (exit {run['returncode']}):\n{run['output'][-3000:]}"
    message = run["reports"].get(name)
    assert message, f"{name}: the failing run raised nothing:\n{run['output'][-3000:]}"
    return message


def assert_located(run, message):
    path, line = run["path"], run["line"]
    assert message.startswith("JaxRuntimeError: FAILED_PRECONDITION: kiln: "), message
    first = message.splitlines()[0]
    assert f"{path}:{line['# FAILING OP']}:" in first, first
    assert "'stablehlo.all_reduce' op" in first and "rank 1 stopped before reaching this collective" in first, first
    notes = [text for text in message.splitlines() if ": note: called from here" in text]
    want = [f"{path}:{line['# CALLER']}:", f"{path}:{line['# TRACED HERE']}:"]
    assert [note[:len(w)] for note, w in zip(notes, want)] == want and len(notes) == 2, f"want notes at {want}:\n{message}"


def test_the_program_runs_and_matches_xla_cpu_when_no_device_fails(run):
    assert run["reports"].get("clear_flag_runs") is True, run["output"][-3000:]


@pytest.mark.parametrize("read", ["block_until_ready", "asarray", "next_program"])
def test_a_failed_run_raises_kilns_located_message(run, read):
    message = message_of(run, read)
    assert_located(run, message)
    # jaxlib's default (jax_send_traceback_to_runtime off) sends no call location.
    assert "the call that failed" not in message, message


def test_the_process_runs_programs_after_the_failures(run):
    assert run["reports"].get("after_failures") is True, run["output"][-3000:]
    assert run["reports"].get("after_all") is True, run["output"][-3000:]


def test_the_failing_calls_line_when_jax_sends_it(run):
    # "on": jaxlib sends the calling line; it is not the traced line above.
    message = message_of(run, "traceback_on")
    assert_located(run, message)
    call = f"{run['path']}:{run['line']['# FAILING CALL on']}"
    assert message.splitlines()[-1] == f"note: the call that failed: {call}", message


def test_the_failing_calls_traceback_when_jax_sends_it(run):
    # "full": the whole traceback, innermost first, out to the module's line
    # (JAX's own frames come first when JAX's Python dispatch ran the call).
    message = message_of(run, "traceback_full")
    assert_located(run, message)
    frames = [text for text in message.splitlines()
              if text.startswith("note: the call that failed: ") or text.startswith("note: called from ")]
    assert frames and frames[0].startswith("note: the call that failed: "), message
    call = f"{run['path']}:{run['line']['# FAILING CALL on']} (call_again)"
    assert any(frame.endswith(f": {call}") or frame.endswith(f" from {call}") for frame in frames), message
    assert frames[-1].startswith(f"note: called from {run['path']}:") and frames[-1].endswith("(<module>)"), message
