#!/usr/bin/env python3
"""A sweep of jnp / lax / jax.nn functions through kiln.jit and jax.jit: one line per function with
both median times, kiln's speedup and the largest difference relative to the largest XLA value. It
finds the functions kiln runs slowly or wrongly (each new one is a candidate workload for bench/run);
it checks nothing and times nothing against a threshold.

  bench/sweep.py [--threads N] [--only NAME,...] [--list]
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def build_cases(np, jax, jnp):
    r = np.random.default_rng(0)
    A = r.standard_normal((512, 1024)).astype(np.float32)
    B = r.standard_normal((1024, 256)).astype(np.float32)
    V = r.standard_normal(1 << 20).astype(np.float32)
    I = r.integers(0, 512, 4096).astype(np.int32)
    IMG = r.standard_normal((8, 64, 64, 32)).astype(np.float32)
    cases = {
      "argmax_rows": (lambda a: jnp.argmax(a, axis=1), (A,)),
      "argsort_rows": (lambda a: jnp.argsort(a, axis=1), (A[:64],)),
      "sort_vec": (lambda v: jnp.sort(v), (V,)),
      "cumprod": (lambda a: jnp.cumprod(a * 0.001 + 1, axis=1), (A,)),
      "logsumexp": (lambda a: jax.nn.logsumexp(a, axis=1), (A,)),
      "var": (lambda a: jnp.var(a, axis=0), (A,)),
      "norm": (lambda a: jnp.linalg.norm(a, axis=1), (A,)),
      "where": (lambda a: jnp.where(a > 0, a, 0.1 * a), (A,)),
      "clip": (lambda v: jnp.clip(v, -0.5, 0.5), (V,)),
      "pad_interior": (lambda a: jax.lax.pad(a, 0.0, ((0, 0, 1), (0, 0, 1))), (A,)),
      "pad_edge": (lambda a: jnp.pad(a, 3, mode="edge"), (A,)),
      "pad_reflect": (lambda a: jnp.pad(a, 3, mode="reflect"), (A,)),
      "roll": (lambda a: jnp.roll(a, 5, axis=1), (A,)),
      "flip": (lambda a: jnp.flip(a, axis=1), (A,)),
      "transpose": (lambda a: a.T, (A,)),
      "take_rows": (lambda a, i: a[i], (A, I)),
      "one_hot": (lambda i: jax.nn.one_hot(i, 512), (I,)),
      "matmul_T": (lambda a, b: a @ b, (A, B)),
      "einsum_bij": (lambda a: jnp.einsum("ij,kj->ik", a, a), (A[:256],)),
      "tril": (lambda a: jnp.tril(a), (A,)),
      "maxpool": (lambda x: jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"), (IMG,)),
      "avgpool": (lambda x: jax.lax.reduce_window(x, 0.0, jax.lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME") / 9, (IMG,)),
      "resize": (lambda x: jax.image.resize(x, (8, 128, 128, 32), "bilinear"), (IMG,)),
      "depthwise": (lambda x: jax.lax.conv_general_dilated(x, jnp.ones((3, 3, 1, 32)), (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=32), (IMG,)),
      "gelu_exact": (lambda v: jax.nn.gelu(v, approximate=False), (V,)),
      "silu": (lambda v: jax.nn.silu(v), (V,)),
      "softplus": (lambda v: jax.nn.softplus(v), (V,)),
      "log1p": (lambda v: jnp.log1p(jnp.abs(v)), (V,)),
      "sin_cos": (lambda v: jnp.sin(v) + jnp.cos(v), (V,)),
      "pow": (lambda v: jnp.abs(v) ** 1.7, (V,)),
      "atan2": (lambda v: jnp.arctan2(v, v[::-1]), (V,)),
      "round": (lambda v: jnp.round(v * 10), (V,)),
      "mod": (lambda v: jnp.mod(v, 0.7), (V,)),
      "int_div": (lambda i: i // 7 + i % 5, (I,)),
      "top_k": (lambda a: jax.lax.top_k(a, 16)[0], (A,)),
      "bincount": (lambda i: jnp.bincount(i, length=512), (I,)),
      "unique_sorted": (lambda v: jnp.sort(v)[::2], (V,)),
      "outer": (lambda v: jnp.outer(v[:1024], v[:1024]), (V,)),
      "diff": (lambda a: jnp.diff(a, axis=1), (A,)),
      "convolve1d": (lambda v: jnp.convolve(v[:65536], v[:63], mode="same"), (V,)),
      "fft": (lambda v: jnp.abs(jnp.fft.rfft(v)), (V,)),
      "cross_entropy": (lambda a, i: -jnp.take_along_axis(jax.nn.log_softmax(a[:, :512]), i[:512, None], axis=1).mean(), (A, I)),
    }
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, help="pin to N cores and tell kiln and XLA to use N")
    parser.add_argument("--only", help="comma-separated function names")
    parser.add_argument("--list", action="store_true", help="list the functions and exit")
    parser.add_argument("--runs", type=int, default=7, help="timed calls per function (median)")
    args = parser.parse_args()
    if args.threads:
        os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[:args.threads]))
        os.environ["KILN_FLAGS"] = (os.environ.get("KILN_FLAGS", "") + f" --threads {args.threads}").strip()
        if args.threads == 1:
            os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false").strip()
    import numpy as np
    import jax
    import jax.numpy as jnp
    sys.path.insert(0, HERE)
    from systems import import_kiln
    kiln = import_kiln()
    cases = build_cases(np, jax, jnp)
    if args.list:
        print("\n".join(cases))
        return 0
    only = set(args.only.split(",")) if args.only else None

    def timeit(f, fargs):
        jax.block_until_ready(f(*fargs))
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            jax.block_until_ready(f(*fargs))
            times.append(time.perf_counter() - start)
        return float(np.median(times))

    for name, (fn, fargs) in cases.items():
        if only and name not in only:
            continue
        try:
            kf, jf = kiln.jit(fn), jax.jit(fn)
            got = np.asarray(kf(*fargs)).astype(np.float64)
            want = np.asarray(jf(*fargs)).astype(np.float64)
            err = float(np.max(np.abs(got - want)) / (np.max(np.abs(want)) + 1e-30))
            tk, tj = timeit(kf, fargs), timeit(jf, fargs)
            print(f"{name:16s} kiln {tk * 1e3:9.3f} ms  xla {tj * 1e3:9.3f} ms  speedup {tj / tk:6.2f}x  "
                  f"relerr {err:.1e}", flush=True)
        except Exception as e:  # a function kiln cannot run is a finding too
            print(f"{name:16s} FAILED: {type(e).__name__}: {str(e)[:300]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
