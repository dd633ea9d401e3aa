"""--threads N: every system on the same N cores with N worker threads; --cpu-max-isa T: kiln
and XLA:CPU with no x86 instructions beyond tier T.

Must run before NumPy, JAX or IREE are imported: their thread pools are sized at start-up
from the environment and the process's CPU affinity, and the ISA caps are read at the first
compile."""
import os


def requested(argv):
    """N from `--threads N` / `--threads=N` in argv, else None (each library's default)."""
    for i, arg in enumerate(argv):
        if arg == "--threads" and i + 1 < len(argv):
            return int(argv[i + 1])
        if arg.startswith("--threads="):
            return int(arg.split("=", 1)[1])
    return None


def limit(n):
    """Pins this process (and its children) to n of its cores and tells every library to use n threads."""
    if hasattr(os, "sched_getaffinity"):
        cores = sorted(os.sched_getaffinity(0))[:n]
        os.sched_setaffinity(0, cores)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "KILN_NUM_THREADS"):
        os.environ[var] = str(n)
    if n == 1:  # XLA sizes its pools from the affinity; this also keeps Eigen ops on the caller
        flags = os.environ.get("XLA_FLAGS", "")
        if "xla_cpu_multi_thread_eigen" not in flags:
            os.environ["XLA_FLAGS"] = (flags + " --xla_cpu_multi_thread_eigen=false").strip()


# kiln's tiers (--cpu_max_isa, docs/cpu_backend.md) and XLA's names for the same caps.
XLA_ISA_NAMES = {"sse4.2": "SSE4_2", "avx2": "AVX2", "avx512": "AVX512_BF16"}


def requested_isa(argv):
    """T from `--cpu-max-isa T` / `--cpu-max-isa=T` in argv, else None."""
    for i, arg in enumerate(argv):
        if arg == "--cpu-max-isa" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--cpu-max-isa="):
            return arg.split("=", 1)[1]
    return None


def cap_isa(tier):
    """Caps kiln and XLA:CPU (in this process and its children) at `tier`; argparse rejects others."""
    if tier not in XLA_ISA_NAMES:
        return
    for var, flag in (("KILN_FLAGS", f"--cpu_max_isa={tier}"), ("XLA_FLAGS", f"--xla_cpu_max_isa={XLA_ISA_NAMES[tier]}")):
        os.environ[var] = (os.environ.get(var, "") + " " + flag).strip()
