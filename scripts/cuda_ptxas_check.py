#!/usr/bin/env python3
"""ptxas on every kernel the cuda back end emits for the corpora.

Lowers every program of the conformance corpus (tests/conformance; its
constants made parameters, see constants_as_parameters) and the JAX corpus
(tests/corpus/jax) with `kiln-opt --pipeline=cuda --dump-dir`,
then runs ptxas on each kernel's PTX for sm_80 and sm_90 (both in parallel,
--jobs at a time) and reports: kernels compiled per architecture, registers
and spills, the dots planned as cuBLASLt matmuls (not run here), and the
ops the back end cannot compile yet (counted, not failures). Fails when ptxas rejects a kernel or kiln-opt fails on a program.
Exits 77 (ctest: skipped) where no ptxas is installed ($CUDA_HOME/bin,
/usr/local/cuda/bin or PATH).
"""
import argparse
import collections
import concurrent.futures
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

SKIPPED = 77
ROOT = pathlib.Path(__file__).resolve().parent.parent


def find_ptxas():
    for home in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if home and os.access(os.path.join(home, "bin", "ptxas"), os.X_OK):
            return os.path.join(home, "bin", "ptxas")
    return shutil.which("ptxas")


CONSTANT = re.compile(r"^  (%[\w.]+) = stablehlo\.constant .* : (tensor<.*>)$")


def constants_as_parameters(text):
    """The conformance programs take no arguments, so constant_fold would
    evaluate their ops at compile time and leave nothing to launch: each
    top-level constant of a no-argument function becomes a parameter instead."""
    out, header, params, body = [], None, [], []
    for line in text.splitlines():
        if header is None and line.startswith("func.func") and line.endswith("() {"):
            header, params, body = line, [], []
        elif header is not None and (match := CONSTANT.match(line)):
            params.append(f"{match.group(1)}: {match.group(2)}")
        elif header is not None:
            body.append(line)
            if line == "}":
                out += [header.replace("() {", f"({', '.join(params)}) {{")] + body
                header = None
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def lower(kiln_opt, program, dump_dir):
    """Runs the cuda pipeline on one program (a conformance program with its
    constants as parameters where that verifies, else as written); returns
    kiln-opt's failure text or None."""
    def run(text):
        shutil.rmtree(dump_dir, ignore_errors=True)
        return subprocess.run([kiln_opt, "-", "--pipeline=cuda", "--dump-dir", str(dump_dir), "-o", os.devnull],
                              input=text, capture_output=True, text=True)
    text = program.read_text()
    result = run(constants_as_parameters(text)) if "conformance" in program.parts else None
    if result is None or result.returncode != 0:
        result = run(text)
    return None if result.returncode == 0 else result.stderr.strip()


