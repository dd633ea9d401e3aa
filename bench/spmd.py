#!/usr/bin/env python3
"""Data-parallel training steps split over devices: kiln against itself on one
device and against XLA:CPU running the same sharded program.

    bench/spmd.py                 # full sizes (bench/workloads.py's MLP and transformer steps)
    bench/spmd.py --quick         # small sizes, few runs
    bench/spmd.py --json out.json
    taskset -c 0 bench/spmd.py --devices 1   # one core: kiln and XLA:CPU at one thread

Each configuration runs in a subprocess of its own, since the device count is
fixed when a platform starts: kiln with KILN_NUM_DEVICES=N, XLA:CPU with
--xla_force_host_platform_device_count=N. The step is jax.jit with the batch
split over a mesh of N devices and the parameters replicated (kiln
partitions it: sharding_propagation, spmd_partition; XLA runs Shardy and its
SPMD partitioner). With N devices each kiln device gets cores/N worker
threads, so "2 devices" means the same cores as "1 device", split.

The table gives steps per second (median step time) and two ratios:
kiln on N devices over kiln on 1 device (the goal is at least 0.9 for N = 2:
splitting the cores between devices must not lose throughput), and kiln
over XLA:CPU on the same N devices. The results of every configuration are
checked against XLA:CPU's single-device step. Figures compare only within
one run; the CPU model is printed with them.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def workloads(quick):
    """name -> (step function, input arrays, number of leading batch arguments)."""
    import numpy as np
    sys.path.insert(0, HERE)
    import workloads as w
    rng = np.random.default_rng(0)
    batch, sizes = (32, (784, 256, 256, 10)) if quick else (256, (784, 1024, 1024, 10))
    mlp = [w._normal(rng, (batch, sizes[0])), np.eye(sizes[-1], dtype=np.float32)[rng.integers(0, sizes[-1], batch)]]
    mlp += w._mlp_params(rng, sizes)
    batch, seq, d, heads = (4, 32, 128, 4) if quick else (8, 128, 512, 8)
    tr = [w._normal(rng, (batch, seq, d)), w._normal(rng, (batch, seq, d))] + w._transformer_params(rng, d, 4 * d)
    return {"mlp_train_step": (w.mlp_train_jax, mlp, 2),
            "transformer_train_step": (w.transformer_train_jax_factory(heads), tr, 2)}


def worker(system, devices, quick, runs):
    """Runs in the subprocess: times each workload's step on `devices` devices of `system`."""
    import jax
    import numpy as np
    from jax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec as P
    platform_name = "kiln" if system == "kiln" else "cpu"
    mesh = Mesh(np.array(jax.devices(platform_name)[:devices]), ("d",), axis_types=(AxisType.Auto,))
    out = {}
    for name, (step, inputs, batch_args) in workloads(quick).items():
        shardings = [NamedSharding(mesh, P("d") if i < batch_args else P()) for i in range(len(inputs))]
        fn = jax.jit(step, in_shardings=tuple(shardings), out_shardings=NamedSharding(mesh, P()))
        args = [jax.device_put(a, s) for a, s in zip(inputs, shardings)]
        start = time.perf_counter()
        results = jax.block_until_ready(fn(*args))
        compile_s = time.perf_counter() - start
        for _ in range(3):
            jax.block_until_ready(fn(*args))
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            jax.block_until_ready(fn(*args))
            times.append(time.perf_counter() - start)
        out[name] = {"median_s": statistics.median(times), "compile_s": compile_s,
                     "results": [np.asarray(r).tolist() if np.size(r) == 1 else float(np.sum(np.asarray(r)))
                                 for r in results]}
    print(json.dumps(out))


def cores():
    """The cores this process may run on (taskset narrows them)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def run_config(system, devices, quick, runs):
    env = dict(os.environ)
    threads = max(1, cores() // devices)
    if system == "kiln":
        env["JAX_PLATFORMS"] = "kiln"
        env["KILN_NUM_DEVICES"] = str(devices)
        env["KILN_NUM_THREADS"] = str(threads)
        build = os.environ.get("KILN_BUILD_DIR", os.path.join(os.path.dirname(HERE), "build"))
        env["PYTHONPATH"] = os.pathsep.join([os.path.join(build, "python"), env.get("PYTHONPATH", "")])
    else:
        env["JAX_PLATFORMS"] = "cpu"
        env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + f" --xla_force_host_platform_device_count={devices}").strip()
    args = [sys.executable, os.path.abspath(__file__), "--worker", system, str(devices), "--runs", str(runs)]
    process = subprocess.run(args + (["--quick"] if quick else []), env=env, capture_output=True, text=True,
                             timeout=1800)
    lines = [line for line in process.stdout.splitlines() if line.startswith("{")]
    if process.returncode or not lines:
        return {"error": (process.stderr.strip().splitlines() or ["no output"])[-1]}
    return json.loads(lines[-1])


def agree(a, b):
    return all(abs(x - y) <= 1e-3 * max(1.0, abs(y)) for x, y in zip(a, b))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few runs")
    parser.add_argument("--runs", type=int, default=None, help="timed steps per configuration")
    parser.add_argument("--devices", type=int, nargs="+", default=[1, 2], help="device counts to run (default 1 2)")
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--worker", nargs=2, metavar=("SYSTEM", "DEVICES"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    runs = args.runs or (5 if args.quick else 30)
    if args.worker:
        return worker(args.worker[0], int(args.worker[1]), args.quick, runs)
    figures = {"cpu": cpu_model(), "cores": cores(), "configs": {}}
    for system in ("kiln", "xla"):
        for devices in args.devices:
            print(f"running {system} on {devices} device(s)...", file=sys.stderr, flush=True)
            figures["configs"][f"{system}/{devices}"] = run_config(system, devices, args.quick, runs)
    reference = figures["configs"].get("xla/1", {})
    print(f"CPU: {figures['cpu']} ({figures['cores']} usable logical cores); each of N devices gets cores/N threads\n")
    print("| workload | devices | kiln steps/s | xla steps/s | kiln / xla | kiln N dev / kiln 1 dev | agrees |")
    print("|---|---|---|---|---|---|---|")
    for name in workloads(args.quick):
        for devices in args.devices:
            k = figures["configs"][f"kiln/{devices}"].get(name)
            x = figures["configs"][f"xla/{devices}"].get(name)
            k1 = figures["configs"].get("kiln/1", {}).get(name)
            if not k or not x:
                err = figures["configs"][f"kiln/{devices}"].get("error") or figures["configs"][f"xla/{devices}"].get("error")
                print(f"| {name} | {devices} | error: {err} | | | | |")
                continue
            ok = name in reference and agree(k["results"], reference[name]["results"])
            scaling = f"{k1['median_s'] / k['median_s']:.2f}" if k1 else ""
            print(f"| {name} | {devices} | {1 / k['median_s']:.1f} | {1 / x['median_s']:.1f} | "
                  f"{x['median_s'] / k['median_s']:.2f} | {scaling} | {'yes' if ok else 'NO'} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
