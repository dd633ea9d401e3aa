"""jax.profiler.trace(dir) records kiln's work through the plugin's profiler
extension (kiln/pjrt/profiler_extension.h).

Each test runs unmodified JAX on the plugin in a subprocess, then reads what
jaxlib wrote: the XSpace protobuf (*.xplane.pb), through a decoder of the
wire format below (no protobuf dependency), and the trace events jaxlib's
own converter made of it (*.trace.json.gz, what TensorBoard's and xprof's
trace viewer show).
"""
import gzip
import json
import subprocess
import sys

from test_pjrt_plugin import plugin_environment

KILN_PLANE = "/device:CUSTOM:kiln"

PROGRAM = """
import sys
import jax, jax.numpy as jnp

@jax.jit
def step(a, b):
    return jnp.tanh(a @ b).sum()

x = jnp.ones((64, 64))
step(x, x).block_until_ready()  # compiles outside the profile
with jax.profiler.trace(sys.argv[1]):
    for _ in range(3):
        step(x, x).block_until_ready()
"""


def fields(data: bytes) -> list[tuple[int, int | bytes]]:
    """A protobuf message's fields in order: (number, integer or bytes)."""
    out, i = [], 0

    def varint():
        nonlocal i
        value = shift = 0
        while True:
            byte = data[i]
            i += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value

    while i < len(data):
        tag = varint()
        number, wire_type = tag >> 3, tag & 7
        if wire_type == 0:
            out.append((number, varint()))
        elif wire_type == 2:
            size = varint()
            out.append((number, data[i:i + size]))
            i += size
        else:  # fixed 64 or 32 bits (doubles in jaxlib's own planes)
            size = 8 if wire_type == 1 else 4
            out.append((number, data[i:i + size]))
            i += size
    return out


def values(message: list, number: int) -> list:
    return [value for n, value in message if n == number]


def read_planes(xplane_pb: bytes) -> dict[str, list]:
    """XSpace.planes (1) by XPlane.name (2)."""
    planes = [fields(plane) for plane in values(fields(xplane_pb), 1)]
    return {values(plane, 2)[0].decode(): plane for plane in planes}


def metadata_names(plane: list, number: int) -> dict[int, str]:
    """XPlane.event_metadata (4) or stat_metadata (5): names by id."""
    names = {}
    for entry in values(plane, number):
        metadata = fields(values(fields(entry), 2)[0])
        names[values(metadata, 1)[0]] = values(metadata, 2)[0].decode()
    return names


def read_lines(plane: list) -> list[dict]:
    """XPlane.lines (3) with their events' names and string stats."""
    event_names, stat_names = metadata_names(plane, 4), metadata_names(plane, 5)

    def event(e):
        stats = {stat_names[values(stat, 1)[0]]: values(stat, 5)[0].decode() for stat in map(fields, values(e, 4))}
        return {"name": event_names[values(e, 1)[0]], "offset_ps": values(e, 2)[0], "duration_ps": values(e, 3)[0],
                "stats": stats}
    return [{"name": values(line, 2)[0].decode(), "duration_ps": values(line, 9)[0],
             "events": [event(fields(e)) for e in values(line, 4)]}
            for line in map(fields, values(plane, 3))]


