"""Turns the run's records into a Markdown report and a chart of speedup over xla."""
import importlib
import math
import platform


def fmt_seconds(s):
    if s is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def fmt_bytes(b):
    if b is None:
        return "-"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= scale:
            return f"{b / scale:.3g} {unit}"
    return f"{b:.0f} B"


def cell_text(rec, with_ratio=True):
    """One table cell: median time (and speedup over xla), or what went wrong."""
    status = rec["status"]
    if status == "ok" and rec.get("median_s") is not None:
        text = fmt_seconds(rec["median_s"])
        if with_ratio and rec.get("speedup_vs_xla") is not None and rec["system"] != "xla":
            text += f" ({rec['speedup_vs_xla']:.2f}×)"
        return text
    if status in ("not installed", "n/a"):
        return status if status == "n/a" else "not installed"
    message = rec.get("message") or ""
    return f"{status}: {message}" if message else status


def _escape(text):
    return text.replace("|", "\\|").replace("\n", " ")


def _geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def markdown(everything, workloads, system_order, chart=None):
    """The report; `chart` is the chart's path relative to the report, shown when given."""
    meta = next(r for r in everything if r["kind"] == "run")
    roofs = {r["roof"]: r for r in everything if r["kind"] == "roof"}
    results = [r for r in everything if r["kind"] == "result"]
    by_cell = {(r["workload"], r["system"]): r for r in results}
    shown = [s for s in system_order if any(r["system"] == s for r in results)]
    runtime = [w for w in workloads if not w.measures_compile]
    compile_rows = [w for w in workloads if w.measures_compile]

    out = [f"# kiln performance ({meta['mode']} run)", "",
           f"Written by `{meta['command']}` on {meta['date']}, {meta['machine']}, in {meta['seconds']} s. "
           f"Threads: {_threads_text(meta.get('threads'))}. "
           + (f"kiln and XLA capped at {meta['cpu_max_isa']} (--cpu-max-isa). " if meta.get("cpu_max_isa") else "") +
           f"Versions: {meta['versions']}. How everything is measured: [bench/README.md]"
           f"(../bench/README.md).", ""]
    triad, sgemm = roofs.get("triad"), roofs.get("sgemm")
    if triad:
        out.append(f"Roofs measured in this run (best of before and after the workloads): triad bandwidth "
                   f"**{triad['gbps']:.1f} GB/s** ({triad['source']}, {triad['elements']} f32 per array{_both(triad)}); "
                   f"f32 GEMM **{sgemm['gflops']:.1f} GFLOP/s** ({sgemm['source']}, {sgemm['size']}³{_both(sgemm)}; "
                   f"oneDNN is not reachable from Python)" +
                   (f"; elementwise_chain10's arithmetic by hand (bench/native/chain_bench.cpp, in L2) "
                    f"**{roofs['chain']['gbps']:.1f} GB/s** ({roofs['chain']['source']}{_both(roofs['chain'])})"
                    if roofs.get("chain") else "") + ".")
        out.append("")
    out += ["Each cell: median time per call; in brackets the speedup over xla (xla time / this time, "
            "above 1 is faster). Every system's results were checked against xla's (xla's against numpy's) "
            "before timing; a cell that failed says why.", ""]

    header = ["workload", "shape"] + shown + ["kiln % of roof", "xla % of roof"]
    out.append("| " + " | ".join(header) + " |")
    out.append("|" + "---|" * len(header))
    for w in runtime:
        cells = [w.name, _escape(w.shape)]
        cells += [_escape(cell_text(by_cell[(w.name, s)])) if (w.name, s) in by_cell else "-" for s in shown]
        for s in ("kiln", "xla"):
            rec = by_cell.get((w.name, s))
            cells.append(_roof_text(rec, w))
        out.append("| " + " | ".join(cells) + " |")
    geo = ["**geomean speedup over xla**", ""]
    for s in shown:
        speedups = [by_cell[(w.name, s)].get("speedup_vs_xla") for w in runtime if (w.name, s) in by_cell]
        value = _geomean(speedups)
        counted = sum(1 for v in speedups if v)
        geo.append(f"{value:.2f}× ({counted} of {len(runtime)})" if value and s != "xla" else ("1×" if s == "xla" else "-"))
    out.append("| " + " | ".join(geo + ["", ""]) + " |")
    out.append("")
    if chart:
        out += [f"![speedup over xla per workload]({chart})", ""]

    if compile_rows:
        out += ["## Compile time", "",
                "A fresh function each time: trace + lower + compile + first call (median of the timed rounds).", "",
                "| workload | shape | " + " | ".join(shown) + " |", "|" + "---|" * (len(shown) + 2)]
        for w in compile_rows:
            cells = [w.name, _escape(w.shape)]
            cells += [_escape(cell_text(by_cell[(w.name, s)])) if (w.name, s) in by_cell else "-" for s in shown]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")

    out += ["## First call and peak memory", "",
            f"Each cell: first-call time (compile + one run) / peak resident memory added while preparing and "
            f"running ({_memory_method(results)}).", "",
            "| workload | " + " | ".join(shown) + " |", "|" + "---|" * (len(shown) + 1)]
    for w in runtime:
        cells = [w.name]
        for s in shown:
            rec = by_cell.get((w.name, s))
            if rec is None or rec["compile_s"] is None:
                cells.append("-")
            else:
                cells.append(f"{fmt_seconds(rec['compile_s'])} / {fmt_bytes(rec['peak_rss_bytes'])}")
        out.append("| " + " | ".join(cells) + " |")
    out.append("")

    out += ["## Systems", ""]
    out += [f"- **{n}**: {note}" for n, note in meta["systems"].items()]
    out += [f"- **{n}**: {reason}" for n, reason in meta["unavailable"].items()]
    out.append("")
    return "\n".join(out)


