"""Unmodified multi-process JAX on kiln: two processes call
jax.distributed.initialize on a free localhost port, build a mesh over both
processes' kiln devices and run sharded programs whose instances span the
processes (kiln's PJRT plugin; collectives in the host's shared memory, as
both processes are on this host, Gloo otherwise: docs/distributed.md).
Each process checks its shards against NumPy (tests/python/
jax_distributed_worker.py); here every case must pass in both processes.
Then the failures: programs that differ between the processes, and a process
that leaves, must fail the others with a clear error within
KILN_COLLECTIVE_TIMEOUT_S, never hang. Every run is bounded by a timeout.
"""
import json
import os
import pathlib
import re
import socket
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
PROCESSES = 2
CASES = ["devices", "psum_shard_map", "all_gather_shard_map", "data_parallel_matmul", "gradient_of_sharded_loss",
         "two_by_two_mesh"]
RUN_TIMEOUT_S = 240  # one multi-process run, start to finish


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_processes(mode, devices_per_process, collective_timeout_s, extra_env=None):
    """Runs one worker per process; returns, per process, its JSON lines by name and its output."""
    env = dict(os.environ)
    env.update(extra_env or {})
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env["JAX_PLATFORMS"] = "kiln"
    env["KILN_NUM_DEVICES"] = str(devices_per_process)
    env["KILN_COLLECTIVE_TIMEOUT_S"] = str(collective_timeout_s)
    port = str(free_port())
    workers = [subprocess.Popen([sys.executable, str(HERE / "jax_distributed_worker.py"), port, str(PROCESSES), str(p),
                                 mode], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
               for p in range(PROCESSES)]
    outputs = []
    try:
        for worker in workers:
            out, _ = worker.communicate(timeout=RUN_TIMEOUT_S)
            outputs.append(out)
    except subprocess.TimeoutExpired:
        for worker in workers:
            worker.kill()
            worker.communicate()
        pytest.fail(f"the {mode} run of {PROCESSES} processes did not finish within {RUN_TIMEOUT_S} s")
    if any("built without Gloo" in out for out in outputs):
        pytest.skip("this kiln was built without Gloo (libgloo-dev): it runs in one process only")
    results = []
    for out in outputs:
        lines = {}
        for line in out.splitlines():
            if line.startswith("{"):
                record = json.loads(line)
                lines[record["name"]] = record
        results.append((lines, out))
    return results


@pytest.fixture(scope="module", params=[1, 2], ids=["1_device_each", "2_devices_each"])
def program_runs(request):
    return run_processes("programs", request.param, collective_timeout_s=120)


@pytest.mark.parametrize("case", CASES)
def test_sharded_program_across_processes(program_runs, case):
    for process, (lines, out) in enumerate(program_runs):
        assert case in lines, f"process {process} did not report {case}:\n{out[-4000:]}"
        assert lines[case]["ok"], f"process {process}, {case}: {lines[case]['detail']}"


def test_different_programs_fail_clearly():
    # Each process waits for the other's keys of its own program, then fails.
    for process, (lines, out) in enumerate(run_processes("diverge", 1, collective_timeout_s=5)):
        assert "diverged" in lines, f"process {process}:\n{out[-4000:]}"
        assert lines["diverged"]["ok"], f"process {process}: {lines['diverged']['detail']}"
        assert "within 5 s (KILN_COLLECTIVE_TIMEOUT_S)" in lines["diverged"]["detail"]


@pytest.mark.parametrize("transport", ["shared_memory", "gloo"])
def test_a_process_that_left_fails_the_others_at_once(transport):
    # Both processes are on this host, so their collectives meet in the host's
    # shared memory, where a waiting peer sees the process gone; over Gloo
    # (KILN_HOST_SHARED_MEMORY=0) its connections close as it goes. Either
    # way no waiting for the timeout (60 s here).
    extra = {"KILN_HOST_SHARED_MEMORY": "0"} if transport == "gloo" else {}
    lines, out = run_processes("die", 1, collective_timeout_s=60, extra_env=extra)[0]
    assert "peer_died" in lines, out[-4000:]
    assert lines["peer_died"]["ok"], lines["peer_died"]["detail"]
    detail = lines["peer_died"]["detail"]
    if transport == "gloo":
        assert "failed over Gloo" in detail and "within 60 s" in detail  # names the bound it did not need
    else:
        assert "failed in shared memory: a peer process stopped: rank 1's process (pid" in detail, detail


def test_train_digits_over_two_processes_matches_one_device():
    # examples/train_digits.py --processes 2: data parallel over both
    # processes' kiln devices, against XLA:CPU's one-device step.
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env.pop("JAX_PLATFORMS", None)
    env["KILN_NUM_THREADS"] = "1"  # two processes share this host's cores
    env["KILN_COLLECTIVE_TIMEOUT_S"] = "120"
    run = subprocess.run([sys.executable, str(HERE.parents[1] / "examples" / "train_digits.py"), "--processes", "2",
                          "--quick", "--epochs", "1", "--model", "mlp"],
                         capture_output=True, text=True, env=env, timeout=RUN_TIMEOUT_S)
    assert run.returncode == 0, run.stdout + run.stderr[-4000:]
    assert "data parallel over 2 devices of 2 processes" in run.stdout, run.stdout
    difference = re.search(r"largest parameter difference kiln vs jax.jit ([\d.e+-]+)", run.stdout)
    assert difference and float(difference.group(1)) < 1e-4, run.stdout