def assemble(ptxas, ptx, arch):
    """ptxas on one kernel; returns (ok, its -v report or error)."""
    run = subprocess.run([ptxas, f"-arch={arch}", "-v", str(ptx), "-o", os.devnull], capture_output=True, text=True)
    return run.returncode == 0, run.stdout + run.stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=os.environ.get("KILN_BUILD_DIR", ROOT / "build"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--conformance-sample", type=int, default=1, metavar="K",
                        help="lower every K-th conformance program only (sorted by path), to bound the run time")
    parser.add_argument("--by-shape", action="store_true", help="registers, spills and stack frames per kernel shape too")
    parser.add_argument("programs", nargs="*", type=pathlib.Path,
                        help="lower these programs instead of the corpora (tests/gpu_on_host, a kernel being worked on)")
    args = parser.parse_args()
    ptxas = find_ptxas()
    if not ptxas:
        print("SKIPPED: no ptxas (set CUDA_HOME or install the CUDA toolkit)")
        return SKIPPED
    kiln_opt = pathlib.Path(args.build_dir) / "bin" / "kiln-opt"
    conformance = sorted((ROOT / "tests" / "conformance").rglob("*.mlir"))[::args.conformance_sample]
    programs = conformance + sorted((ROOT / "tests" / "corpus" / "jax").glob("*.mlir"))
    if args.programs:
        programs = [p.resolve() for p in args.programs]
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        dumps = [pathlib.Path(tmp) / f"{i:03d}" for i in range(len(programs))]
        failed_programs = [(p, error) for p, error in zip(programs, pool.map(lambda pd: lower(kiln_opt, *pd), zip(programs, dumps)))
                           if error is not None]
        unsupported = collections.Counter()
        matmuls = collections.Counter()
        for dump in dumps:
            summary = dump / "cuda_kernels.txt"
            for line in summary.read_text().splitlines() if summary.exists() else []:
                if line.startswith("matmul "):
                    matmuls["with an epilogue kernel" if ", then kernel " in line else "alone"] += 1
                if line.startswith("unsupported: "):
                    # The op and what about it, without the location or a why in parentheses.
                    match = re.search(r"cannot compile '([^']+)'(.*) yet \(", line)
                    what = match.group(1) + match.group(2).split(" (")[0] if match else line
                    unsupported[what] += 1
        kernels = collections.Counter(("tests/" + program.parts[len(ROOT.parts) + 1] if program.is_relative_to(ROOT / "tests") else str(program.parent))
                                      for program, dump in zip(programs, dumps)
                                      for _ in dump.glob("*.ll"))
        ptx_files = sorted(ptx for dump in dumps for ptx in dump.glob("*.ptx"))
        lowered = time.time()
        results = list(pool.map(lambda ptx: (ptx, *assemble(ptxas, ptx, ptx.suffixes[-2][1:])), ptx_files))

    version = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    sampled = f" (every {args.conformance_sample}th conformance program)" if args.conformance_sample > 1 else ""
    print(f"{len(programs)} programs{sampled}, {version}; kernels: " + ", ".join(f"{n} from {corpus}" for corpus, n in sorted(kernels.items())))
    failures = []
    for arch in ("sm_80", "sm_90"):
        mine = [(ptx, ok, report) for ptx, ok, report in results if ptx.name.endswith(f".{arch}.ptx")]
        registers = [int(n) for _, ok, report in mine if ok for n in re.findall(r"Used (\d+) registers", report)]
        spills = sum(1 for _, ok, report in mine if ok and re.search(r"[1-9]\d* bytes spill (stores|loads)", report))
        stacks = sum(1 for _, ok, report in mine if ok and re.search(r"[1-9]\d* bytes stack frame", report))
        compiled = sum(1 for _, ok, _ in mine if ok)
        print(f"{arch}: ptxas compiled {compiled} of {len(mine)} kernels; registers max {max(registers, default=0)}, "
              f"median {sorted(registers)[len(registers) // 2] if registers else 0}; {spills} with spills, "
              f"{stacks} with a stack frame")
        failures += [(ptx, report) for ptx, ok, report in mine if not ok]
        if args.by_shape:  # registers, spills and stack frames per kernel shape (k<i>_<shape>.<arch>.ptx)
            shapes = collections.defaultdict(list)
            for ptx, ok, report in mine:
                if ok:
                    shapes[ptx.name.split(".")[0].split("_", 1)[1]].append(report)
            spill, stack = re.compile(r"[1-9]\d* bytes spill (stores|loads)"), re.compile(r"[1-9]\d* bytes stack frame")
            for shape, reports in sorted(shapes.items()):
                regs = sorted(int(n) for r in reports for n in re.findall(r"Used (\d+) registers", r))
                spilled = sum(1 for r in reports if spill.search(r))
                framed = sum(1 for r in reports if stack.search(r))
                print(f"  {shape}: {len(reports)} kernels, registers max {max(regs, default=0)}, "
                      f"median {regs[len(regs) // 2] if regs else 0}; {spilled} with spills, {framed} with a stack frame")
    print(f"{sum(matmuls.values())} cuBLASLt matmuls ({matmuls['alone']} alone, "
          f"{matmuls['with an epilogue kernel']} followed by an epilogue kernel; not run here)")
    print(f"{sum(unsupported.values())} ops the cuda back end cannot compile yet (skipped, not failures):")
    for what, n in unsupported.most_common():
        print(f"  {n:4d}  {what}")
    for program, error in failed_programs:
        print(f"FAIL: kiln-opt --pipeline=cuda {program}: {error}")
    for ptx, report in failures:
        print(f"FAIL: ptxas {ptx.name}: {report.strip()}")
    print(f"{time.time() - start:.1f} s with {args.jobs} jobs ({lowered - start:.1f} s lowering, the rest ptxas)")
    return 1 if failures or failed_programs else 0


if __name__ == "__main__":
    sys.exit(main())