def profile(tmp_path, env):
    out = subprocess.run([sys.executable, "-c", PROGRAM, str(tmp_path / "profile")], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    xplanes = list(tmp_path.rglob("*.xplane.pb"))
    traces = list(tmp_path.rglob("*.trace.json.gz"))
    assert len(xplanes) == 1 and len(traces) == 1, list(tmp_path.rglob("*"))
    return xplanes[0].read_bytes(), json.loads(gzip.decompress(traces[0].read_bytes()))


def check_kiln_plane(xplane_pb: bytes):
    planes = read_planes(xplane_pb)
    assert KILN_PLANE in planes and "/host:CPU" in planes, list(planes)
    lines = read_lines(planes[KILN_PLANE])
    events = [event for line in lines for event in line["events"]]
    names = [event["name"] for event in events]
    # Three calls in the profile, each with its steps; none of the compile before it.
    assert sum(name.startswith("execute jit_step ") for name in names) == 3, names
    steps = [e["name"] for e in events if e["stats"].get("category") in ("kernel", "library")]
    assert len(steps) >= 3 and any("tanh" in name for name in steps), names
    assert not any(e["stats"].get("category") == "compile" for e in events), names
    for line in lines:
        assert line["name"] and line["events"], line
        for event in line["events"]:  # each starts within the profile (and may end after its stop)
            assert event["duration_ps"] > 0 and 0 <= event["offset_ps"] <= line["duration_ps"], event
    return names


def test_jax_profiler_trace_holds_kilns_executions_and_kernels(tmp_path):
    xplane_pb, trace = profile(tmp_path, plugin_environment())
    check_kiln_plane(xplane_pb)
    # jaxlib's converter (the trace viewer's) shows the plane as a device.
    processes = {e["pid"]: e["args"]["name"] for e in trace["traceEvents"]
                 if e.get("ph") == "M" and e.get("name") == "process_name"}
    kiln_pids = [pid for pid, name in processes.items() if name == KILN_PLANE]
    assert len(kiln_pids) == 1, processes
    slices = [e["name"] for e in trace["traceEvents"] if e.get("pid") == kiln_pids[0] and e.get("ph") == "X"]
    assert any("tanh" in name for name in slices), slices


def test_jax_profiler_trace_shares_kiln_trace_session(tmp_path):
    """With KILN_TRACE recording, the profile takes its part of that session,
    and KILN_TRACE's file still holds everything, the compile included."""
    env = plugin_environment()
    env["KILN_TRACE"] = str(tmp_path / "kiln_trace.json")
    xplane_pb, _ = profile(tmp_path, env)
    check_kiln_plane(xplane_pb)
    names = [e["name"] for e in json.loads((tmp_path / "kiln_trace.json").read_text())["traceEvents"]
             if e.get("ph") == "X"]
    assert sum(name.startswith("execute jit_step ") for name in names) == 4, names
    assert any(e.startswith("compile") for e in names), names


KILN_PROFILE_PROGRAM = """
import sys
import jax, jax.numpy as jnp, numpy as np
import kiln

@jax.jit
def step(a, b):
    return jnp.tanh(a @ b).sum()

x = jnp.ones((64, 64))
step(x, x).block_until_ready()  # compiles outside the profile
with kiln.profile(sys.argv[1]):
    for _ in range(3):
        step(x, x).block_until_ready()          # jax.jit on the plugin
    kiln.jit(lambda a: a * 2)(np.ones(4, np.float32))  # and kiln.jit beside it
"""


def test_kiln_profile_records_the_plugin_as_a_second_process(tmp_path):
    """kiln.profile around jax.jit on kiln devices collects the plugin's own
    tracer (the plugin is a copy of kiln) as process "kiln PJRT plugin"."""
    path = tmp_path / "trace.json"
    process = subprocess.run([sys.executable, "-c", KILN_PROFILE_PROGRAM, str(path)], env=plugin_environment(),
                             capture_output=True, text=True, timeout=600)
    assert process.returncode == 0, process.stderr[-3000:]
    events = json.loads(path.read_text())["traceEvents"]
    processes = {e["pid"]: e["args"]["name"] for e in events if e.get("name") == "process_name"}
    assert processes == {1: "kiln", 2: "kiln PJRT plugin"}, processes
    plugin = [e["name"] for e in events if e.get("pid") == 2 and e.get("ph") == "X"]
    assert sum(name.startswith("execute jit_step ") for name in plugin) == 3, plugin
    assert not any(name.startswith("compile") for name in plugin), plugin  # compiled before the profile
    own = [e["name"] for e in events if e.get("pid") == 1 and e.get("ph") == "X"]
    assert any(name.startswith("compile") for name in own), own  # kiln.jit's compile, in kiln.profile's own