def _both(roof):
    measured = roof.get("measured")
    return f"; before {measured[0]:.1f}, after {measured[1]:.1f}" if measured else ""


def _threads_text(n):
    if not n:
        return "each library's default"
    return f"{n} (process pinned to {n} core{'s' if n > 1 else ''}, every system told to use {n})"


def _roof_text(rec, workload):
    if not rec or rec.get("roof_fraction") is None:
        return "-"
    rate = f"{rec['gbps']:.1f} GB/s" if rec.get("gbps") is not None else f"{rec['gflops']:.1f} GFLOP/s"
    text = f"{100 * rec['roof_fraction']:.0f}% ({rate})"
    if rec.get("arith_roof_fraction") is not None:
        text += f"; {100 * rec['arith_roof_fraction']:.0f}% of the chain by hand"
    return text


def _memory_method(results):
    methods = sorted({r["rss_method"] for r in results if r.get("rss_method")})
    return "; ".join(methods) if methods else "not measured"


def versions(active):
    found = [f"Python {platform.python_version()}"]
    for label, module in (("numpy", "numpy"), ("jax", "jax"), ("jaxlib", "jaxlib"), ("torch", "torch"),
                          ("iree", "iree.compiler")):
        if module.split(".")[0] == "torch" and not any(n.startswith("torch") for n in active):
            continue
        if label == "iree" and "iree" not in active:
            continue
        try:
            mod = importlib.import_module(module)
            version = getattr(mod, "__version__", None)
            if version is None and label == "iree":
                from importlib.metadata import version as dist_version
                version = dist_version("iree-base-compiler")
            found.append(f"{label} {version}")
        except Exception:
            pass
    return ", ".join(found)


def plot(everything, path):
    """Grouped bars: speedup over xla per workload and system (log scale), xla at 1."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    results = [r for r in everything if r["kind"] == "result" and r["group"] != "compile"]
    workloads = list(dict.fromkeys(r["workload"] for r in results))
    shown = [s for s in dict.fromkeys(r["system"] for r in results)
             if s != "xla" and any(r["system"] == s and r.get("speedup_vs_xla") for r in results)]
    by_cell = {(r["workload"], r["system"]): r for r in results}
    fig, ax = plt.subplots(figsize=(min(18, max(8, 0.3 * len(workloads) * max(1, len(shown)))), 5.5))
    width = 0.8 / max(1, len(shown))
    x = np.arange(len(workloads))
    for i, s in enumerate(shown):
        values = [(by_cell.get((w, s)) or {}).get("speedup_vs_xla") or np.nan for w in workloads]
        ax.bar(x + (i - (len(shown) - 1) / 2) * width, values, width, label=s)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("speedup over xla (xla time / time)")
    ax.set_xticks(x)
    ax.set_xticklabels(workloads, rotation=60, ha="right", fontsize=8)
    meta = next(r for r in everything if r["kind"] == "run")
    ax.set_title(f"bench/run ({meta['mode']}), {meta['date']}; missing bar = failed or not run")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
