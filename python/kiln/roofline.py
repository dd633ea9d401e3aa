"""A roofline chart of a kiln profile: `python -m kiln.roofline PROFILE.json [-o OUT]`.

PROFILE.json is what `kiln run FILE --profile N --profile-json PROFILE.json`
writes: the machine's roofs (a triad's bandwidth and a GEMM's flop rate,
measured when the profile started) and, per kernel, its flops and bytes from
kiln's cost model and its median time. Each kernel with flops becomes a point
at (flops per byte, achieved GFLOP/s), its area its share of the run; the
roofs are the lines min(peak, intensity x bandwidth). OUT.png and OUT.svg
(default: next to PROFILE.json) are written with matplotlib. See
docs/profiling.md.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys


def costed_kernels(profile: dict) -> list[dict]:
    """The kernels of `profile` a roofline can place: with flops, bytes and time."""
    return [k for k in profile["kernels"]
            if k.get("flops_per_run", 0) > 0 and k.get("bytes_per_run", 0) > 0 and k["seconds_per_run"] > 0]


def draw(profile: dict, out_stem: pathlib.Path, title: str) -> list[pathlib.Path]:
    """Writes out_stem.png and out_stem.svg; returns their paths."""
    import matplotlib  # noqa: PLC0415  (imported only to draw)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    roofs = profile["roofs"]
    bandwidth, peak = roofs["bytes_per_second"], roofs["flops_per_second"]
    kernels = costed_kernels(profile)
    intensities = [k["flops_per_run"] / k["bytes_per_run"] for k in kernels]
    ridge = peak / bandwidth
    low = min([ridge / 100, *intensities]) / 2
    high = max([ridge * 100, *intensities]) * 2

    fig, ax = plt.subplots(figsize=(9, 6))
    xs = [low, ridge, high]
    ax.plot(xs, [min(peak, x * bandwidth) / 1e9 for x in xs], color="black", linewidth=2)
    ax.annotate(f"triad {bandwidth / 1e9:.1f} GB/s", (low * 1.5, low * 1.5 * bandwidth / 1e9),
                rotation=0, fontsize=9, va="bottom")
    ax.annotate(f"GEMM {peak / 1e9:.0f} GFLOP/s", (ridge * 1.2, peak / 1e9), fontsize=9, va="bottom")
    for kernel, intensity in zip(kernels, intensities):
        achieved = kernel["flops_per_second"] / 1e9
        color = {"memory": "tab:blue", "compute": "tab:red"}.get(kernel.get("bound"), "tab:gray")
        ax.scatter([intensity], [achieved], s=30 + 900 * kernel["share"], color=color, alpha=0.6,
                   edgecolors="black", linewidths=0.5)
        ax.annotate(kernel["label"][:48], (intensity, achieved), fontsize=7, xytext=(4, 4),
                    textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(low, high)
    ax.set_xlabel("arithmetic intensity (flops per byte, kiln's cost model)")
    ax.set_ylabel("achieved GFLOP/s (median of the runs)")
    ax.set_title(title)
    for bound, color in (("memory-bound", "tab:blue"), ("compute-bound", "tab:red"), ("overhead", "tab:gray")):
        ax.scatter([], [], color=color, alpha=0.6, label=bound)
    ax.legend(loc="lower right", fontsize=8, title="area: share of the run", title_fontsize=8)
    ax.grid(True, which="both", alpha=0.2)
    fig.tight_layout()
    paths = [out_stem.with_suffix(".png"), out_stem.with_suffix(".svg")]
    for path in paths:
        fig.savefig(path, dpi=120)
    plt.close(fig)
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kiln.roofline", description=__doc__.split("\n\n")[0])
    parser.add_argument("profile", type=pathlib.Path, help="a kiln run --profile-json file")
    parser.add_argument("-o", "--output", type=pathlib.Path,
                        help="OUT: writes OUT.png and OUT.svg (default: the profile's path without .json)")
    parser.add_argument("--title", default=None, help="the chart's title (default: the profile's file name)")
    args = parser.parse_args(argv)
    try:
        profile = json.loads(args.profile.read_text())
    except (OSError, json.JSONDecodeError) as error:
        print(f"python -m kiln.roofline: cannot read {args.profile}: {error}", file=sys.stderr)
        return 1
    stem = args.output or args.profile.with_suffix("")
    for path in draw(profile, stem, args.title or f"roofline: {args.profile.name}"):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
