#!/usr/bin/env python3
"""Compile time of every JAX corpus program (tests/corpus/jax/*.mlir) on kiln's cpu back end.

For each file: wall time of kiln.compile (parse, pipeline, LLVM codegen, oneDNN
primitive setup) with a fresh Client and no disk cache, the pipeline and codegen
seconds kiln reports itself, and the step counts. Prints a Markdown table with the
median and the slowest program; `--json PATH` also writes the records.

    KILN_PYTHONPATH=build/python python3 bench/compile_corpus.py [--repeat N] [--json PATH]
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def import_kiln():
    for path in reversed(os.environ.get("KILN_PYTHONPATH", "").split(os.pathsep)):
        if path:
            sys.path.insert(0, path)
    sys.path.insert(0, str(ROOT / "build" / "python"))
    import kiln  # noqa: PLC0415

    return kiln


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="compiles per program; the median is reported")
    parser.add_argument("--json", metavar="PATH", help="write the records as a JSON list")
    args = parser.parse_args()
    kiln = import_kiln()

    records = []
    files = sorted((ROOT / "tests" / "corpus" / "jax").glob("*.mlir"))
    for i, path in enumerate(files, 1):
        print(f"[{i}/{len(files)}] {path.name}", file=sys.stderr, flush=True)
        walls, stats = [], None
        try:
            for _ in range(args.repeat):
                client = kiln.Client()  # fresh: nothing cached in memory
                start = time.perf_counter()
                exe = client.compile(path.read_text())
                walls.append(time.perf_counter() - start)
                stats = exe.compile_stats()
        except Exception as e:  # noqa: BLE001  (a program kiln rejects is reported, not fatal)
            records.append({"program": path.name, "error": str(e).splitlines()[0]})
            continue
        records.append({"program": path.name, "compile_s": statistics.median(walls), **stats})

    ok = [r for r in records if "compile_s" in r]
    print("| program | compile (median) | pipeline | codegen | kernels | library calls | routines |")
    print("|---|---|---|---|---|---|---|")
    for r in records:
        if "error" in r:
            print(f"| {r['program']} | error: {r['error']} | | | | | |")
        else:
            print(f"| {r['program']} | {r['compile_s'] * 1e3:.1f} ms | {r['pipeline_seconds'] * 1e3:.1f} ms | "
                  f"{r['codegen_seconds'] * 1e3:.1f} ms | {r['kernels']} | {r['library_calls']} | {r['routines']} |")
    if ok:
        times = [r["compile_s"] for r in ok]
        slowest = max(ok, key=lambda r: r["compile_s"])
        print(f"\n{len(ok)} of {len(records)} programs compiled; median {statistics.median(times) * 1e3:.1f} ms, "
              f"total {sum(times):.2f} s, slowest {slowest['program']} {slowest['compile_s'] * 1e3:.1f} ms")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(records, indent=1))
    return 0 if len(ok) == len(records) else 1


if __name__ == "__main__":
    sys.exit(main())
