"""Errors while a program runs name the calls that led to the failing op,
as compile errors do (test_pjrt_locations.py): the op's line, then a note
"called from here (in <function>)" for each caller out to the line that
called the jax.jit function.

The run-time error a JAX program meets on kiln's cpu devices is a
collective whose peer process is gone: two processes (jax.distributed,
one kiln device each) run a shard_map whose psum sits in a lax.scan body
in a nested jax.jit; process 1 then leaves, and process 0's next run fails
in the psum. The user's program is written to a file so that its lines
are known here (# FAILING OP, # CALLER).
"""
import json
import os
import socket
import subprocess
import sys

import pytest

PROGRAM = '''
import json, os, sys
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

port, process_id = sys.argv[1], int(sys.argv[2])
jax.distributed.initialize(coordinator_address=f"127.0.0.1:{port}", num_processes=2, process_id=process_id,
                           initialization_timeout=60)
mesh = jax.sharding.Mesh(np.array(jax.devices()), ("d",))


def reduce_rows(v):
    return jax.lax.psum(v, "d")  # FAILING OP


def scan_body(c, _):
    return reduce_rows(c) * 0.5, None  # CALLER


@jax.jit
def helper(x):
    return jax.lax.scan(scan_body, x, None, length=2)[0]  # CALLER


def step(x):
    return helper(x) + 1  # CALLER


f = jax.jit(jax.shard_map(step, mesh=mesh, in_specs=P("d"), out_specs=P("d"), check_vma=False))
rows = NamedSharding(mesh, P("d"))
data = np.arange(8, dtype=np.float32).reshape(4, 2)
x = jax.make_array_from_callback(data.shape, rows, lambda index: data[index])


def leave():  # not sys.exit: jax.distributed's shutdown would wait for the other
    sys.stdout.flush()
    os._exit(0)


first = f(x)  # CALLER: JAX traced f here, and the later call runs what it compiled
first.block_until_ready()
c = data.reshape(2, 2, 2)  # each device's block; the psum adds them
for _ in range(2):
    c = np.broadcast_to(c.sum(0), c.shape) * 0.5
ok = all(np.allclose(np.asarray(s.data), (c + 1).reshape(4, 2)[s.index]) for s in first.addressable_shards)
print(json.dumps({"name": "first_run", "message": None if ok else "wrong values"}), flush=True)
if process_id == 1:
    leave()
try:
    f(x).block_until_ready()
    message = None
except Exception as e:
    message = f"{type(e).__name__}: {e}"
print(json.dumps({"name": "peer_gone", "message": message}), flush=True)
leave()
'''

RUN_TIMEOUT_S = 240


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    path = tmp_path_factory.mktemp("run_time_errors") / "user_program.py"
    path.write_text(PROGRAM)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env["JAX_PLATFORMS"] = "kiln"
    env["KILN_NUM_DEVICES"] = "1"
    env["KILN_COLLECTIVE_TIMEOUT_S"] = "60"
    port = str(free_port())
    workers = [subprocess.Popen([sys.executable, str(path), port, str(p)], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True) for p in range(2)]
    outputs = []
    try:
        for worker in workers:
            outputs.append(worker.communicate(timeout=RUN_TIMEOUT_S)[0])
    except subprocess.TimeoutExpired:
        for worker in workers:
            worker.kill()
            worker.communicate()
        pytest.fail(f"the two processes did not finish within {RUN_TIMEOUT_S} s")
    if any("built without Gloo" in out for out in outputs):
        pytest.skip("this kiln was built without Gloo (libgloo-dev): it runs in one process only")
    lines = PROGRAM.splitlines()
    got = {"path": str(path), "output": outputs[0],
           "line": next(i for i, text in enumerate(lines, 1) if "# FAILING OP" in text),
           "callers": [i for i, text in enumerate(lines, 1) if "# CALLER" in text]}
    for line in outputs[0].splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            got[record["name"]] = record["message"]
    return got


def test_the_program_ran_before_the_peer_left(run):
    assert "first_run" in run, run["output"][-3000:]
    assert run["first_run"] is None, run["first_run"]


def test_the_error_names_the_failing_line(run):
    message = run.get("peer_gone")
    assert message, f"the run without process 1 did not fail:\n{run['output'][-3000:]}"
    assert "a peer process stopped" in message, message
    first = message.splitlines()[0]
    assert f"{run['path']}:{run['line']}:" in first, f"no {run['path']}:{run['line']}: in\n{message}"


def test_the_error_names_each_callers_line(run):
    # The psum's line, then the scan body's line, the scan's, the nested
    # jit's call, and the line of the call that traced the jax.jit function
    # (JAX recorded the locations then; the failing call reuses the
    # executable), in order.
    message = run.get("peer_gone") or ""
    notes = [line for line in message.splitlines() if ": note: called from here" in line]
    want = [f"{run['path']}:{line}:" for line in run["callers"]]
    assert [note.split(" note:")[0][:len(w)] for note, w in zip(notes, want)] == want and len(notes) == len(want), \
        f"want notes at {want} in\n{message}"
    assert "(in scan_body)" in notes[0] and "(in helper)" in notes[1] and "(in step)" in notes[2], notes
