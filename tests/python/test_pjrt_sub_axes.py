"""Sub-axes ("x":(p)s) on a program's argument and result shardings, through
the plugin: JAX 0.10.2 never writes them, so the programs are StableHLO text
compiled by jaxlib's client for four kiln devices. The executable reports
each parameter's and result's sharding as an HLO sharding
(kiln/pjrt/output_shardings.cpp); jaxlib places each argument's blocks on
the devices that sharding names, and each result shard must hold the block
its reported sharding names, with the values NumPy computes. A wrong
reading of a sub-axis would hand a device another block than the
partitioned program expects, and the results would differ.
"""

import pytest

from test_pjrt_plugin import plugin_environment, run_reporting_checks

PROGRAM = r'''
import json, traceback
import jax, numpy as np
from jax._src import xla_bridge
from jax._src.lib import xla_client as xc
from jax._src.sharding_impls import GSPMDSharding

devices = jax.devices("kiln")[:4]
backend = xla_bridge.get_backend("kiln")

def compile(text):
    options = xc.CompileOptions()
    build = options.executable_build_options
    build.num_partitions = 4
    build.num_replicas = 1
    build.use_spmd_partitioning = True
    build.device_assignment = xc.DeviceAssignment.create(np.array([[d.id for d in devices]]))
    return backend.compile_and_load(text, xc.DeviceList(tuple(devices)), options)

def check(name, text, args, want):
    try:
        executable = compile(text)
        placed = [jax.device_put(a, GSPMDSharding(devices, s))
                  for a, s in zip(args, executable.get_parameter_shardings())]
        results = executable.execute_sharded(placed).disassemble_into_single_device_arrays()
        problems = []
        for r, (shards, sharding, expected) in enumerate(zip(results, executable.get_output_shardings(), want)):
            blocks = GSPMDSharding(devices, sharding).devices_indices_map(expected.shape)
            for shard in shards:
                device = list(shard.devices())[0]
                block = expected[blocks[device]]
                got = np.asarray(shard)
                if got.shape != block.shape or not np.allclose(got, block, rtol=1e-5, atol=1e-5):
                    problems.append(f"result {r} on {device}: not block {blocks[device]}")
        detail = "; ".join(problems) or str([str(s) for s in executable.get_parameter_shardings()])
        print(json.dumps({"name": name, "ok": not problems, "detail": detail}), flush=True)
    except Exception:
        print(json.dumps({"name": name, "ok": False, "detail": traceback.format_exc()[-2000:]}), flush=True)

rng = np.random.default_rng(0)
x = rng.standard_normal((8, 4)).astype(np.float32)
w = rng.standard_normal((4, 6)).astype(np.float32)
n = np.arange(16, dtype=np.int32).reshape(4, 4)

# Rows over the minor half of "x", columns over the major half; the dot
# contracts over the major half (an all-reduce over it), the column sums
# stay split over it.
check("halves_of_an_axis", """
module @jit_halves attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%x: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(2)2}, {"x":(1)2}]>},
                         %w: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(1)2}, {}]>})
      -> (tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(2)2}, {}]>},
          tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(1)2}]>}) {
    %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
    %s = stablehlo.sine %d : tensor<8x6xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %c = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
    return %s, %c : tensor<8x6xf32>, tensor<4xf32>
  }
}""", [x, w], [np.sin(x @ w), x.sum(0)])

# Rows over the minor half only (each block on two devices: the major half
# replicates it), the result's columns over the major half; integers (exact).
check("one_half_replicated", """
module @jit_half attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%n: tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(2)2}, {}]>})
      -> (tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x":(1)2}]>}) {
    %t = stablehlo.transpose %n, dims = [1, 0] : (tensor<4x4xi32>) -> tensor<4x4xi32>
    %m = stablehlo.multiply %t, %n : tensor<4x4xi32>
    return %m : tensor<4x4xi32>
  }
}""", [n], [n.T * n])

# A sub-axis of an axis of 4 beside another axis: rows over the major half
# of "x" then "y", columns over the minor half.
check("sub_axes_and_an_axis", """
module @jit_mixed attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4, "y"=1]>
  func.func public @main(%n: tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(1)2, "y"}, {"x":(2)2}]>})
      -> (tensor<4x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x":(2)2}]>}, tensor<4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(1)2}]>}) {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %rows = stablehlo.reduce(%n init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x4xi32>, tensor<i32>) -> tensor<4xi32>
    %neg = stablehlo.negate %n : tensor<4x4xi32>
    return %neg, %rows : tensor<4x4xi32>, tensor<4xi32>
  }
}""", [n], [-n, n.sum(1)])
'''

CHECKS = ["halves_of_an_axis", "one_half_replicated", "sub_axes_and_an_axis"]
_results = {}


def results():
    if not _results:
        _results.update(run_reporting_checks(PROGRAM, plugin_environment(shared_devices=4)))
    return _results


@pytest.mark.parametrize("name", CHECKS)
def test_sub_axis_shardings_through_the_plugin(name):
    got = results()
    assert name in got, f"the subprocess reported nothing for {name}:\n{got['stderr'][-3000:]}"
    assert got[name]["ok"], got[name]["detail"]
