#!/usr/bin/env python3
"""Whether tracing that is off costs anything: kiln_overhead_bench from a build
without tracing (BASE) against one with tracing compiled in and off (NEW),
run alternately so that both see the same machine (docs/profiling.md).

    bench/trace_overhead.py BASE/bin/kiln_overhead_bench build/bin/kiln_overhead_bench [--rounds 5]

BASE is built from a commit before tracing existed (for instance 24d1df2:
`git archive 24d1df2 | tar -x -C build/base-src`, then configure and build
kiln_overhead_bench there). Prints, per program and column, the median over
the rounds of each binary's microseconds per call and NEW's difference.
"""
import argparse
import re
import statistics
import subprocess

COLUMNS = ("cpu run", "runtime execute+await")


def one_run(binary: str, calls: int) -> dict:
    """{(program, column): microseconds per call} from one run of `binary`."""
    out = subprocess.run([binary, str(calls)], capture_output=True, text=True, check=True).stdout
    times = {}
    for line in out.splitlines():
        program = line[:22].strip()
        for column in COLUMNS:
            match = re.search(re.escape(column) + r" +([0-9.]+) us", line)
            if match:
                times[(program, column)] = float(match.group(1))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    samples = {"base": [], "new": []}
    for _ in range(args.rounds):
        samples["base"].append(one_run(args.base, args.calls))
        samples["new"].append(one_run(args.new, args.calls))
    for key in samples["base"][0]:
        base = statistics.median(run[key] for run in samples["base"])
        new = statistics.median(run[key] for run in samples["new"])
        print(f"{key[0]:22s} {key[1]:22s} without tracing {base:7.2f} us | compiled in, off {new:7.2f} us | "
              f"{100 * (new - base) / base:+5.1f}%")


if __name__ == "__main__":
    main()
