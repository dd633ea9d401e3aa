#!/usr/bin/env python3
"""All-reduces between processes of one host: the host's shared-memory segment
against Gloo on loopback (KILN_HOST_SHARED_MEMORY=0), and two instances of one
process (in-process shared memory) for reference.

    bench/host_collectives.py                    # 2 processes, sizes 64 B .. 4 MiB
    bench/host_collectives.py --processes 4 --rounds 5
    bench/host_collectives.py --kiln build/bin/kiln --json out.json
    bench/host_collectives.py --slot-bytes 4194304   # also shared memory with 4 MiB slots
    bench/host_collectives.py --configs shared_memory,shared_memory_slots,in_process
    bench/host_collectives.py --baseline-kiln /tmp/old/kiln   # also shared memory with another build

Each measurement is `kiln launch -n P -- kiln run` of a module whose P
partitions run a while loop of K all_reduce(sum)s of N f32 (halved after each,
so values stay finite), minus the same run with a fifth as many iterations
(start-up, compiling, connecting, and the first iterations' taking fresh
buffers from the system, which each process does for itself: four processes
fault in several times one process's pages, a cost of start-up, not of each
all-reduce): the time of the other four fifths, reported per all-reduce.
Configurations alternate within each round; the table gives the median over
rounds, and the CPU time all the processes spent per all-reduce likewise
(less at the mercy of the load than the time). shared_memory is the default (calls of pairs of 256 KiB and more
read the peer's buffers in place), shared_memory_slots the same with
KILN_HOST_SHM_DIRECT_BYTES=off (every call through the 1 MiB slots, as
before reading in place), shared_memory_in_place with
KILN_HOST_SHM_DIRECT_MEMBERS=1024 (calls of 256 KiB and more in place in
groups of any size), gloo KILN_HOST_SHARED_MEMORY=0, and shared_memory_baseline the default
with the kiln of --baseline-kiln (a build before a change, measured in the
same run). Every configuration must print the same final sum, bit for bit (the
fold is in group order however the members meet). Figures compare only
within one run; the CPU model and the load average are printed with them.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def module(processes, elements, iterations):
    return f"""module attributes {{mhlo.num_replicas = 1 : i32, mhlo.num_partitions = {processes} : i32}} {{
  func.func @main() -> tensor<f32> {{
    %id = stablehlo.partition_id : tensor<ui32>
    %f = stablehlo.convert %id : (tensor<ui32>) -> tensor<f32>
    %fb = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<{elements}xf32>
    %i0 = stablehlo.iota dim = 0 : tensor<{elements}xf32>
    %x = stablehlo.add %i0, %fb : tensor<{elements}xf32>
    %start = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %start, %v = %x) : tensor<i32>, tensor<{elements}xf32>
     cond {{
      %k = stablehlo.constant dense<{iterations}> : tensor<i32>
      %go = stablehlo.compare LT, %i, %k, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    }} do {{
      %s = "stablehlo.all_reduce"(%v) ({{
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }}) {{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[{", ".join(str(p) for p in range(processes))}]]> : tensor<1x{processes}xi64>, use_global_device_ids}} : (tensor<{elements}xf32>) -> tensor<{elements}xf32>
      %half = stablehlo.constant dense<{1.0 / processes}> : tensor<{elements}xf32>
      %h = stablehlo.multiply %s, %half : tensor<{elements}xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %n, %h : tensor<i32>, tensor<{elements}xf32>
    }}
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %sum = stablehlo.reduce(%r#1 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<{elements}xf32>, tensor<f32>) -> tensor<f32>
    return %sum : tensor<f32>
  }}
}}
"""


def run(kiln, path, processes, config, slot_bytes=None, baseline_kiln=None):
    env = dict(os.environ, KILN_COLLECTIVE_TIMEOUT_S="120")
    if config == "shared_memory_baseline":
        kiln = baseline_kiln
    if config == "shared_memory_big_slots":
        env["KILN_HOST_SHM_SLOT_BYTES"] = str(slot_bytes)
        env["KILN_HOST_SHM_DIRECT_BYTES"] = "off"
    if config == "shared_memory_slots":
        env["KILN_HOST_SHM_DIRECT_BYTES"] = "off"
    if config == "shared_memory_in_place":
        env["KILN_HOST_SHM_DIRECT_MEMBERS"] = "1024"
    if config == "in_process":
        command = [kiln, "run", path, "--all-instances"]
    else:
        command = [kiln, "launch", "-n", str(processes), "--", kiln, "run", path]
        if config == "gloo":
            env["KILN_HOST_SHARED_MEMORY"] = "0"
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if out.returncode != 0:
        raise SystemExit(f"{config} failed:\n{out.stdout}\n{out.stderr}")
    # The sums every instance printed (the lines after each "// instance" header).
    values = sorted(line.split("] ", 1)[-1] for line in out.stdout.splitlines() if "dense<" in line)
    return elapsed, cpu, values


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", default=os.path.join(HERE, "..", "build", "bin", "kiln"))
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--slot-bytes", type=int, help="also measure shared memory with slots of this size")
    parser.add_argument("--baseline-kiln", help="also measure shared memory (the default) with this kiln binary")
    parser.add_argument("--configs", default="shared_memory,gloo,in_process",
                        help="comma-separated, of shared_memory, shared_memory_slots, shared_memory_in_place, "
                        "gloo, in_process")
    parser.add_argument("--sizes", default="16:2000,16384:500,1048576:20",
                        help="comma-separated ELEMENTS:ITERATIONS (f32 elements per all-reduce, all-reduces per run)")
    parser.add_argument("--json")
    args = parser.parse_args()
    # (elements, iterations): by default, iterations sized so that each run takes about a second over Gloo.
    sizes = [tuple(int(x) for x in pair.split(":")) for pair in args.sizes.split(",")]
    configs = args.configs.split(",") + (["shared_memory_big_slots"] if args.slot_bytes else []) + (
        ["shared_memory_baseline"] if args.baseline_kiln else [])
    known = {"shared_memory", "shared_memory_slots", "shared_memory_in_place", "gloo", "in_process",
             "shared_memory_big_slots", "shared_memory_baseline"}
    if not set(configs) <= known:
        raise SystemExit(f"unknown configurations: {sorted(set(configs) - known)}")
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"CPU: {model}, {os.cpu_count()} cores; load average before: {os.getloadavg()}")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for elements, iterations in sizes:
            paths = {}
            warm = max(1, iterations // 5)
            for k in (warm, iterations):
                paths[k] = os.path.join(tmp, f"ar_{elements}_{k}.mlir")
                with open(paths[k], "w") as f:
                    f.write(module(args.processes, elements, k))
            per_call = {c: [] for c in configs}
            cpu_per_call = {c: [] for c in configs}
            answers = {}
            for _ in range(args.rounds):
                for config in configs:
                    base, base_cpu, _ = run(args.kiln, paths[warm], args.processes, config, args.slot_bytes,
                                            args.baseline_kiln)
                    full, full_cpu, values = run(args.kiln, paths[iterations], args.processes, config,
                                                 args.slot_bytes, args.baseline_kiln)
                    per_call[config].append(max(full - base, 0.0) / (iterations - warm))
                    cpu_per_call[config].append(max(full_cpu - base_cpu, 0.0) / (iterations - warm))
                    answers.setdefault(config, values)
                    if values != answers[config]:
                        raise SystemExit(f"{config}: results differ between rounds: {values} vs {answers[config]}")
            if len({tuple(v) for v in answers.values()}) != 1:
                raise SystemExit(f"results differ between configurations: {answers}")
            row = {"bytes": elements * 4, "iterations": iterations,
                   **{c: statistics.median(per_call[c]) for c in configs},
                   "cpu": {c: statistics.median(cpu_per_call[c]) for c in configs}}
            results.append(row)
    print(f"load average after: {os.getloadavg()}")
    print(f"\nall_reduce of f32 over {args.processes} partitions, median of {args.rounds} rounds, per all-reduce:\n")
    titles = {"shared_memory": "host shared memory (P processes)",
              "shared_memory_slots": "shared memory, slots only (P processes)",
              "shared_memory_in_place": "shared memory, in place in any group (P processes)",
              "gloo": "Gloo on loopback (P processes)", "in_process": "one process, P instances",
              "shared_memory_big_slots": f"shared memory, {args.slot_bytes}-byte slots only",
              "shared_memory_baseline": "host shared memory, --baseline-kiln (P processes)"}
    ratios = [(a, b) for a, b in (("gloo", "shared_memory"), ("shared_memory_baseline", "shared_memory"),
                                  ("shared_memory", "in_process"), ("shared_memory_slots", "shared_memory"),
                                  ("shared_memory_slots", "shared_memory_in_place"))
              if a in configs and b in configs]
    print("| bytes | " + " | ".join(titles[c] for c in configs) +
          "".join(f" | {a} / {b}" for a, b in ratios) + " |")
    print("|---:|" + "---:|" * (len(configs) + len(ratios)))
    for r in results:
        cells = [f"{r[c] * 1e6:.1f} us" for c in configs]
        cells += [f"{r[a] / r[b]:.2f}x" if r[b] > 0 else "inf" for a, b in ratios]
        print(f"| {r['bytes']} | " + " | ".join(cells) + " |")
    print(f"\nCPU time (user + system, all processes) per all-reduce, median of {args.rounds} rounds:\n")
    print("| bytes | " + " | ".join(titles[c] for c in configs) + "".join(f" | {a} / {b}" for a, b in ratios) + " |")
    print("|---:|" + "---:|" * (len(configs) + len(ratios)))
    for r in results:
        print(f"| {r['bytes']} | " + " | ".join(f"{r['cpu'][c] * 1e6:.1f} us" for c in configs) + "".join(
            f" | {r['cpu'][a] / r['cpu'][b]:.2f}x" if r['cpu'][b] > 0 else " | inf" for a, b in ratios) + " |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpu": model, "processes": args.processes, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
