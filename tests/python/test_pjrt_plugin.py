"""kiln's PJRT plugin under unmodified JAX (JAX_PLATFORMS=kiln).

Each suite runs tests/python/pjrt_worker.py once in a subprocess with
JAX_PLATFORMS=kiln,cpu and two kiln devices: every zoo case and corpus
program goes through plain jax.jit on a kiln device and on XLA:CPU, and the
results are compared there; the behaviour suite covers devices, donation,
deleted buffers, errors, the profiler and cost analysis. Each check is one
test here. The plugin's platform never enters this process's JAX.
"""
import json
import math
import os
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "scripts"))

from gen_jax_corpus import PROGRAMS  # noqa: E402
from test_jit_zoo import CASES  # noqa: E402

BEHAVIOUR = ["default_backend_is_kiln", "device_put_0", "device_put_1", "donated_argument_is_deleted",
             "deleted_buffer_raises", "unsupported_op_raises_with_kiln_message", "block_until_ready_and_copy",
             "memory_stats", "pmap_with_collectives", "jax_profiler_trace", "cost_analysis"]


def plugin_environment(shared_devices=None):
    """The environment of a child Python that runs JAX on kiln's plugin (two
    devices). With `shared_devices`, kiln and XLA:CPU both get that many
    devices, so sharded programs can be compared device for device."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env["JAX_PLATFORMS"] = "kiln,cpu"
    env["KILN_NUM_DEVICES"] = str(shared_devices or 2)
    if shared_devices:
        env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") +
                            f" --xla_force_host_platform_device_count={shared_devices}").strip()
    return env


def run_reporting_checks(program, env, timeout=600):
    """Runs `program` (source text, or the path of a script) in a fresh Python
    under `env`. It prints one JSON object per check ({"name", "ok",
    "detail"}); returns them by name, with the child's stderr under "stderr"
    (for a check that never reported)."""
    command = [str(program)] if isinstance(program, pathlib.Path) else ["-c", program]
    out = subprocess.run([sys.executable, *command], env=env, capture_output=True, text=True, timeout=timeout)
    results = {"stderr": out.stderr}
    for line in out.stdout.splitlines():
        if line.startswith("{"):
            check = json.loads(line)
            results[check["name"]] = check
    return results


def run_worker(*args, timeout=1200):
    process = subprocess.run([sys.executable, str(HERE / "pjrt_worker.py"), *args], env=plugin_environment(),
                             capture_output=True, text=True, timeout=timeout)
    lines = [json.loads(line) for line in process.stdout.splitlines() if line.startswith("{")]
    return process, lines


_suites = {}


def suite_results(suite):
    if suite not in _suites:
        process, lines = run_worker(suite)
        _suites[suite] = (process, {line["name"]: line for line in lines if "name" in line})
    return _suites[suite]


def check(suite, name):
    process, results = suite_results(suite)
    if name not in results:
        pytest.fail(f"the {suite} worker reported nothing for {name} (exit {process.returncode}):\n"
                    f"{process.stderr[-3000:]}")
    assert results[name]["ok"], results[name]["detail"]


@pytest.mark.parametrize("name", [case.name for case in CASES])
def test_zoo_case_matches_xla_cpu(name):
    check("zoo", name)


@pytest.mark.parametrize("name", [program.name for program in PROGRAMS])
def test_corpus_program_matches_xla_cpu(name):
    check("corpus", name)


@pytest.mark.parametrize("name", BEHAVIOUR)
def test_behaviour(name):
    check("behaviour", name)


def test_executables_serialize_and_load():
    check("serialization", "serialize_and_load")


def test_kiln_compile_cache_serves_the_plugin(tmp_path):
    """JAX keeps its persistent cache to platforms it lists by name, so the
    plugin caches compiled kernels in kiln's own cache ($KILN_CACHE_DIR)."""
    env = plugin_environment()
    env["KILN_CACHE_DIR"] = str(tmp_path)
    code = "import jax, jax.numpy as jnp; print(float(jax.jit(lambda t: (t * t).sum())(jnp.arange(4.0))))"
    outputs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
               for _ in range(2)]
    for out in outputs:
        assert out.stdout.strip() == "14.0", out.stderr[-3000:]
    assert any(tmp_path.rglob("*")), "the plugin wrote nothing to KILN_CACHE_DIR"


def test_jax_compilation_cache_dir_keeps_kilns_kernels(tmp_path):
    """jax_compilation_cache_dir given, kiln keeps its compiled kernels in its
    kiln/ subdirectory (JAX's own cache skips platforms it does not name), and
    a second process reads them back instead of compiling again."""
    env = plugin_environment()
    env.pop("KILN_CACHE_DIR", None)
    code = (f"import jax, numpy as np\njax.config.update('jax_compilation_cache_dir', {str(tmp_path)!r})\n"
            "print(float(jax.jit(lambda t: (t * t).sum())(np.arange(4.0, dtype=np.float32))))")
    seen = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
        assert out.stdout.strip() == "14.0", out.stderr[-3000:]
        seen.append({p.name: p.stat().st_mtime_ns for p in (tmp_path / "kiln").rglob("*") if p.is_file()})
    assert seen[0], "nothing was cached in <jax_compilation_cache_dir>/kiln"
    assert seen[1] == seen[0], "the second process compiled again instead of reading the cache"


def test_kiln_trace_records_the_plugins_work(tmp_path):
    env = plugin_environment()
    env["KILN_TRACE"] = str(tmp_path / "trace.json")
    code = ("import jax, jax.numpy as jnp\n"
            "f = jax.jit(lambda a, b: jnp.tanh(a @ b).sum())\n"
            "print(float(f(jnp.ones((8, 8)), jnp.ones((8, 8)))))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and abs(float(out.stdout) - 64 * math.tanh(8.0)) < 1e-4, out.stderr[-3000:]
    events = json.loads((tmp_path / "trace.json").read_text())["traceEvents"]
    categories = {e.get("cat") for e in events}
    assert {"compile", "run", "kernel", "transfer"} <= categories, categories


def test_plugin_stays_out_of_jax_unless_asked_for():
    env = plugin_environment()
    del env["JAX_PLATFORMS"]
    out = subprocess.run([sys.executable, "-c", "import jax; print(jax.default_backend())"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == "cpu", out.stderr
