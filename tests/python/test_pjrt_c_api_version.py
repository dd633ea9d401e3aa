"""The plugin reports PJRT C API 0.93 (docs/pjrt.md, "The C API version"):
jaxlib then takes shardings and layouts from the plugin's extensions, not
from the HLO module it makes of the optimized program. Checked through
unmodified JAX on kiln devices, next to XLA:CPU in the same process.
"""

import pytest

from test_pjrt_plugin import plugin_environment, run_reporting_checks

PROGRAM = r'''
import json, traceback
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P, SingleDeviceSharding
from jax._src.layout import Format, Layout

def report(name, ok, detail=""):
    print(json.dumps({"name": name, "ok": bool(ok), "detail": str(detail)[-2000:]}), flush=True)

def check(name, fn):
    try:
        ok, detail = fn()
        report(name, ok, detail)
    except Exception:
        report(name, False, traceback.format_exc())

kiln = jax.devices("kiln")
x = np.arange(32, dtype=np.float32).reshape(8, 4)

def version():
    client = kiln[0].client
    got = (client.pjrt_c_api_major_version, client.pjrt_c_api_minor_version)
    return got == (0, 93), got

def transposed_result_layout():
    # jaxlib's HLO conversion lays a transpose's result out column-major; the
    # layouts extension reports kiln's row-major layout, which the result has.
    put = jax.device_put(x, kiln[0])
    compiled = jax.jit(lambda t: (t.T, t * 2)).lower(put).compile()
    out = jax.jit(lambda t: (t.T, t * 2))(put)
    reported = [f.layout.major_to_minor for f in compiled.output_formats]
    actual = [r.format.layout.major_to_minor for r in out]
    inputs = [f.layout.major_to_minor for f in compiled.input_formats[0]]
    ok = reported == actual == [(0, 1), (0, 1)] and inputs == [(0, 1)] and np.array_equal(np.asarray(out[0]), x.T)
    return ok, f"compiled {reported}, arrays {actual}, inputs {inputs}"

def column_major_request_is_refused():
    # kiln refuses while compiling, naming the layout (not JAX's assertion
    # after compiling), for a result and for an argument.
    d = kiln[0]
    fmt = Format(Layout(major_to_minor=(1, 0)), SingleDeviceSharding(d))
    messages = []
    for kind in ("out_shardings", "in_shardings"):
        try:
            jax.jit(lambda t: t + 1, **{kind: fmt}).lower(x).compile()
            return False, f"a column-major layout in {kind} was accepted"
        except Exception as e:
            messages.append(f"{type(e).__name__}: {e}")
    want = ["result 0 of @main asks for layout {0,1}", "argument 0 of @main asks for layout {0,1}"]
    ok = all(w in m and "row-major only" in m for w, m in zip(want, messages))
    return ok, " | ".join(messages)

def shardings_from_the_extension():
    # Without out_shardings: jaxlib asks the shardings extension (0.91) what
    # the partitioner chose for the parameters and results.
    mesh = Mesh(np.array(kiln[:4]).reshape(2, 2), ("a", "b"))
    put = jax.device_put(x, NamedSharding(mesh, P("a", "b")))
    compiled = jax.jit(lambda t: (jnp.sin(t), t.sum(0))).lower(put).compile()
    outs = [s.spec for s in compiled.output_shardings]
    ins = [s.spec for s in compiled.input_shardings[0]]
    return outs == [P("a", "b"), P("b",)] and ins == [P("a", "b")], f"outputs {outs}, inputs {ins}"

def explicit_out_shardings():
    mesh = Mesh(np.array(kiln[:4]).reshape(2, 2), ("a", "b"))
    put = jax.device_put(x, NamedSharding(mesh, P("a", "b")))
    want = np.cos(x) @ np.ones((4, 6), np.float32)
    got = jax.jit(lambda t: jnp.cos(t) @ jnp.ones((4, 6)), out_shardings=NamedSharding(mesh, P(None, "b")))(put)
    blocks = all(np.allclose(np.asarray(s.data), want[s.index], atol=1e-5) for s in got.addressable_shards)
    return got.sharding.spec == P(None, "b") and blocks, f"{got.sharding.spec}, blocks {'right' if blocks else 'wrong'}"

def compiled_memory_stats():
    stats = jax.jit(lambda t: jnp.tanh(t) @ t.T).lower(jax.device_put(x, kiln[0])).compile().memory_analysis()
    return stats.argument_size_in_bytes == 128 and stats.output_size_in_bytes == 256, str(stats)

for name, fn in [("version", version), ("transposed_result_layout", transposed_result_layout),
                 ("column_major_request_is_refused", column_major_request_is_refused),
                 ("shardings_from_the_extension", shardings_from_the_extension),
                 ("explicit_out_shardings", explicit_out_shardings),
                 ("compiled_memory_stats", compiled_memory_stats)]:
    check(name, fn)
'''

CHECKS = ["version", "transposed_result_layout", "column_major_request_is_refused",
          "shardings_from_the_extension", "explicit_out_shardings", "compiled_memory_stats"]
_results = {}


def results():
    if not _results:
        env = plugin_environment()
        env["KILN_NUM_DEVICES"] = "4"
        _results.update(run_reporting_checks(PROGRAM, env))
    return _results


@pytest.mark.parametrize("name", CHECKS)
def test_c_api_0_93(name):
    got = results()
    assert name in got, f"the subprocess reported nothing for {name}:\n{got['stderr'][-3000:]}"
    assert got[name]["ok"], got[name]["detail"]
