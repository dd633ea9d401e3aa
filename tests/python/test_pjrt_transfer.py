"""Arrays received over jax.experimental.transfer land on kiln devices:
jaxlib's transfer server creates the receiving buffers empty and fills them
chunk by chunk as they arrive, through the plugin's asynchronous
host-to-device transfer managers (PJRT_Client_CreateBuffersForAsyncHostToDevice
and PJRT_AsyncHostToDeviceTransferManager_*). Each case pulls a pytree of
arrays (many dtypes, a 0-d and an empty one, one of many chunks) onto kiln
devices, from a server on kiln and from one on XLA:CPU, and onto XLA:CPU
devices from XLA:CPU in the same process; the pulled arrays must equal the
sent ones, and a jitted function of them must give XLA:CPU's results.
An empty array arrives on kiln (its buffer is ready from the start); on
XLA:CPU its pull never ends, so XLA:CPU's side leaves it out.
"""

import json
import subprocess
import sys

import pytest

from test_pjrt_plugin import plugin_environment

PROGRAM = r'''
import json, traceback
import numpy as np
import jax, jax.numpy as jnp
import ml_dtypes
from jax.experimental import transfer
from jax.sharding import NamedSharding, PartitionSpec as P, SingleDeviceSharding

kiln, cpu = jax.devices("kiln"), jax.devices("cpu")
rng = np.random.default_rng(0)
DATA = [
    rng.standard_normal((300, 70)).astype(np.float32),  # 84000 bytes: 21 chunks of 4096
    rng.standard_normal((5, 3)).astype(ml_dtypes.bfloat16),
    rng.integers(-100, 100, (7,)).astype(np.int8),
    rng.integers(0, 60000, (2, 3)).astype(np.uint16),
    rng.standard_normal((4,)) > 0,
    (rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))).astype(np.complex64),
    np.float64(2.5).astype(np.float32).reshape(()),
    np.zeros((0, 3), np.float32),
    rng.integers(-2**40, 2**40, (3,)).astype(np.int64) if jax.config.jax_enable_x64 else np.arange(3, dtype=np.int32),
]


def report(name, ok, detail=""):
    print(json.dumps({"name": name, "ok": bool(ok), "detail": str(detail)[-3000:]}), flush=True)


def server(devices):
    return transfer.start_transfer_server(devices[0].client, "127.0.0.1:0", ["127.0.0.1:0"], transfer_size=1 << 12)


servers = {"kiln": server(kiln), "cpu": server(cpu)}
uuids = iter(range(1, 1000))


def pull(source, target, shardings):
    """Sends DATA from arrays on `source`'s devices (placed as `shardings`
    say, on those devices) and pulls it with `target`'s server."""
    src_devices = kiln if source == "kiln" else cpu
    sent = [(x, s) for x, s in zip(DATA, shardings) if s]  # None: not sent
    arrays = [jax.device_put(x, s(src_devices)) for x, s in sent]
    uuid = next(uuids)
    servers[source].await_pull(uuid, arrays)
    dst_devices = kiln if target == "kiln" else cpu
    connection = servers[target].connect(servers[source].address())
    specs = [jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=s(dst_devices)) for x, s in sent]
    return connection.pull(uuid, specs)


one = lambda ds: SingleDeviceSharding(ds[1])
rows = lambda ds: NamedSharding(jax.sharding.Mesh(np.array(ds[:2]), ("d",)), P("d"))
SHARDINGS = {
    "one_device": [one] * len(DATA),
    # The first array split by rows over two devices (each half its own buffer).
    "sharded": [rows] + [one] * (len(DATA) - 1),
}


# A function of each pulled array, jitted where it lies.
FUNCTIONS = [lambda a: jnp.tanh(a) @ a.T[:, :5], lambda b: b.astype(jnp.float32).sum(0), lambda c: c * 3,
             lambda d: d // 7, lambda e: jnp.where(e, 1, -1), lambda z: z * z.conj(), lambda s: jnp.exp(s),
             lambda empty: empty.sum(0) + 1, lambda w: w + 1]


def compute(xs):
    return [jax.jit(f)(x) for f, x in zip(FUNCTIONS, xs)]


for sharding_name, shardings in SHARDINGS.items():
    for source in ("kiln", "cpu"):
        name = f"{sharding_name}_from_{source}"
        try:
            got = pull(source, "kiln", shardings)
            # XLA:CPU's pull of an empty array never ends (jaxlib's server
            # sends it no chunk, and its buffer waits for one): XLA:CPU pulls
            # the others, and the empty one is made there directly.
            pulled = iter(pull("cpu", "cpu", [s if x.size else None for x, s in zip(DATA, shardings)]))
            want = [next(pulled) if x.size else jax.device_put(x, s(cpu)) for x, s in zip(DATA, shardings)]
            problems = []
            for i, (g, w, x) in enumerate(zip(got, want, DATA)):
                if not g.devices() <= set(kiln):
                    problems.append(f"array {i} is on {g.devices()}")
                if g.sharding.device_set != {d for d in kiln if d.id in {v.id for v in w.sharding.device_set}}:
                    problems.append(f"array {i}: sharding {g.sharding} where XLA:CPU has {w.sharding}")
                if g.dtype != x.dtype or g.shape != x.shape or not np.array_equal(np.asarray(g), x):
                    problems.append(f"array {i}: {g.dtype}{g.shape} {np.asarray(g).ravel()[:4]} sent {x.ravel()[:4]}")
            got_c = compute(got)
            want_c = compute(want)
            for i, (g, w) in enumerate(zip(got_c, want_c)):
                if not np.allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-5):
                    problems.append(f"result {i}: {np.asarray(g).ravel()[:4]} where XLA:CPU gives {np.asarray(w).ravel()[:4]}")
            report(name, not problems, "; ".join(problems))
        except Exception:
            report(name, False, traceback.format_exc())
'''

CASES = [f"{s}_from_{src}" for s in ("one_device", "sharded") for src in ("kiln", "cpu")]
_results = {}


def results():
    if not _results:
        env = plugin_environment()
        env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=2").strip()
        out = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=600)
        for line in out.stdout.splitlines():
            if line.startswith("{"):
                case = json.loads(line)
                _results[case["name"]] = case
        _results["stderr"] = out.stderr
    return _results


@pytest.mark.parametrize("name", CASES)
def test_pulled_arrays_match(name):
    got = results()
    assert name in got, f"the program reported nothing for {name}:\n{got['stderr'][-3000:]}"
    assert got[name]["ok"], got[name]["detail"]
