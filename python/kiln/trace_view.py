"""A static picture of a trace: `python -m kiln.trace_view TRACE.json [-o OUT.svg] [--from MS] [--to MS]`.

TRACE.json is what `kiln run --trace` or `kiln.profile` writes (the Chrome
trace event format). Perfetto (https://ui.perfetto.dev) is the tool to explore
it; this draws one SVG of it where no browser or network is at hand (a CI
artifact, a document): a row per thread, slices nested by depth, coloured by
category, named where they are wide enough. See docs/profiling.md.
"""
from __future__ import annotations

import argparse
import html
import json
import pathlib
import sys

COLORS = {"compile": "#90caf9", "pass": "#bbdefb", "codegen": "#ce93d8", "run": "#a5d6a7", "kernel": "#ffcc80",
          "library": "#ff8a65", "routine": "#f48fb1", "control": "#fff59d", "transfer": "#80deea", "io": "#e0e0e0"}
ROW, LEFT, WIDTH = 16, 150, 1400


def layout(events: list[dict]) -> dict[int, list[tuple[dict, int]]]:
    """Per thread, each slice with its depth (the slices open around it)."""
    rows: dict[int, list[tuple[dict, int]]] = {}
    for tid in sorted({e["tid"] for e in events}):
        open_ends: list[float] = []
        placed = []
        for event in sorted((e for e in events if e["tid"] == tid), key=lambda e: (e["ts"], -e["dur"])):
            while open_ends and event["ts"] >= open_ends[-1]:
                open_ends.pop()
            placed.append((event, len(open_ends)))
            open_ends.append(event["ts"] + event["dur"])
        rows[tid] = placed
    return rows


def draw(trace: dict, start_ms: float | None, end_ms: float | None) -> str:
    names = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"]
             if e["ph"] == "M" and e["name"] == "thread_name"}
    slices = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    begin = start_ms * 1000 if start_ms is not None else min(e["ts"] for e in slices)
    end = end_ms * 1000 if end_ms is not None else max(e["ts"] + e["dur"] for e in slices)
    slices = [e for e in slices if e["ts"] < end and e["ts"] + e["dur"] > begin]
    scale = WIDTH / max(end - begin, 1e-9)
    parts, y = [], 40
    for tid, placed in layout(slices).items():
        depth = max(d for _, d in placed) + 1
        parts.append(f'<text x="4" y="{y + 12}" font-weight="bold">{html.escape(names.get(tid, f"thread {tid}"))}</text>')
        for event, d in placed:
            x0 = LEFT + max(event["ts"] - begin, 0) * scale
            x1 = LEFT + min(event["ts"] + event["dur"] - begin, end - begin) * scale
            top = y + d * ROW
            title = html.escape(f'{event["name"]} ({event["cat"]}): {event["dur"]:.1f} us')
            parts.append(f'<rect x="{x0:.1f}" y="{top}" width="{max(x1 - x0, 0.5):.1f}" height="{ROW - 2}" '
                         f'fill="{COLORS.get(event["cat"], "#cfd8dc")}" stroke="#607d8b" stroke-width="0.3">'
                         f'<title>{title}</title></rect>')
            if x1 - x0 > 40:
                label = html.escape(event["name"][:max(1, int((x1 - x0) / 6.5))])
                parts.append(f'<text x="{x0 + 2:.1f}" y="{top + 11}" font-size="10">{label}</text>')
        y += depth * ROW + 14
    ticks = []
    for i in range(11):
        t = begin + (end - begin) * i / 10
        ticks.append(f'<text x="{LEFT + (t - begin) * scale:.1f}" y="30" font-size="10">{t / 1000:.2f} ms</text>')
    legend = "".join(f'<rect x="{LEFT + 90 * i}" y="{y + 6}" width="12" height="12" fill="{c}"/>'
                     f'<text x="{LEFT + 90 * i + 16}" y="{y + 16}" font-size="10">{k}</text>'
                     for i, (k, c) in enumerate(COLORS.items()))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{LEFT + WIDTH + 20}" height="{y + 30}" '
            f'font-family="sans-serif" font-size="11"><rect width="100%" height="100%" fill="white"/>'
            + "".join(ticks) + "".join(parts) + legend + "</svg>\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kiln.trace_view", description=__doc__.split("\n\n")[0])
    parser.add_argument("trace", type=pathlib.Path)
    parser.add_argument("-o", "--output", type=pathlib.Path, help="default: the trace's path with .svg")
    parser.add_argument("--from", dest="start", type=float, help="first millisecond drawn (default: the first slice)")
    parser.add_argument("--to", dest="end", type=float, help="last millisecond drawn (default: the last slice's end)")
    args = parser.parse_args(argv)
    try:
        trace = json.loads(args.trace.read_text())
    except (OSError, json.JSONDecodeError) as error:
        print(f"python -m kiln.trace_view: cannot read {args.trace}: {error}", file=sys.stderr)
        return 1
    output = args.output or args.trace.with_suffix(".svg")
    output.write_text(draw(trace, args.start, args.end))
    print(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
