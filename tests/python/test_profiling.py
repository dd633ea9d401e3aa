"""Traces (`kiln run --trace`, kiln.profile), the per-kernel profile
(`kiln run --profile-json`) and the roofline chart (docs/profiling.md).

The trace is checked against the Chrome trace event format as Perfetto reads
it; the profile's flops and bytes against the runtime's cost analysis. No
timing is asserted: times only have to be there and add up.
"""
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import kiln

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD_DIR = pathlib.Path(os.environ.get("KILN_BUILD_DIR", REPO / "build"))
KILN = BUILD_DIR / "bin" / "kiln"

# A dot with an epilogue (oneDNN), a while loop with kernels in its regions
# and a sort (a routine): every kind of step a trace shows.
PROGRAM = """
func.func @main(%x: tensor<64x128xf32>, %w: tensor<128x256xf32>, %n: tensor<i32>) -> (tensor<64x256xf32>, tensor<64x256xf32>) {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<64x128xf32>, tensor<128x256xf32>) -> tensor<64x256xf32>
  %t = stablehlo.tanh %d : tensor<64x256xf32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %acc = %t) : tensor<i32>, tensor<64x256xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %next = stablehlo.add %i, %one : tensor<i32>
      %e = stablehlo.exponential %acc : tensor<64x256xf32>
      %h = stablehlo.multiply %e, %acc : tensor<64x256xf32>
      stablehlo.return %next, %h : tensor<i32>, tensor<64x256xf32>
    }
  %s = "stablehlo.sort"(%r#1) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    }) {dimension = 1 : i64, is_stable = true} : (tensor<64x256xf32>) -> tensor<64x256xf32>
  return %r#1, %s : tensor<64x256xf32>, tensor<64x256xf32>
}
"""
TRIPS = 3
STEP_CATEGORIES = {"kernel", "library", "routine", "control"}


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    """The program and its inputs as files: (program path, input paths)."""
    assert KILN.exists(), f"{KILN} not built (set KILN_BUILD_DIR)"
    directory = tmp_path_factory.mktemp("profiling")
    path = directory / "prog.mlir"
    path.write_text(PROGRAM)
    rng = np.random.default_rng(0)
    inputs = []
    for name, value in (("x", rng.uniform(-0.05, 0.05, (64, 128)).astype(np.float32)),
                        ("w", rng.uniform(-0.05, 0.05, (128, 256)).astype(np.float32)),
                        ("n", np.array(TRIPS, np.int32))):
        np.save(directory / f"{name}.npy", value)
        inputs.append(directory / f"{name}.npy")
    return path, inputs


def kiln_run(program, *flags):
    path, inputs = program
    command = [str(KILN), "run", str(path), *[f"--input={p}" for p in inputs], "--output-dir",
               str(path.parent / "out"), *flags]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done


def check_event_format(trace):
    """Checks `trace` (a parsed trace file) as Perfetto reads the JSON trace
    format; returns its complete events ('X')."""
    assert isinstance(trace["traceEvents"], list)
    named_threads = set()
    slices = []
    for event in trace["traceEvents"]:
        assert event["ph"] in ("M", "X"), event
        assert isinstance(event["pid"], int) and isinstance(event["tid"], int), event
        if event["ph"] == "M":
            assert event["name"] in ("process_name", "thread_name"), event
            assert isinstance(event["args"]["name"], str), event
            if event["name"] == "thread_name":
                named_threads.add(event["tid"])
            continue
        assert isinstance(event["name"], str) and event["name"], event
        assert isinstance(event["cat"], str) and event["cat"], event
        assert event["ts"] >= 0 and event["dur"] >= 0, event
        assert all(isinstance(v, str) for v in event.get("args", {}).values()), event
        slices.append(event)
    assert {e["tid"] for e in slices} <= named_threads, "every track is named"
    return slices


def check_tracks(slices):
    """Per thread, in file order: start times never decrease, and slices
    nest (each lies within the enclosing open one or after it ends)."""
    tolerance = 0.002  # microseconds: ts and dur are each rounded to the nanosecond
    by_thread = {}
    for event in slices:
        by_thread.setdefault(event["tid"], []).append(event)
    for events in by_thread.values():
        open_ends = []
        last_start = -1.0
        for event in events:
            start, end = event["ts"], event["ts"] + event["dur"]
            assert start >= last_start, f"{event['name']} starts before the slice before it"
            last_start = start
            while open_ends and start >= open_ends[-1] - tolerance:
                open_ends.pop()
            if open_ends:
                assert end <= open_ends[-1] + tolerance, f"{event['name']} overlaps the end of its parent"
            open_ends.append(end)


