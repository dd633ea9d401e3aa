"""How the harness measures: wall time of alternating runs, peak resident memory,
agreement between systems, and the machine's roofs (triad bandwidth, sgemm rate)."""
import gc
import math
import os
import re
import resource
import time

import numpy as np


# ----------------------------------------------------------------------------- time

def summarize(seconds):
    """Median and spread of per-call times."""
    s = np.asarray(seconds, dtype=np.float64)
    p25, median, p75 = np.percentile(s, [25, 50, 75])
    return {"median_s": float(median), "p25_s": float(p25), "p75_s": float(p75), "min_s": float(s.min()),
            "max_s": float(s.max()), "runs": int(s.size), "spread": float((p75 - p25) / median) if median > 0 else 0.0}


def time_call(call, repeats=1):
    """Seconds per call of `repeats` back-to-back calls."""
    start = time.perf_counter()
    for _ in range(repeats):
        call()
    return (time.perf_counter() - start) / repeats


def alternate(calls, runs, min_sample_s, budget_s, warmup, pause_s=0.01):
    """Times every callable in `calls` (name -> call) in rounds, one sample of each per round
    (A B C A B C ...), so slow drifts of the machine hit every system alike. Calls shorter than
    `min_sample_s` are repeated within a sample. Stops after `runs` rounds, or after at least
    three once `budget_s` is spent. Returns name -> (per-call seconds list, repeats), or an
    exception for a system whose call raised."""
    repeats, failed = {}, {}
    for name, call in calls.items():
        if warmup == 0:
            repeats[name] = 1
            continue
        try:
            per_call = min(time_call(call) for _ in range(max(1, warmup)))
        except Exception as e:
            failed[name] = e
            continue
        repeats[name] = max(1, min(10000, math.ceil(min_sample_s / max(per_call, 1e-9))))
    samples = {name: [] for name in repeats}
    start = time.perf_counter()
    for round_index in range(runs):
        for name in list(samples):
            time.sleep(pause_s)  # lets the previous system's spinning worker threads go idle
            try:
                samples[name].append(time_call(calls[name], repeats[name]))
            except Exception as e:
                failed[name] = e
                del samples[name]
        if round_index >= 2 and time.perf_counter() - start > budget_s:
            break
    out = {name: (s, repeats[name]) for name, s in samples.items()}
    out.update(failed)
    return out


# ----------------------------------------------------------------------------- memory

def _status_kib(field):
    try:
        with open("/proc/self/status") as f:
            match = re.search(rf"^{field}:\s+(\d+) kB", f.read(), re.M)
        return int(match.group(1)) if match else None
    except OSError:
        return None


class PeakMemory:
    """Peak resident memory of a region of this process, above the resident size at its start.

    Linux: resets the process's high-water mark (/proc/self/clear_refs, "5") and reads VmHWM.
    Elsewhere: ru_maxrss, whose delta only shows a new process-wide peak."""

    def __init__(self):
        gc.collect()
        self.method = "VmHWM reset"
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
        except OSError:
            self.method = "ru_maxrss delta"
        self.start = self._current()
        self.ru_start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        self.parts_start = self._parts()

    @staticmethod
    def _parts():
        return [(_status_kib(field) or 0) * 1024 for field in ("RssAnon", "RssFile")]

    @staticmethod
    def _current():
        kib = _status_kib("VmRSS")
        return kib * 1024 if kib is not None else 0

    def resident_added(self):
        """(anonymous, file-backed) resident bytes added since the start, now (Linux; zeros
        elsewhere). The peak counts both; file-backed pages are shared library code and data
        touched for the first time (an LLVM back end's code generator: tens of MB), which the
        system can drop, while anonymous pages are the heap, stacks and buffers."""
        return tuple(max(0, now - then) for now, then in zip(self._parts(), self.parts_start))

    def result(self):
        """(peak bytes above the start, peak total bytes of the process)."""
        if self.method == "VmHWM reset":
            total = (_status_kib("VmHWM") or 0) * 1024
            return max(0, total - self.start), total
        total = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        return max(0, total - max(self.ru_start, self.start)), total


# ----------------------------------------------------------------------------- agreement

def compare(results, reference, tolerance):
    """Worst error of `results` against `reference`, per output relative to that output's max |ref|.
    Returns (passed, max_rel_err, message)."""
    if len(results) != len(reference):
        return False, None, f"{len(results)} results, reference has {len(reference)}"
    worst = 0.0
    for i, (got, want) in enumerate(zip(results, reference)):
        got, want = np.asarray(got), np.asarray(want)
        if got.shape != want.shape:
            return False, None, f"result {i}: shape {got.shape}, reference {want.shape}"
        got, want = got.astype(np.float64), want.astype(np.float64)
        if not np.array_equal(np.isnan(got), np.isnan(want)):
            return False, None, f"result {i}: NaN where the reference has none (or the reverse)"
        finite = ~np.isnan(want)
        if not finite.any():
            continue
        scale = np.max(np.abs(want[finite]))
        err = np.max(np.abs(got[finite] - want[finite])) / (scale if scale > 0 else 1.0)
        worst = max(worst, float(err))
    passed = worst <= tolerance
    return passed, worst, "" if passed else f"max error {worst:.2e} of max |ref| > tolerance {tolerance:.0e}"


