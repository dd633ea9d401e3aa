#!/usr/bin/env python3
"""Host transfers through the PJRT plugin next to XLA:CPU's, in one process
(docs/pjrt.md, "Host buffers without a copy").

    PYTHONPATH=build/python bench/pjrt_transfer.py [--mib 64] [--runs 15]
        [--threads N] [--baseline-library OLD/libkiln_pjrt.so]

Times, median over the runs, for a float32 array of --mib MiB:
- `device_put`: jax.device_put(numpy array).block_until_ready(), the array
  NumPy allocated itself (malloc: 16-byte aligned) and one at a 64-byte
  aligned address (XLA:CPU borrows only those);
- `np.asarray`: the first np.asarray of a fresh result;
- `reduce`: jax.jit(lambda t: (t * 2).sum()) on the array put without a copy
  (the caller's memory) and on one kiln allocated, which tells whether
  computing on borrowed memory costs anything.
With --baseline-library the same is measured again with that plugin library
(for instance main's build before zero-copy) in a subprocess.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def median_ms(fn, runs):
    fn()  # warm: compiles, first touches
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def measure(mib, runs):
    import jax  # noqa: PLC0415
    import numpy as np  # noqa: PLC0415

    count = mib * (1 << 20) // 4
    numpy_owned = np.arange(count, dtype=np.float32)
    raw = np.empty(count * 4 + 64, dtype=np.uint8)
    start = (-raw.ctypes.data) % 64
    aligned64 = raw[start:start + count * 4].view(np.float32)
    aligned64[:] = numpy_owned
    double = jax.jit(lambda t: t * 2)
    reduce = jax.jit(lambda t: (t * 2).sum())
    out = {}
    for platform in ("kiln", "cpu"):
        device = jax.devices(platform)[0]
        row = {}
        for name, host in (("device_put numpy-owned", numpy_owned), ("device_put 64-byte aligned", aligned64)):
            row[name] = median_ms(lambda h=host: jax.device_put(h, device).block_until_ready(), runs)
        x = jax.device_put(numpy_owned, device)

        def first_asarray():
            y = double(x).block_until_ready()
            start = time.perf_counter()
            np.asarray(y)
            return time.perf_counter() - start

        first_asarray()
        row["np.asarray"] = statistics.median(first_asarray() for _ in range(runs)) * 1e3
        owned_by_runtime = (x + 0).block_until_ready()
        row["reduce on the put array"] = median_ms(lambda: reduce(x).block_until_ready(), runs)
        row["reduce on a runtime array"] = median_ms(lambda: reduce(owned_by_runtime).block_until_ready(), runs)
        row["put shares memory"] = x.unsafe_buffer_pointer() == numpy_owned.ctypes.data
        out[platform] = row
    return out


def print_table(title, results):
    print(title)
    keys = list(results["kiln"])
    for key in keys:
        kiln, cpu = results["kiln"][key], results["cpu"][key]
        if isinstance(kiln, bool):
            print(f"  {key:28s} kiln {kiln!s:>9s}   XLA:CPU {cpu!s:>9s}")
        else:
            print(f"  {key:28s} kiln {kiln:8.3f} ms   XLA:CPU {cpu:8.3f} ms")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mib", type=int, default=64, help="array size in MiB (default 64)")
    parser.add_argument("--runs", type=int, default=15, help="timed runs per figure (default 15)")
    parser.add_argument("--threads", type=int, help="pin kiln and XLA:CPU to N cores and threads (bench/threads.py)")
    parser.add_argument("--baseline-library", help="also measure this plugin library (KILN_PJRT_LIBRARY)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # the subprocess's output
    args = parser.parse_args()
    os.environ.setdefault("JAX_PLATFORMS", "kiln,cpu")
    if args.threads:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import threads  # noqa: PLC0415

        threads.limit(args.threads)  # before JAX starts; the baseline's subprocess inherits it
    results = measure(args.mib, args.runs)
    if args.json:
        print(json.dumps(results))
        return
    threads = os.environ.get("KILN_NUM_THREADS", "default")
    print(f"{args.mib} MiB float32, median of {args.runs}, KILN_NUM_THREADS={threads}")
    print_table("this build:", results)
    if args.baseline_library:
        env = dict(os.environ, KILN_PJRT_LIBRARY=args.baseline_library)
        out = subprocess.run([sys.executable, __file__, "--mib", str(args.mib), "--runs", str(args.runs), "--json"],
                             env=env, capture_output=True, text=True, check=True).stdout
        print_table(f"baseline ({args.baseline_library}):", json.loads(out.splitlines()[-1]))


if __name__ == "__main__":
    main()