def test_trace_is_valid_and_shows_every_step(program):
    trace_path = program[0].parent / "trace.json"
    profile_path = program[0].parent / "profile.json"
    kiln_run(program, f"--trace={trace_path}", "--profile=1", f"--profile-json={profile_path}")
    slices = check_event_format(json.loads(trace_path.read_text()))
    check_tracks(slices)

    # Every step the profile lists ran inside the trace, as often as the
    # profile says (the run itself and the profiled run: twice per profiled call).
    profile = json.loads(profile_path.read_text())
    names = [e["name"] for e in slices if e["cat"] in STEP_CATEGORIES]
    assert profile["kernels"]
    for kernel in profile["kernels"]:
        assert names.count(kernel["label"]) >= 2 * kernel["calls_per_run"], kernel["label"]
    categories = {e["cat"] for e in slices}
    assert STEP_CATEGORIES <= categories
    # The compile phases: parsing, every pass of the pipeline, code generation.
    phases = [e["name"] for e in slices]
    assert "parse and verify" in phases
    assert {"canonicalize", "fusion", "schedule"} <= {e["name"] for e in slices if e["cat"] == "pass"}
    assert any(name.startswith("emit kernel") for name in phases)
    assert any(name.startswith("LLVM:") for name in phases)
    # Steps are named after their op and source line (a fusion's: its root's).
    tanh_line = PROGRAM.splitlines().index(next(l for l in PROGRAM.splitlines() if "stablehlo.tanh" in l)) + 1
    assert f"output fusion [dot_general, tanh] prog.mlir:{tanh_line}" in names
    assert names.count(next(n for n in names if n.startswith("loop fusion [exponential, multiply]"))) >= TRIPS