# ----------------------------------------------------------------------------- roofs

def _native_binary(name):
    """A bench/native program as built (kiln_triad_bench, kiln_chain_bench), or None."""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dirs = [os.environ["KILN_BUILD_DIR"]] if os.environ.get("KILN_BUILD_DIR") else []
    dirs += [os.path.join(repo, "build"), os.path.join(repo, "build-runtime")]
    for d in dirs:
        path = os.path.join(d, "bin", name)
        if os.access(path, os.X_OK):
            return path
    return None


def _run_native(name, args):
    """The JSON line a bench/native program prints, or None where it is not built or fails."""
    import json
    import subprocess
    binary = _native_binary(name)
    if not binary:
        return None
    try:
        out = subprocess.run([binary] + args, capture_output=True, text=True, timeout=300, check=True).stdout
        return json.loads(out)
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def triad_roof(n, runs, threads=None):
    """STREAM triad a = b + s*c, bytes counted as STREAM does (3 arrays of n f32, no write-allocate).
    Best of three implementations: NumPy in place (two passes: multiply into a, add b into a), an
    XLA-compiled fused loop (one pass, output donated back into a), and STREAM's own loop in C++ on
    `threads` threads (every core when None) where kiln_triad_bench is built -- the only one that
    uses as many threads as the workloads may."""
    b = np.random.default_rng(1).random(n, dtype=np.float32)
    c = b.copy()
    a = np.empty_like(b)
    nbytes = 3.0 * n * 4

    def numpy_triad():
        np.multiply(c, np.float32(3.0), out=a)
        np.add(a, b, out=a)
    found = {"numpy in-place (2 passes)": nbytes / min(time_call(numpy_triad) for _ in range(runs)) / 1e9}
    try:
        import jax
        triad = jax.jit(lambda a, b, c: b + np.float32(3.0) * c, donate_argnums=0)
        state = {"a": jax.device_put(a)}
        bd, cd = jax.device_put(b), jax.device_put(c)

        def xla_triad():
            state["a"] = triad(state["a"], bd, cd).block_until_ready()
        xla_triad()
        found["XLA fused loop"] = nbytes / min(time_call(xla_triad) for _ in range(runs)) / 1e9
    except Exception:
        pass
    native = _run_native("kiln_triad_bench", ["--elements", str(n), "--runs", str(runs)] +
                         (["--threads", str(threads)] if threads else []))
    if native and native.get("gbps"):
        found[f"C++ loop, {native['threads']} thread{'s' if native['threads'] > 1 else ''}"] = native["gbps"]
    best = max(found, key=found.get)
    return {"roof": "triad", "gbps": found[best], "source": best, "elements": n,
            "all_gbps": found, "bytes_per_call": nbytes}


def chain_roof(runs, threads=None):
    """elementwise_chain10's arithmetic roof: its ten ops with kiln's f32 formulas written by hand in
    AVX-512 (bench/native/chain_bench.cpp), on 64K floats that stay in L2, in GB/s as the workload
    counts its bytes. None where kiln_chain_bench is not built or the host has no AVX-512."""
    native = _run_native("kiln_chain_bench", ["--elements", str(1 << 16), "--runs", str(runs)] +
                         (["--threads", str(threads)] if threads else []))
    if not native or not native.get("gbps"):
        return None
    return {"roof": "chain", "gbps": native["gbps"], "elements": native["elements"],
            "source": f"hand-written AVX-512, {native['threads']} thread{'s' if native['threads'] > 1 else ''}"}


def gemm_roof(n, runs):
    """f32 GEMM rate n x n x n. oneDNN is not reachable from Python here (kiln links it, but
    measuring through kiln would make kiln its own roof), so: best of NumPy's BLAS and XLA's dot."""
    x = np.random.default_rng(2).random((n, n), dtype=np.float32)
    flops = 2.0 * n ** 3
    found = {f"NumPy BLAS ({_blas_name()})": flops / min(time_call(lambda: x @ x) for _ in range(runs)) / 1e9}
    try:
        import jax
        dot = jax.jit(lambda a, b: a @ b)
        xd = jax.device_put(x)
        dot(xd, xd).block_until_ready()
        found["XLA f32 dot"] = flops / min(time_call(lambda: dot(xd, xd).block_until_ready()) for _ in range(runs)) / 1e9
    except Exception:
        pass
    best = max(found, key=found.get)
    return {"roof": "sgemm", "gflops": found[best], "source": best, "size": n, "all_gflops": found}


def _blas_name():
    try:
        config = np.show_config(mode="dicts")
        return config["Build Dependencies"]["blas"]["name"]
    except Exception:
        return "BLAS"


def machine():
    """A one-line description of the host."""
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = re.search(r"model name\s*:\s*(.*)", f.read()).group(1).strip()
    except (OSError, AttributeError):
        pass
    return f"{cpu}, {os.cpu_count()} logical CPUs"
