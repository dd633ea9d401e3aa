"""Errors kiln reports for a program JAX compiled point at the user's
source line: JAX records each op's Python location in the program it hands
the plugin, kiln's bytecode reader keeps it, and the error names the
innermost user frame (the line that made the failing op), wherever the op
sits: at top level, in a scan body, a nested jit or a cond branch. The
optimized program compile().as_text() prints points there too.
"""

import subprocess
import sys

import pytest

from test_pjrt_plugin import plugin_environment

PROGRAM = '''
import json
import jax, jax.numpy as jnp

def unknown(v):
    return jax.ffi.ffi_call("kiln_test_unknown_target", jax.ShapeDtypeStruct(v.shape, v.dtype))(v)  # FAILING OP

def top_level(x):
    return jnp.sin(unknown(x))  # CALLER top_level

def scan_body(x):
    def body(c, _):
        return unknown(c) * 2, None  # CALLER scan_body
    return jax.lax.scan(body, x, None, length=3)[0]  # CALLER scan_body

@jax.jit
def helper(v):
    return jnp.cos(unknown(v))  # CALLER nested_jit

def nested_jit(x):
    return helper(x) + 1  # CALLER nested_jit

def cond_branch(x):
    return jax.lax.cond(x[0] > 0, unknown, lambda v: v, x)  # CALLER cond_branch

for f in (top_level, scan_body, nested_jit, cond_branch):
    try:
        jax.jit(f)(jnp.ones(4)).block_until_ready()  # CALLER all
        message = None
    except Exception as e:
        message = f"{type(e).__name__}: {e}"
    print(json.dumps({"name": f.__name__, "message": message}), flush=True)

def scaled_tanh(x):
    return jnp.tanh(x) * 3  # MARKED OP

optimized = jax.jit(scaled_tanh).lower(jnp.ones(4)).compile().as_text()
print(json.dumps({"name": "as_text", "message": optimized}), flush=True)
'''

CASES = ["top_level", "scan_body", "nested_jit", "cond_branch"]
_results = {}


def results(tmp_path_factory):
    if not _results:
        path = tmp_path_factory.mktemp("locations") / "user_program.py"
        path.write_text(PROGRAM)
        out = subprocess.run([sys.executable, str(path)], env=plugin_environment(), capture_output=True, text=True,
                             timeout=600)
        import json
        for line in out.stdout.splitlines():
            if line.startswith("{"):
                case = json.loads(line)
                _results[case["name"]] = case["message"]
        _results["stderr"] = out.stderr
        _results["path"] = str(path)
        lines = PROGRAM.splitlines()
        _results["line"] = next(i for i, text in enumerate(lines, 1) if "# FAILING OP" in text)
        _results["marked_line"] = next(i for i, text in enumerate(lines, 1) if "# MARKED OP" in text)
        _results["callers"] = {name: [i for i, text in enumerate(lines, 1) if f"# CALLER {name}" in text or "# CALLER all" in text]
                               for name in CASES}
    return _results


@pytest.mark.parametrize("name", CASES)
def test_error_points_at_the_users_line(name, tmp_path_factory):
    got = results(tmp_path_factory)
    assert name in got, f"the program reported nothing for {name}:\n{got['stderr'][-3000:]}"
    message = got[name]
    assert message is not None, "the program kiln cannot compile ran"
    assert "kiln: " in message and "kiln_test_unknown_target" in message, message
    assert f"{got['path']}:{got['line']}:" in message, f"no {got['path']}:{got['line']}: in\n{message}"


@pytest.mark.parametrize("name", CASES)
def test_error_names_each_callers_line(name, tmp_path_factory):
    # The failing op's line, then a note for each line that called it, out
    # to the jax.jit call at the program's top level: from the op's own
    # location, and from the ops holding it (the scan's loop, the cond's
    # case) and the calls of the functions it is in (the nested jit, the
    # scan body), which JAX records on those ops.
    got = results(tmp_path_factory)
    message = got.get(name) or ""
    notes = [line for line in message.splitlines() if ": note: called from here" in line]
    want = [f"{got['path']}:{line}:" for line in got["callers"][name]]
    assert [note.split(" note:")[0][:len(w)] for note, w in zip(notes, want)] == want and len(notes) == len(want), \
        f"want notes at {want} in\n{message}"


def source_of(text, frame):
    """(file, line) of stack frame `frame` in an HLO module's text, through
    its StackFrames, FileLocations and FileNames tables (as XLA prints them)."""
    tables, table = {}, None
    for line in text.splitlines():
        if line in ("FileNames", "FunctionNames", "FileLocations", "StackFrames"):
            table = tables.setdefault(line, {})
        elif table is not None and line.strip():
            key, _, value = line.partition(" ")
            table[int(key)] = value
        else:
            table = None
    fields = lambda entry: dict(f.split("=") for f in entry.strip("{}").split())
    location = fields(tables["FileLocations"][int(fields(tables["StackFrames"][frame])["file_location_id"])])
    return tables["FileNames"][int(location["file_name_id"])].strip('"'), int(location["line"])


def test_optimized_program_metadata_points_at_the_users_line(tmp_path_factory):
    # compile().as_text(): the plugin hands jaxlib the optimized program
    # with each op's location, which jaxlib makes the HLO op's metadata.
    got = results(tmp_path_factory)
    text = got.get("as_text")
    assert text, f"the program printed no as_text():\n{got['stderr'][-3000:]}"
    tanh = [line for line in text.splitlines() if " tanh(" in line]
    assert tanh and all("stack_frame_id=" in line for line in tanh), text
    for line in tanh:
        frame = int(line.split("stack_frame_id=")[1].split()[0].rstrip("},"))
        assert source_of(text, frame) == (got["path"], got["marked_line"]), text