def test_trace_shows_each_tile_of_a_dot_split_across_threads(tmp_path):
    """A oneDNN dot of 256^3 compiled for 2 threads runs as 4 tiles of 64
    columns (onednn_dot.cpp planTiles): each run shows every tile once, on the
    track of the thread that ran it, inside that run's dot."""
    path = tmp_path / "dot.mlir"
    path.write_text("""
func.func @main(%x: tensor<256x256xf32>, %w: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %d : tensor<256x256xf32>
}
""")
    inputs = []
    for name in ("x", "w"):
        np.save(tmp_path / f"{name}.npy", np.full((256, 256), 0.5, np.float32))
        inputs.append(f"--input={tmp_path / (name + '.npy')}")
    trace_path = tmp_path / "trace.json"
    done = subprocess.run([str(KILN), "run", str(path), *inputs, "--output-dir", str(tmp_path / "out"), "--threads=2",
                           f"--trace={trace_path}", "--profile=2"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    slices = check_event_format(json.loads(trace_path.read_text()))
    check_tracks(slices)
    dots = [e for e in slices if e["cat"] == "library" and e["name"].startswith("dot_general")]
    tiles = [e for e in slices if e["cat"] == "library" and e["name"].startswith("tile ")]
    assert len(dots) == 3  # the run and the two profiled ones
    tolerance = 0.002
    for dot in dots:
        inside = [t for t in tiles if dot["ts"] - tolerance <= t["ts"] and
                  t["ts"] + t["dur"] <= dot["ts"] + dot["dur"] + tolerance]
        assert sorted(t["name"] for t in inside) == [f"tile {i} of 4" for i in range(4)]
    assert len(tiles) == 4 * len(dots)
    # The dot's own thread runs tiles; another (the pool's worker) may too.
    names = {e["tid"]: e["args"]["name"] for e in json.loads(trace_path.read_text())["traceEvents"]
             if e["ph"] == "M" and e["name"] == "thread_name"}
    assert all(t["tid"] in names for t in tiles)


def test_python_profile_traces_executions_and_transfers(tmp_path):
    f = kiln.compile(PROGRAM)
    x = np.full((64, 128), 0.01, np.float32)
    w = np.full((128, 256), 0.01, np.float32)
    path = tmp_path / "py.json"
    with kiln.profile(path):
        a = kiln.device_put(x)
        results = f(a, w, np.array(TRIPS, np.int32))
        np.array(results[1])
    slices = check_event_format(json.loads(path.read_text()))
    check_tracks(slices)
    names = [e["name"] for e in slices]
    assert any(name.startswith("execute ") for name in names)
    assert "host to device" in names
    kernels = [e for e in slices if e["cat"] in STEP_CATEGORIES]
    assert {e["cat"] for e in kernels} == STEP_CATEGORIES


def test_profiles_do_not_nest(tmp_path):
    with kiln.profile(tmp_path / "outer.json"):
        with pytest.raises(RuntimeError, match="already recording"):
            with kiln.profile(tmp_path / "inner.json"):
                pass
    assert json.loads((tmp_path / "outer.json").read_text())["traceEvents"]


def test_profile_json_agrees_with_the_cost_analysis(program):
    profile_path = program[0].parent / "costs.json"
    done = kiln_run(program, "--profile=3", f"--profile-json={profile_path}")
    profile = json.loads(profile_path.read_text())
    roofs = profile["roofs"]
    assert roofs["bytes_per_second"] > 0 and roofs["flops_per_second"] > 0
    # The runtime lists every top-level op of the optimized function in
    # order; the profile the ones that became steps, in the same order.
    cost = iter(kiln.compile(PROGRAM).cost_analysis()["kernels"])
    top_level = [k for k in profile["kernels"] if k["depth"] == 0 and "flops_per_run" in k]
    assert len(top_level) >= 2
    for kernel in top_level:
        expected = next(k for k in cost if k["name"] == kernel["op"])
        assert kernel["flops_per_run"] == pytest.approx(expected["flops"] * kernel["calls_per_run"])
        assert kernel["bytes_per_run"] == pytest.approx(expected["bytes_accessed"] * kernel["calls_per_run"])
    for kernel in profile["kernels"]:
        if "flops_per_run" not in kernel:
            assert kernel["kind"] in ("while", "if", "case", "call")
            continue
        seconds = kernel["seconds_per_run"]
        assert kernel["flops_per_second"] == pytest.approx(kernel["flops_per_run"] / seconds)
        assert kernel["bytes_per_second"] == pytest.approx(kernel["bytes_per_run"] / seconds)
        # The roofline: the fraction of min(peak, intensity x bandwidth).
        if kernel["flops_per_run"] > 0:
            attainable = min(roofs["flops_per_second"],
                             kernel["flops_per_run"] / kernel["bytes_per_run"] * roofs["bytes_per_second"])
            assert kernel["roof_fraction"] == pytest.approx(kernel["flops_per_second"] / attainable)
        assert kernel["bound"] in ("memory", "compute", "overhead")
    # The loop body's kernels run once per trip.
    body = next(k for k in profile["kernels"] if k["label"].startswith("loop fusion [exponential, multiply]"))
    assert body["depth"] == 1 and body["calls_per_run"] == TRIPS
    # Shares are of the sum of the steps' medians: the top-level rows' add up
    # to at most 1 (views and tuples have no row).
    top_share = sum(k["share"] for k in profile["kernels"] if k["depth"] == 0)
    assert 0 < top_share <= 1 + 1e-9
    assert sum(k["seconds_per_run"] for k in profile["kernels"] if k["depth"] == 0) <= profile["seconds_per_run"] * (1 + 1e-9)
    # The table on stderr lists the same rows.
    for kernel in profile["kernels"]:
        assert kernel["label"] in done.stderr


def test_roofline_chart(program, tmp_path):
    pytest.importorskip("matplotlib")
    profile_path = tmp_path / "roof.json"
    kiln_run(program, "--profile=1", f"--profile-json={profile_path}")
    done = subprocess.run([sys.executable, "-m", "kiln.roofline", str(profile_path), "-o", str(tmp_path / "chart")],
                          capture_output=True, text=True, check=False, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "chart.png").read_bytes().startswith(b"\x89PNG")
    assert b"<svg" in (tmp_path / "chart.svg").read_bytes()[:1000]


def test_trace_view_draws_every_slice(program, tmp_path):
    trace_path = tmp_path / "trace.json"
    kiln_run(program, f"--trace={trace_path}")
    done = subprocess.run([sys.executable, "-m", "kiln.trace_view", str(trace_path), "-o", str(tmp_path / "t.svg")],
                          capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    import xml.etree.ElementTree as ET  # noqa: PLC0415
    svg = ET.parse(tmp_path / "t.svg").getroot()
    titles = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}title")]
    slices = [e for e in json.loads(trace_path.read_text())["traceEvents"] if e["ph"] == "X"]
    assert len(titles) == len(slices)
    assert {t.rsplit(" (", 1)[0] for t in titles} == {e["name"] for e in slices}


def test_each_instance_of_a_multi_device_run_is_a_track(tmp_path):
    trace_path = tmp_path / "replicas.json"
    done = subprocess.run([str(KILN), "run", str(REPO / "tests/lit/tools/Inputs/two_replicas.mlir"),
                           "--input-literal=dense<[1.0, 2.0]> : tensor<2xf32>", f"--trace={trace_path}"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    trace = json.loads(trace_path.read_text())
    slices = check_event_format(trace)
    check_tracks(slices)
    names = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e.get("name") == "thread_name"}
    collectives = {names[e["tid"]] for e in slices if e["name"].startswith("all_reduce")}
    assert collectives == {"replica 0 partition 0", "replica 1 partition 0"}
